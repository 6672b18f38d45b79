#!/bin/sh
# Large and hostile input: 5 MiB text and binary across frames, in stdin
# and -- mode; a single 100 MB line; invalid UTF-8, NUL bytes and
# terminal escapes never reach the notice raw.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# refid FILE: the ID on the first reference line in FILE (a notice
# comes after the output that passed through live).
refid() {
	sed -n 's/^ofl:\([0-9a-z]\{8\}\) .*/\1/p' "$1" | head -n 1
}

# safe FILE: only tab, newline and printable bytes (UTF-8 allowed), no
# NUL, no escape, valid UTF-8.
safe() {
	test "$(tr -d '\011\012\040-\176\200-\377' <"$1" | wc -c)" -eq 0 &&
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null
}

test_expect_success 'setup: 5 MiB of text, 5 MiB of random bytes' '
	awk "BEGIN { for (i = 1; i <= 120000; i++)
	    printf \"line %d of the generated text, %s\n\", i,
	    substr(\"abcdefghijklmnopqrstuvwxyz\", 1, i % 27) }" >big &&
	test "$(wc -c <big)" -gt 5242880 &&
	head -c 5242880 /dev/urandom >rnd &&
	test "$(wc -c <rnd)" -eq 5242880
'

test_expect_success '5 MiB text through stdin: byte-identical' '
	ofl-capture <big >out &&
	id=$(refid out) && test -n "$id" &&
	sed -n "/^ofl:$id /,\$p" out >notice &&
	test "$(wc -c <notice)" -lt 4096 &&
	ofl-extract "$id" >back && cmp big back
'

test_expect_success '5 MiB text through -- cat: byte-identical' '
	ofl-capture -- cat big >out &&
	id=$(refid out) && test -n "$id" &&
	ofl-extract "$id" >back && cmp big back
'

test_expect_success STOREDIR 'the same content twice: one blob, two artifacts' '
	test "$(find "$OFL_STORE/blobs" -type f | wc -l)" -eq 1
'

test_expect_success 'the same content twice: the listing shows both' '
	ofl_listing >list &&
	test "$(grep -c "	text	5\.[0-9] MB	120000	" list)" -eq 2
'

test_expect_success xxh128sum 'the hash in --json is what xxh128sum prints' '
	ofl-capture --json <big >j &&
	want=$(xxh128sum <big | cut -c1-32) &&
	grep -q "\"hash\":\"$want\"" j
'

test_expect_success '5 MiB random through stdin: byte-identical' '
	ofl-capture <rnd >out &&
	id=$(refid out) && test -n "$id" &&
	safe out &&
	ofl-extract "$id" >back && cmp rnd back
'

test_expect_success '5 MiB random through -- cat: byte-identical' '
	ofl-capture -- cat rnd >out &&
	id=$(refid out) && test -n "$id" &&
	safe out &&
	ofl-extract "$id" >back && cmp rnd back
'

test_expect_success 'byte ranges of the random data read back' '
	ofl-capture -q <rnd >/dev/null &&
	ofl-extract @ >back && cmp rnd back
'

test_expect_success 'line ranges across frames: ofl-extract -n' '
	ofl-capture -q <big >/dev/null &&
	ofl-extract @ -n 59990-60010 >got &&
	test "$(wc -l <got)" -eq 21 &&
	sed -n "59990,60010p" big >expect &&
	sed "s/^[^0-9]*[0-9][0-9,]*[^0-9a-z]*//" got >text &&
	test_cmp expect text &&
	head -n 1 got | grep "59,*990" &&
	tail -n 1 got | grep "60,*010"
'

test_expect_success 'hostile bytes: NUL, invalid UTF-8, escapes, all 256' '
	awk "BEGIN { for (r = 0; r < 200; r++) {
	    for (i = 0; i < 256; i++) printf \"%c\", i;
	    printf \"\\033[2J\\033]0;title\\007\\300\\200\\355\\240\\200\\377\\376\\n\" } }" \
	    >hostile &&
	test "$(wc -c <hostile)" -gt 50000 &&
	ofl-capture <hostile >out 2>err &&
	id=$(refid out) && test -n "$id" &&
	safe out && safe err &&
	ofl-extract "$id" >back && cmp hostile back
'

test_expect_success 'hostile text: NULs and escapes inside text lines' '
	awk "BEGIN { for (i = 0; i < 3000; i++)
	    printf \"error: line %d \\033[31mred\\033[0m nul%chere %c%c done\\n\",
	    i, 0, 255, 254 }" >htext &&
	test "$(wc -l <htext)" -eq 3000 &&
	test "$(tr -d "\000" <htext | wc -c)" -eq $(($(wc -c <htext) - 3000)) &&
	ofl-capture <htext >out 2>err &&
	id=$(refid out) && test -n "$id" &&
	safe out && safe err &&
	ofl-extract "$id" >back && cmp htext back
'

test_expect_success JQ 'hostile bytes in --json: valid JSON, no raw NUL' '
	ofl-capture -j <hostile >out &&
	test "$(tr -d "\000" <out | wc -c)" -eq "$(wc -c <out)" &&
	jq -e ".offloaded == true and (.notice | startswith(\"ofl:\"))" out
'

test_expect_success JQ 'small binary in --json: the output survives' '
	printf "a\000b\377c\n" >small &&
	ofl-capture -j <small >out &&
	jq -e ".offloaded == false and .bytes == 6" out
'

test_expect_success 'a hostile label or command is safe in the listing' '
	printf "x\n" | ofl-capture -l "$(printf "bad\033[2Jlabel\001")" >/dev/null &&
	ofl_listing >list &&
	safe list
'

test_expect_success 'a single 100 MB line: stored whole, 1 line, small notice' '
	head -c 100000000 /dev/zero | tr "\000" x >line &&
	echo >>line &&
	ofl-capture <line >out 2>err &&
	test ! -s err &&
	id=$(refid out) && test -n "$id" &&
	test "$(wc -c <out)" -lt 2048 &&
	safe out &&
	ofl_listing >list &&
	grep "^ofl:$id	text	100 MB	1	" list &&
	ofl-extract "$id" | cmp - line
'
rm -f line

test_done
