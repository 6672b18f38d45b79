#!/bin/sh
# Hostile archives: members named ../x or /abs are never written anywhere
# (nothing is ever extracted to disk), a decompression bomb is stopped by
# the size limit with a clear message, truncated and corrupt archives
# fail cleanly.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

EVIL=ofl-evil-$$
mkdir -p work/a/b && cd work/a/b || exit 99

# Everything any ofl tool does with an artifact.
all_tools() {
	_id=$1
	ofl-index "$_id" >/dev/null 2>>errs
	ofl-search "$_id" evil >/dev/null 2>>errs
	ofl-search -a evil >/dev/null 2>>errs
	ofl-schema "$_id" >/dev/null 2>>errs
	ofl-extract "$_id" --errors >/dev/null 2>>errs
	ofl-extract "$_id" -e evil >/dev/null 2>>errs
	for _m in "../../$EVIL-dots.txt" "/tmp/$EVIL-abs.txt" \
	    "$EVIL-link" "$EVIL-hard" "sub/../../../$EVIL-deep.txt"; do
		ofl-extract "$_id" --member "$_m" >/dev/null 2>>errs
		ofl-extract "$_id" --member "$_m" -n 1 >/dev/null 2>>errs
	done
	return 0
}

# nothing_written: no file named after EVIL exists anywhere we can see.
nothing_written() {
	find "$TEST_DIR" /tmp /var/tmp "$HOME" -name "$EVIL*" 2>/dev/null |
	    grep . >&2 && return 1
	return 0
}

test_expect_success 'setup: tar and zip archives with ../ and absolute members' '
	ofl-gc --set auto-gc=off &&
	mkdir -p src/QQQQ src/sub &&
	echo "evil dots" >src/dots.txt &&
	echo "evil absolute" >src/QQQQ/abs.txt &&
	echo "evil deep" >src/sub/deep.txt &&
	(cd src && ln -s /tmp/$EVIL-target link && ln dots.txt hard) &&
	(cd src && tar -cPf ../evil.tar \
	    --transform="s,^dots.txt,../../$EVIL-dots.txt," \
	    --transform="s,^QQQQ/abs.txt,/tmp/$EVIL-abs.txt," \
	    --transform="s,^sub/deep.txt,sub/../../../$EVIL-deep.txt," \
	    --transform="s,^link,$EVIL-link," \
	    --transform="s,^hard,$EVIL-hard," \
	    dots.txt QQQQ/abs.txt sub/deep.txt link hard) &&
	tar -tvf evil.tar >listing &&
	grep -F "../../$EVIL-dots.txt" listing &&
	grep -F "/tmp/$EVIL-abs.txt" listing &&
	(cd src && mkdir -p x/y && cp dots.txt "x/$EVIL-dots.txt" &&
	    cd x/y && zip -q ../../../evil.zip "../$EVIL-dots.txt" &&
	    cd ../.. && zip -q ../evil.zip QQQQ/abs.txt) &&
	LC_ALL=C sed "s,QQQQ/,/tmp/,g" evil.zip >evil2.zip &&
	unzip -l evil2.zip >zlisting &&
	grep -F "../$EVIL-dots.txt" zlisting && grep -F "/tmp/abs.txt" zlisting &&
	gzip -c evil.tar >evil.tar.gz &&
	tar=$(cap evil.tar) && zip=$(cap evil2.zip) && tgz=$(cap evil.tar.gz) &&
	echo "$tar $zip $tgz" >ids &&
	rm -rf src evil.zip &&
	nothing_written
'
read -r tar zip tgz <ids

test_expect_success 'index, search, schema and extract of every member write nothing' '
	: >errs &&
	for id in $tar $zip $tgz; do all_tools "$id"; done &&
	nothing_written &&
	no_sanitizer errs
'

test_expect_success 'the members are read as data: search finds them by name' '
	ofl-search "$tar" "evil dots" >hits &&
	grep -F "$EVIL-dots.txt" hits &&
	ofl-extract "$tar" --member "../../$EVIL-dots.txt" >m &&
	echo "evil dots" | cmp - m &&
	ofl-extract "$tar" --member "/tmp/$EVIL-abs.txt" >m &&
	echo "evil absolute" | cmp - m
'

test_expect_success strace 'strace: no file is created outside the store' '
	strace -f -qq -o trace -e trace=openat,open,creat,mkdir,mkdirat,symlink,symlinkat,link,linkat,rename,renameat,renameat2 \
	    sh -c "
		ofl-index -f $tar $zip $tgz
		ofl-extract $tar --member ../../$EVIL-dots.txt
		ofl-extract $zip --member ../$EVIL-dots.txt
		ofl-extract $tar --member $EVIL-link
		ofl-search -a evil
	    " >/dev/null 2>&1 &&
	grep -E "O_CREAT|O_WRONLY|O_RDWR|mkdir|symlink|link\(|rename" trace |
	    grep -v -F "$OFL_STORE/" | grep -v -E "\"/dev/(null|tty)\"" |
	    grep -v -E "/(etilqs_|sqlite)" >created
	cat created >&2
	test ! -s created &&
	! grep -F "$EVIL" trace | grep -E "O_CREAT|mkdir|symlink|link\("
