#!/bin/sh
# ofl-capture: usage, pass-through below the threshold, the notice's
# reference line above it, --quiet, --json, labels, the pipe protocol.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# refid FILE: the ID on the first reference line in FILE (a notice
# comes after the output that passed through live).
refid() {
	sed -n 's/^ofl:\([0-9a-z]\{8\}\) .*/\1/p' "$1" | head -n 1
}

# gen N FILE: N bytes of text in lines of 50.
gen() {
	awk -v n="$1" 'BEGIN {
		s = "the quick brown fox jumps over the lazy dog 01234\n";
		for (i = 0; i + 50 <= n; i += 50) printf "%s", s;
		printf "%s", substr(s, 1, n - i);
	}' >"$2"
}

test_expect_success '--help: usage on stdout, exit 0' '
	ofl-capture --help >out 2>err &&
	head -n 1 out | grep "^usage: ofl-capture " &&
	grep -- "--threshold" out &&
	test ! -s err &&
	ofl-capture -h >out2 && test_cmp out out2
'

test_expect_success '--version: one line, exit 0' '
	ofl-capture --version >out 2>err &&
	test "$(wc -l <out)" -eq 1 &&
	grep "^ofl [0-9][0-9.]*" out &&
	test ! -s err &&
	ofl-capture -V >out2 && test_cmp out out2
'

test_expect_success 'a bad value: exit 2, one line on stderr, nothing on stdout' '
	for args in "-T abc" "-T -1" "-C x" "-t 3y" "-H 1x"; do
		# shellcheck disable=SC2086
		test_expect_code 2 ofl-capture $args </dev/null >out 2>err ||
		{ echo "args: $args"; exit 1; }
		test ! -s out || { echo "stdout for $args"; exit 1; }
		test "$(wc -l <err)" = 1 && grep "^ofl-capture: " err ||
		{ echo "not one line for $args"; cat err; exit 1; }
	done
'

test_expect_success 'usage errors: exit 2, usage on stderr, nothing on stdout' '
	for args in "-Z" "--no-such-option" "-T" \
	    "-t" "-e true -- true" "-s"; do
		# shellcheck disable=SC2086
		test_expect_code 2 ofl-capture $args </dev/null >out 2>err ||
		{ echo "args: $args"; exit 1; }
		test ! -s out || { echo "stdout for $args"; exit 1; }
		grep "^usage: ofl-capture" err ||
		{ echo "no usage for $args"; cat err; exit 1; }
	done
'

test_expect_success 'small input passes through byte for byte' '
	printf "hello\nworld\n" >in &&
	ofl-capture <in >out 2>err &&
	test_cmp in out &&
	test ! -s err
'

test_expect_success 'and is stored whole' '
	ofl-extract @ >back &&
	test_cmp in back
'

test_expect_success 'no trailing newline: passes through unchanged' '
	printf "abc" >in &&
	ofl-capture <in >out &&
	test_cmp in out
'

test_expect_success 'all 256 byte values pass through (stdin)' '
	awk "BEGIN { for (i = 0; i < 256; i++) printf \"%c\", i }" >b256 &&
	test "$(wc -c <b256)" -eq 256 &&
	ofl-capture <b256 >out &&
	cmp b256 out &&
	ofl-extract @ >back && cmp b256 back
'

test_expect_success 'all 256 byte values pass through (-- cat)' '
	ofl-capture -- cat b256 >out &&
	cmp b256 out &&
	ofl-extract @ >back && cmp b256 back
'

test_expect_success 'at the threshold (6000 tokens = 24000 bytes): passes' '
	gen 24000 in &&
	ofl-capture <in >out &&
	test_cmp in out
'

test_expect_success 'one byte above: a notice that starts ofl:ID' '
	gen 24001 in &&
	ofl-capture <in >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]\{8\} text 24 kB 481 lines$" &&
	id=$(refid out) && test -n "$id" &&
	test "$(wc -c <out)" -lt 24001 &&
	ofl-extract "$id" >back && test_cmp in back
'

test_expect_success '-T: 40 bytes pass at -T 10, 41 do not' '
	gen 40 in40 && gen 41 in41 &&
	ofl-capture -T 10 <in40 >out && test_cmp in40 out &&
	ofl-capture -T 10 <in41 >out && test -n "$(refid out)" &&
	ofl-capture --threshold=10 <in41 >out && test -n "$(refid out)"
'

test_expect_success 'OFL_THRESHOLD sets the threshold; -T overrides it' '
	OFL_THRESHOLD=10 ofl-capture <in41 >out && test -n "$(refid out)" &&
	OFL_THRESHOLD=10 ofl-capture -T 11 <in41 >out && test_cmp in41 out &&
	OFL_THRESHOLD=11 ofl-capture <in41 >out && test_cmp in41 out
'

test_expect_success 'a bad OFL_THRESHOLD is a usage error (2), not a silent default' '
	test_expect_code 2 env OFL_THRESHOLD=lots ofl-capture <in41 >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-capture: OFL_THRESHOLD: " err &&
	test_expect_code 2 env OFL_HEAD=-1 ofl-capture -- true >out 2>err &&
	grep -q "^ofl-capture: OFL_HEAD: " err
'

test_expect_success '-T 0 offloads anything but empty input' '
	printf "x\n" | ofl-capture -T 0 >out && test -n "$(refid out)"
'

