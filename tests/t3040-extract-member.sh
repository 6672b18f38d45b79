#!/bin/sh
#
# t3040-extract-member: --member reads one member of an archive artifact
# through libarchive, in memory.

. "$(dirname "$0")/lib.sh"

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

test_expect_success 'setup: a tarball, a gzip stream' '
	mkdir -p src/sub &&
	seq 1 300 | sed "s/^/n /" >src/sub/nums.txt &&
	printf "{\"a\":[1,2,3],\"b\":\"x\"}\n" >src/data.json &&
	printf "bin\000\377\n" >src/blob.bin &&
	tar -C src -czf a.tgz sub data.json blob.bin &&
	cap <a.tgz >tgz &&
	gzip -c src/sub/nums.txt >nums.gz &&
	cap <nums.gz >gz &&
	test -s tgz && test -s gz
'
tgz=$(cat tgz 2>/dev/null)
gz=$(cat gz 2>/dev/null)

test_expect_success 'a member comes back byte for byte' '
	ofl-extract "$tgz" --member sub/nums.txt >out &&
	test_cmp src/sub/nums.txt out &&
	ofl-extract "$tgz" --member blob.bin >out &&
	cmp src/blob.bin out
'

test_expect_success './path names the same member' '
	ofl-extract "$tgz" --member ./sub/nums.txt >out &&
	test_cmp src/sub/nums.txt out
'

test_expect_success '-n on a member' '
	printf "299\tn 299\n300\tn 300\n" >expect &&
	ofl-extract "$tgz" --member sub/nums.txt -n -2 >out &&
	test_cmp expect out &&
	printf "5\tn 5\n" >expect &&
	ofl-extract "$tgz" --member sub/nums.txt -n 5 >out &&
	test_cmp expect out
'