'

# A bomb: a zstd stream of 1.2 GiB (a pattern, so that it is neither an
# empty tar nor text to chunk) in 120 kB; the limit is 1 GiB.
test_expect_success 'setup: a zstd bomb and a tar of three smaller bombs' '
	yes "$(printf "AB\001\002")" | head -c 1258291200 | zstd -q -1 -c >bomb.zst &&
	test "$(wc -c <bomb.zst)" -lt 1000000 &&
	bomb=$(cap bomb.zst) && echo "$bomb" >bomb.id &&
	yes "$(printf "CD\003\004")" | head -c 419430400 | zstd -q -1 -c >part.zst &&
	cp part.zst p1.zst && cp part.zst p2.zst && cp part.zst p3.zst &&
	tar -cf nested.tar p1.zst p2.zst p3.zst &&
	nested=$(cap nested.tar) && echo "$nested" >nested.id
'
read -r bomb <bomb.id
read -r nested <nested.id

test_expect_success 'indexing the bomb stops at the limit with a clear message' '
	test_expect_code 3 ofl-index "$bomb" >out 2>err &&
	cat err >&2 &&
	test "$(wc -l <err)" -eq 1 &&
	grep "expands to more than 1073741824 bytes" err
'

test_expect_success 'searching the bomb stops at the limit too' '
	test_expect_code 3 ofl-search "$bomb" AB >out 2>err &&
	grep "decompression bomb" err &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success 'three members that add up past the limit are stopped' '
	test_expect_code 3 ofl-index "$nested" >out 2>err &&
	cat err >&2 &&
	grep "expands to more than" err &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success 'the notice of a bomb capture comes back at once' '
	timeout 20 ofl-capture -T 0 <bomb.zst >notice 2>err &&
	grep "^ofl:" notice
'

test_open_bug 'ofl-extract --member of the bomb stops at the limit' '
	timeout 60 ofl-extract "$bomb" --member data -e zzz >out 2>err
	rc=$?
	echo "exit $rc: $(cat err)"
	test $rc -eq 3 && grep -E "bomb|more than" err
'

test_expect_success 'setup: truncated and corrupt archives' '
	seq 1 20000 | sed "s/^/member line /" >m1.txt &&
	head -c 200000 /dev/urandom | base64 >m2.txt &&
	tar -czf good.tgz m1.txt m2.txt &&
	size=$(wc -c <good.tgz) &&
	head -c $((size / 2)) good.tgz >trunc.tgz &&
	zip -q good.zip m1.txt m2.txt &&
	head -c $(($(wc -c <good.zip) - 100)) good.zip >trunc.zip &&
	tar -cf - m1.txt m2.txt | xz -c >good.txz &&
	head -c $(($(wc -c <good.txz) / 3)) good.txz >trunc.txz &&
	cp good.tgz corrupt.tgz &&
	printf "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX" |
	    dd of=corrupt.tgz bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null &&
	cp good.zip corrupt.zip &&
	printf "XXXXXXXXXXXXXXXX" |
	    dd of=corrupt.zip bs=1 seek=5000 conv=notrunc 2>/dev/null &&
	: >bad.ids &&
	for f in trunc.tgz trunc.zip trunc.txz corrupt.tgz corrupt.zip; do
		echo "$(cap $f) $f" >>bad.ids || exit 1
	done
'

test_expect_success 'truncated and corrupt archives: index, search and extract fail cleanly' '
	: >errs && : >results &&
	while read -r id f; do
		for cmd in "ofl-index -f $id" "ofl-search $id member" \
		    "ofl-extract $id --member m1.txt -n 1-3" \
		    "ofl-extract $id --member m2.txt -n -1" \
		    "ofl-extract $id --member nosuch" "ofl-schema $id" \
		    "ofl-extract $id --errors"; do
			$cmd >out 2>err
			rc=$?
			echo "$f: $cmd => $rc $(grep -c . err)" >>results
			cat err >>errs
		done
	done <bad.ids &&
	cat results >&2 &&
	! awk "\$(NF - 1) >= 4 || \$NF > 1" results | grep . &&
	no_sanitizer errs
'

test_expect_success 'what a truncated archive holds before the cut is searchable' '
	id=$(sed -n "s/ trunc.tgz$//p" bad.ids) &&
	ofl-search "$id" "member line 17" >hits &&
	grep "member line 17" hits
'

test_open_bug 'a compressed text stream of numbers is indexed as text' '
	seq 1 1000 | gzip -c >nums.gz &&
	id=$(cap nums.gz) &&
	ofl-index -v "$id" 2>&1 &&
	ofl-search "$id" 999 >hits
	cat hits
	grep 999 hits
'

test_done
