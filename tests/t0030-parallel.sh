#!/bin/sh
# ofl-capture -e CMD ...: commands run in parallel, results printed in
# the order given; over the combined budget the largest are offloaded
# first until the rest fits.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# gen N FILE: N bytes of text in lines of 50.
gen() {
	awk -v n="$1" -v t="$3" 'BEGIN {
		s = sprintf("%-49.49s\n", t " lorem ipsum dolor sit amet");
		for (i = 0; i + 50 <= n; i += 50) printf "%s", s;
		printf "%s", substr(s, 1, n - i);
	}' >"$2"
}

# split OUT: cut -e output into sec1, sec2, ... at the ==> headers, and
# the headers into heads.
split_out() {
	rm -f sec* heads
	awk '/^==> .* <== exit [0-9]+$/ { n++; print >"heads"; f = "sec" n;
		printf "" >f; next }
		{ print >f }' "$1"
}

# refid FILE: the ID on the first reference line in FILE (a notice
# comes after the output that passed through live).
refid() {
	sed -n 's/^ofl:\([0-9a-z]\{8\}\) .*/\1/p' "$1" | head -n 1
}

gen 8000 a8k small && gen 20000 a20k medium && gen 30000 a30k large &&
gen 16000 a16k p16 && gen 24000 a24k p24

test_expect_success '8k, 20k, 30k under -C 10000: only the 30k offloaded' '
	ofl-capture -C 10000 -e "cat a8k" -e "cat a20k" -e "cat a30k" >out &&
	split_out out &&
	printf "==> cat a8k <== exit 0\n==> cat a20k <== exit 0\n==> cat a30k <== exit 0\n" \
	    >expect && test_cmp expect heads &&
	test_cmp a8k sec1 &&
	test_cmp a20k sec2 &&
	id=$(refid sec3) && test -n "$id" &&
	test "$(wc -c <sec3)" -lt 4000 &&
	ofl-extract "$id" >back && test_cmp a30k back
'

test_expect_success 'under -C 6000 the 20k goes too, the 8k passes' '
	ofl-capture -C 6000 -e "cat a8k" -e "cat a20k" -e "cat a30k" >out &&
	split_out out &&
	test_cmp a8k sec1 &&
	id2=$(refid sec2) && test -n "$id2" &&
	id3=$(refid sec3) && test -n "$id3" &&
	test "$id2" != "$id3" &&
	ofl-extract "$id2" >back && test_cmp a20k back &&
	ofl-extract "$id3" >back && test_cmp a30k back
'

test_expect_success 'each below -T, together over -C: the largest goes' '
	ofl-capture -e "cat a16k" -e "cat a24k" -e "cat a20k" >out &&
	split_out out &&
	test_cmp a16k sec1 &&
	id=$(refid sec2) && test -n "$id" &&
	ofl-extract "$id" >back && test_cmp a24k back &&
	test_cmp a20k sec3
'

test_expect_success 'OFL_COMBINED sets the budget' '
	OFL_COMBINED=100000 ofl-capture -e "cat a16k" -e "cat a24k" \
	    -e "cat a20k" >out &&
	split_out out &&
	test_cmp a16k sec1 && test_cmp a24k sec2 && test_cmp a20k sec3
'

test_expect_success 'within the budget everything passes, in order' '
	ofl-capture -C 100000 -e "sleep 0.6; cat a8k" -e "sleep 0.3; cat a20k" \
	    -e "cat a16k" >out &&
	{
		echo "==> sleep 0.6; cat a8k <== exit 0" && cat a8k &&
		echo "==> sleep 0.3; cat a20k <== exit 0" && cat a20k &&
		echo "==> cat a16k <== exit 0" && cat a16k
	} >expect &&
	test_cmp expect out
'

test_expect_success 'the commands run in parallel' '
	start=$(date +%s) &&
	ofl-capture -e "sleep 2" -e "sleep 2" -e "sleep 2" -e "sleep 2" >out &&
	end=$(date +%s) &&
	test $((end - start)) -le 4 &&
	test "$(grep -c "^==> sleep 2 <== exit 0$" out)" -eq 4
'

test_expect_success 'exit status: the highest, each in its header' '
	test_expect_code 9 ofl-capture -e "echo a; exit 2" -e "echo b; exit 9" \
	    -e "echo c" >out &&
	printf "==> echo a; exit 2 <== exit 2\na\n==> echo b; exit 9 <== exit 9\nb\n==> echo c <== exit 0\nc\n" \
	    >expect &&
	test_cmp expect out
'

test_expect_success 'each command is its own artifact, with its command' '
	ofl-capture -T 0 -e "echo one" -e "echo two" >out &&
	ofl_listing >list &&
	head -n 2 list | cut -f 9 | sort >got &&
	printf "echo one\necho two\n" >expect &&
	test_cmp expect got
'

test_expect_success '--quiet with -e: IDs for the offloaded' '
	ofl-capture -q -C 10000 -e "cat a8k" -e "cat a30k" >out &&
	split_out out &&
	test_cmp a8k sec1 &&
	grep -x "ofl:[0-9a-z]\{8\}" sec2 &&
	ofl-extract "$(sed "s/^ofl://" sec2)" >back && test_cmp a30k back
'

test_expect_success JQ '--json with -e: one object per command' '
	ofl-capture -j -C 6000 -e "cat a8k" -e "cat a30k" >out &&
	grep "^{" out >objs &&
	test "$(wc -l <objs)" -eq 2 &&
	jq -s -e "length == 2 and
	    (.[0].offloaded == false and .[0].bytes == 8000) and
	    (.[1].offloaded == true and .[1].bytes == 30000)" objs
'

test_done