test_expect_success '-n on a member is cut and marked with --member' '
	ofl-extract "$tgz" --member sub/nums.txt -n 1- --max-bytes 20 >out &&
	{
		printf "1\tn 1\n2\tn 2\n3\tn 3\n"
		echo "[... lines 4-300 of ofl:$tgz not shown: ofl-extract $tgz --member sub/nums.txt --max-bytes 20 -n 4-300]"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'a search hit in a member, piped: the member'"'"'s lines' '
	ofl-index -q "$tgz" &&
	ofl-search -q "$tgz" "n 150" -n 1 >refs &&
	grep "^ofl:$tgz:[0-9-]*  \[sub/nums.txt\]\$" refs &&
	ofl-extract <refs >out &&
	grep "^150	n 150\$" out &&
	! grep -v "^[0-9]*	n [0-9]*\$" out &&
	ofl-search "$tgz" "n 150" -n 1 | ofl-extract >out2 &&
	test_cmp out out2
'

test_expect_success 'a search hit in a member of a truncated archive: the member'"'"'s lines' '
	seq 1 20000 | sed "s/^/log line error /" >big.log &&
	tar cf t.tar big.log src/data.json &&
	head -c 204800 t.tar >trunc.tar &&
	tid=$(cap <trunc.tar) &&
	ofl-index -q "$tid" &&
	ofl-search -q "$tid" "error 12" -n 1 >refs &&
	grep "  \[big.log\]\$" refs &&
	ofl-extract <refs >out 2>err &&
	! grep "ustar" out &&
	! grep -v "^[0-9]*	log line error [0-9]*\$" out
'

test_expect_success 'a member the archive ends inside: its bytes up to the cut, said once' '
	tid=$(cap <trunc.tar) &&
	ofl-extract "$tid" --member big.log >out 2>err &&
	head -c $((204800 - 512)) big.log >expect &&
	cmp expect out &&
	test "$(wc -l <err)" = 1 &&
	grep "^ofl-extract: ofl:$tid: big.log: the archive ends inside it (Truncated tar archive): its first 204288 bytes\$" err &&
	ofl-extract "$tid" --member big.log -n -1 >out 2>err &&
	printf "10257\tlog line error 102\n" >expect &&
	test_cmp expect out &&
	test "$(wc -l <err)" = 1
'

test_expect_success 'no such member before the cut: said so, with the members read' '
	tid=$(cap <trunc.tar) &&
	test_expect_code 3 ofl-extract "$tid" --member nope >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep "^ofl-extract: ofl:$tid: no member nope before the archive ends (Truncated .*; members: big.log)\$" err
'

test_expect_success 'of a compressed archive, cut: no member, not the raw stream' '
	gzip -c t.tar >t.tgz &&
	head -c $(($(wc -c <t.tgz) / 2)) t.tgz >trunc.tgz &&
	tid=$(cap <trunc.tgz) &&
	test_expect_code 3 ofl-extract "$tid" --member nope >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep "^ofl-extract: ofl:$tid: no member nope before the archive ends (.*; members: big.log)\$" err &&
	test_expect_code 3 ofl-extract "$tid" --member src/data.json >out 2>err &&
	test ! -s out
'

test_expect_success 'a hit in a CSV member: its lines numbered as the member'"'"'s' '
	{ echo "name,value"; seq 1 199 | sed "s/.*/row&,&/"; } >data.csv &&
	tar czf csv.tgz data.csv &&
	cid=$(cap <csv.tgz) &&
	ofl-search "$cid" row50 >out &&
	grep "^ofl:$cid:2-51  \[data.csv\]  rows 1-50 " out &&
	grep "^  51: row50,50\$" out &&
	grep "^  50- row49,49\$" out &&
	ofl-search -q "$cid" row150 -n 1 | ofl-extract >out &&
	grep "^151	row150,150\$" out &&
	ofl-search "$cid" ow150 >out &&
	grep "^ofl:$cid:151  \[data.csv\]  rows 101-150  (substring)\$" out &&
	grep "^  151: row150,150\$" out &&
	ofl-search -q "$cid" ow150 -n 1 | ofl-extract >out &&
	grep "^151	row150,150\$" out
'

test_expect_success 'a member whose name holds a newline: the piped hit reads it' '
	mkdir nl &&
	printf "alpha x\nbeta\n" >"nl/new
line" &&
	tar czf nl.tgz nl &&
	nid=$(cap <nl.tgz) &&
	ofl-search -q "$nid" alpha >refs &&
	echo "ofl:$nid:1-2  [nl/new line]" >expect &&
	test_cmp expect refs &&
	ofl-extract <refs >out &&
	printf "1\talpha x\n2\tbeta\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a sparse member comes back whole, its last hole too' '
	printf "head line\n" >sp &&
	truncate -s 100000 sp &&
	printf "mid\n" | dd of=sp bs=1 seek=50000 conv=notrunc 2>/dev/null &&
	tar --format=gnu -S -cf sp.tar sp &&
	sid=$(cap <sp.tar) &&
	ofl-extract "$sid" --member sp >out &&
	cmp sp out
'

test_expect_success 'hits in members with long names and a bracket, piped: the member'"'"'s lines' '
	d=long/$(printf "component%02d/" $(seq 1 13)) &&
	mkdir -p "$d" brk &&
	seq 300 | sed "s/^/zebra line /" >"$d/app.log" &&
	seq 300 | sed "s/^/yak row /" >"brk/a]b.log" &&
	tar cf names.tar -C long . -C ../brk . &&
	nid=$(cap <names.tar) &&
	ofl-index -q "$nid" &&
	for q in "zebra line 150" "yak row 150"; do
		w=${q% *} &&
		ofl-search "$nid" "$q" -n 1 | ofl-extract >out &&
		grep "^150	$w 150\$" out &&
		! grep -v "^[0-9]*	$w [0-9]*\$" out &&
		ofl-search -q "$nid" "$q" -n 1 | ofl-extract >out2 &&
		test_cmp out out2 || return 1
	done
'

test_expect_success 'a member whose CRC is wrong: said, exit 3' '
	seq 1 2000 | sed "s/^/crc line /" >crc.log &&
	zip -q -0 crc.zip crc.log &&
	sed "s/crc line 1000/Xrc line 1000/" crc.zip >crcbad.zip &&
	bid=$(cap <crcbad.zip) &&
	test_expect_code 3 ofl-extract "$bid" --member crc.log >out 2>err &&
	grep "^ofl-extract: ofl:$bid: crc.log: ZIP bad CRC" err
'

test_expect_success 'a filter, -e and --errors on a member' '
	echo 6 >expect &&
	ofl-extract "$tgz" --member data.json ".a | add" >out &&
	test_cmp expect out &&
	printf "150:\tn 150\n" >expect &&
	ofl-extract "$tgz" --member sub/nums.txt -e "^n 150$" >out &&
	test_cmp expect out &&
	test_expect_code 1 ofl-extract "$tgz" --member sub/nums.txt --errors
'

test_expect_success 'a compressed stream has one member' '
	ofl-extract "$gz" --member nums.txt >out &&
	test_cmp src/sub/nums.txt out &&
	printf "300\tn 300\n" >expect &&
	ofl-extract "$gz" --member data -n 300 >out &&
	test_cmp expect out
'

test_expect_success 'no such member: exit 3, and the members are named' '
	test_expect_code 3 ofl-extract "$tgz" --member nope.txt >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-extract: ofl:$tgz: no member nope.txt (members: sub/nums.txt, data.json, blob.bin)" err
'

test_expect_success 'not an archive: exit 3' '
	seq 1 10 | cap >plain &&
	test_expect_code 3 ofl-extract "$(cat plain)" --member x >out 2>err &&
	test ! -s out &&
	grep -q "not an archive" err
'

test_expect_success 'a compressed stream without its last byte: one line that says why' '
	seq 1 10000 | gzip >f.gz &&
	head -c -1 f.gz | cap >cut &&
	test_expect_code 3 ofl-extract "$(cat cut)" --member x >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: ofl:$(cat cut): not an archive: truncated or damaged" \
	    >expect &&
	test_cmp expect err
'

test_expect_success 'a compressed stream of NUL bytes is one member too' '
	head -c 1000 /dev/zero >zeros &&
	gzip -c zeros | cap >gzz &&
	ofl-extract "$(cat gzz)" --member anything >out &&
	cmp zeros out
'

test_expect_success python3 'a zip member (read with seeks)' '
	python3 -c "
import zipfile
with zipfile.ZipFile(\"a.zip\", \"w\", zipfile.ZIP_DEFLATED) as z:
    z.write(\"src/sub/nums.txt\", \"sub/nums.txt\")
    z.writestr(\"hello.txt\", \"hello\n\")
" &&
	zid=$(cap <a.zip) &&
	ofl-extract "$zid" --member hello.txt >out &&
	echo hello >expect &&
	test_cmp expect out &&
	ofl-extract "$zid" --member sub/nums.txt >out &&
	test_cmp src/sub/nums.txt out
'

test_done