test_expect_success '--quiet: exactly ofl:ID and a newline when offloaded' '
	gen 30000 in &&
	ofl-capture -q <in >out &&
	grep -x "ofl:[0-9a-z]\{8\}" out &&
	test "$(wc -l <out)" -eq 1 &&
	id=$(sed "s/^ofl://" out) &&
	printf "ofl:%s\n" "$id" >expect && test_cmp expect out &&
	ofl-extract "$id" >back && test_cmp in back &&
	ofl-capture --quiet <in >out2 && grep -x "ofl:[0-9a-z]\{8\}" out2
'

test_expect_success '--quiet: small output still passes through' '
	printf "tiny\n" >in &&
	ofl-capture -q <in >out && test_cmp in out
'

test_expect_success '--json, small: one object with the output' '
	printf "tiny\n" | ofl-capture -j >out &&
	test "$(wc -l <out)" -eq 1 &&
	grep "^{\"id\":\"[0-9a-z]\{8\}\"," out &&
	grep "\"offloaded\":false" out &&
	grep "\"output\":\"tiny\\\\n\"}$" out &&
	grep "\"bytes\":5," out &&
	grep "\"lines\":1," out &&
	! grep "\"notice\"" out
'

test_expect_success JQ '--json, small: fields as jq sees them' '
	printf "tiny\n" | ofl-capture -j >out &&
	jq -e ".offloaded == false and .output == \"tiny\\n\" and
	    .bytes == 5 and .lines == 1 and .kind == \"text\" and
	    .incomplete == false and .ref == \"ofl:\" + .id" out
'

test_expect_success JQ '--json, large: offloaded with a notice' '
	gen 30000 in &&
	ofl-capture -j <in >out &&
	test "$(wc -l <out)" -eq 1 &&
	jq -e ".offloaded == true and .bytes == 30000 and .lines == 600 and
	    (.id as \$id | .notice | startswith(\"ofl:\" + \$id + \" \")) and
	    (has(\"output\") | not)" out &&
	id=$(jq -r .id out) &&
	ofl-extract "$id" >back && test_cmp in back
'

test_expect_success JQ '--json -- CMD: command, exit status, duration' '
	test_expect_code 3 ofl-capture -j -- sh -c "echo hi; exit 3" >out &&
	jq -e ".exit == 3 and .command == \"sh -c '"'"'echo hi; exit 3'"'"'\"
	    and .output == \"hi\\n\" and (.duration_ms | type) == \"number\"
	    and .cwd == \"$(pwd)\"" out
'

test_expect_success JQ '-l, -S, OFL_SESSION and -t are recorded' '
	echo a | ofl-capture -j -l mylabel -S s1 -t 2h >out &&
	jq -e ".label == \"mylabel\" and .session == \"s1\" and
	    .expires != null and .command == null" out &&
	echo a | OFL_SESSION=envsess ofl-capture -j >out &&
	jq -e ".session == \"envsess\" and .expires == null and
	    .label == null" out &&
	echo a | OFL_SESSION=envsess ofl-capture -j -S other >out &&
	jq -e ".session == \"other\"" out
'

test_expect_success 'the listing shows the label' '
	echo b | ofl-capture -l listed-label >/dev/null &&
	ofl_listing >list &&
	head -n 1 list | grep "^ofl:[0-9a-z]*	text	2 B	1	[0-9]*s	-	-	listed-label	-$"
'

test_expect_success 'empty input: nothing printed, exit 0, kind empty' '
	ofl-capture </dev/null >out 2>err &&
	test ! -s out && test ! -s err &&
	ofl_listing >list &&
	head -n 1 list | grep "^ofl:[0-9a-z]*	empty	0 B	0	" &&
	ofl-extract @ >back && test ! -s back
'

test_expect_success 'a command with no output: nothing printed, exit 0' '
	ofl-capture -- true >out 2>err &&
	test ! -s out && test ! -s err &&
	ofl_listing >list &&
	head -n 1 list | grep "^ofl:[0-9a-z]*	empty	0 B	0	[0-9]*s	0	-	-	true$"
'

test_expect_success '-s: another store' '
	printf "elsewhere\n" | ofl-capture -s "$TEST_DIR/other" -q -T 0 >out &&
	id=$(sed "s/^ofl://" out) &&
	OFL_STORE="$TEST_DIR/other" ofl-extract "$id" >back &&
	printf "elsewhere\n" >expect && test_cmp expect back &&
	test_expect_code 3 ofl-extract "$id" >/dev/null 2>&1
'

test_expect_success 'pipe protocol: a notice piped into ofl-extract' '
	printf "x%.0s" $(seq 30000) >in &&
	ofl-capture <in | ofl-extract >back &&
	test_cmp in back
'

test_expect_success 'pipe protocol: --quiet piped into ofl-extract' '
	ofl-capture -q <in | ofl-extract >back &&
	test_cmp in back
'

test_expect_success 'pipe protocol: passed-through output piped on' '
	printf "x%.0s" $(seq 20000) >in &&
	ofl-capture <in | ofl-extract >back &&
	test_cmp in back
'

test_expect_success 'stdout is checked: >/dev/full fails' '
	test -w /dev/full || exit 0
	! printf "x\n" | ofl-capture >/dev/full 2>err &&
	test -s err
'

test_expect_success 'a bad number names its option and its range' '
	test_expect_code 2 ofl-capture -T abc </dev/null 2>err &&
	echo "ofl-capture: --threshold abc: number is invalid (0 to 1099511627776)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-search -m 10 x 2>err &&
	echo "ofl-search: --max-bytes 10: number is too small (64 to 1073741824)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-gc --older-than x 2>err &&
	echo "ofl-gc: --older-than x: not a duration (use 30s, 15m, 3h, 7d, 2w)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-schema -m lots @ 2>err &&
	echo "ofl-schema: --max-bytes lots: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err
'

test_done
