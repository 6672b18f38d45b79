#!/bin/sh
#
# t2006-pager: on a terminal, output longer than the screen goes through
# the pager ($OFL_PAGER, $PAGER, less with LESS=FRX), as git does; short
# output, pipes, files and --no-pager never do.  Matches and line numbers
# are in color on a terminal only.  The terminal is a pseudo-terminal
# (tests/ptyrun.py ROWS COLS CMD) and the pager a script that records it
# ran and marks the lines it passes.

. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null 2>&1 || test_skip_all "no python3"
unset OFL_PAGER PAGER LESS LV NO_COLOR
TERM=xterm
export TERM

tty() {
	python3 "$OFL_SRCDIR/tests/ptyrun.py" 24 80 "$@"
}

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

ESC=$(printf '\033')
nocolor() {
	sed "s/$ESC\[[0-9;]*m//g"
}

# The big one's lines each end in a word of their own (the number in
# letters), so that search does not fold them as one message.

# A JSON object with 60 keys: a schema longer than the screen.
awk 'BEGIN { printf "{"; for (i = 1; i <= 60; i++)
	printf "%s\"k%d\":%d", (i > 1 ? "," : ""), i, i; print "}" }' >wide.json

test_expect_success 'setup' '
	printf "#!/bin/sh\necho \"LESS=\$LESS\" >>\"%s/pager.log\"\nsed \"s/^/P:/\"\n" \
	    "$TEST_DIR" >pager &&
	chmod +x pager &&
	seq 1 100 | cap >long &&
	seq 1 5 | cap >short &&
	awk "BEGIN { for (i = 1; i <= 4000; i++) { w = i
		for (d = 0; d < 10; d++) gsub(d, substr(\"abcdefghij\", d + 1, 1), w)
		printf \"line %d of a big one %s\\n\", i, w } }" |
	    cap >big &&
	test -s long && test -s short && test -s big
'
long=$(cat long 2>/dev/null)
short=$(cat short 2>/dev/null)
big=$(cat big 2>/dev/null)

test_expect_success 'a terminal, longer than the screen: the pager, LESS=FRX' '
	rm -f pager.log &&
	PAGER=./pager tty ofl-extract "$long" >out &&
	seq 1 100 | sed "s/^/P:/" >expect &&
	test_cmp expect out &&
	echo LESS=FRX >expect &&
	test_cmp expect pager.log
'

test_expect_success 'LESS as the user set it is kept' '
	rm -f pager.log &&
	LESS=S PAGER=./pager tty ofl-extract "$long" >out &&
	echo LESS=S >expect &&
	test_cmp expect pager.log
'

test_expect_success 'output that fits on the screen: no pager' '
	rm -f pager.log &&
	PAGER=./pager tty ofl-extract "$short" >out &&
	seq 1 5 >expect &&
	test_cmp expect out &&
	test ! -e pager.log
'

test_expect_success 'a pipe or a file: never a pager, never color' '
	rm -f pager.log &&
	PAGER=./pager ofl-extract "$long" >out &&
	seq 1 100 >expect &&
	test_cmp expect out &&
	PAGER=./pager ofl-extract "$long" -n 1-100 --color=auto | cat >out &&
	seq 1 100 | awk "{ print \$0 \"\\t\" \$0 }" >expect &&
	test_cmp expect out &&
	test ! -e pager.log
'

test_expect_success '--no-pager, OFL_PAGER=cat and OFL_PAGER= turn it off' '
	rm -f pager.log &&
	PAGER=./pager tty ofl-extract --no-pager "$long" >out &&
	seq 1 100 >expect &&
	test_cmp expect out &&
	PAGER=./pager OFL_PAGER=cat tty ofl-extract "$long" >out &&
	test_cmp expect out &&
	PAGER=./pager OFL_PAGER= tty ofl-extract "$long" >out &&
	test_cmp expect out &&
	test ! -e pager.log
'

test_expect_success 'OFL_PAGER comes before PAGER' '
	rm -f pager.log &&
	PAGER=false OFL_PAGER=./pager tty ofl-extract "$long" >out &&
	test -s pager.log &&
	grep -q "^P:100\$" out
'

test_expect_success 'a pager that cannot start: the output, directly' '
	OFL_PAGER=./no-such-pager tty ofl-extract "$long" >out 2>err &&
	seq 1 100 >expect &&
	test_cmp expect out &&
	echo "ofl-extract: pager '\''./no-such-pager'\'': No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success 'quitting the pager early is no error: exit 0' '
	OFL_PAGER="head -n 1" tty ofl-extract "$big" >out 2>err &&
	echo "line 1 of a big one b" >expect &&
	test_cmp expect out &&
	test ! -s err
'

test_expect_success 'the exit status is kept under the pager' '
	rm -f pager.log &&
	PAGER=./pager test_expect_code 1 tty ofl-extract "$long" -e nomatch \
	    >out 2>err &&
	test ! -s out &&
	PAGER=./pager test_expect_code 3 tty ofl-extract "$long" .x \
	    >out 2>err &&
	test ! -s out && test -s err &&
	test ! -e pager.log
'

test_expect_success 'ofl-search: hits and the listing are paged' '
	rm -f pager.log &&
	PAGER=./pager tty ofl-search "$big" "big one" -n 20 -b 4000 >out &&
	test "$(grep -c "^P:" out)" -eq "$(wc -l <out)" &&
	PAGER=./pager ofl-search "$big" "big one" -n 20 -b 4000 >expect &&
	grep -q "^ofl:$big:" expect &&
	sed "s/^P://" out | nocolor >got &&
	test_cmp expect got &&
	for i in $(seq 1 30); do echo "x $i" | cap >/dev/null; done &&
	PAGER=./pager tty ofl-search -a >out &&
	test "$(grep -c "^P:ofl:" out)" -ge 30 &&
	test "$(wc -l <pager.log)" -eq 2
'

test_expect_success 'ofl-schema is paged' '
	rm -f pager.log &&
	cap <wide.json >wide &&
	PAGER=./pager tty ofl-schema -j -m 0 "$(cat wide)" >out &&
	test "$(wc -l <out)" -ge 60 &&
	test "$(grep -c "^P:{" out)" -eq "$(wc -l <out)" &&
	PAGER=./pager tty ofl-schema --no-pager -j -m 0 "$(cat wide)" >out &&
	! grep -q "^P:" out &&
	test "$(wc -l <pager.log)" -eq 1
'

test_expect_success 'a terminal: matches and line numbers in color' '
	printf "alpha beta\ngamma delta\n" | cap >words &&
	OFL_PAGER=cat tty ofl-search "$(cat words)" gamma >out &&
	printf "\033[35mofl:%s:1-2\033[m  (%s)\n  \033[32m1\033[m- alpha beta\n  \033[32m2\033[m: \033[01;31mgamma\033[m delta\n" \
	    "$(cat words)" "$(sed -n "1s/.*  (\(.*\))\$/\1/p" out)" >expect &&
	test_cmp expect out &&
	ofl-search "$(cat words)" gamma | nocolor >expect &&
	nocolor <out >got &&
	test_cmp expect got &&
	OFL_PAGER=cat tty ofl-extract "$short" -n 2 >out &&
	printf "\033[32m2\033[m\t2\n" >expect &&
	test_cmp expect out
'

test_expect_success 'NO_COLOR and --color=never turn color off, always on' '
	OFL_PAGER=cat NO_COLOR=1 tty ofl-search "$short" 3 >out &&
	! grep -q "$(printf "\033")" out &&
	OFL_PAGER=cat tty ofl-search --color=never "$short" 3 >out &&
	! grep -q "$(printf "\033")" out &&
	OFL_PAGER=cat NO_COLOR= tty ofl-search "$short" 3 >out &&
	grep -q "$(printf "\033")" out &&
	ofl-search --color=always "$short" 3 >out &&
	grep -q "$(printf "\033\\[01;31m3")" out &&
	NO_COLOR=1 ofl-extract --color=always "$short" -n 2 >out &&
	printf "\033[32m2\033[m\t2\n" >expect &&
	test_cmp expect out &&
	test_expect_code 2 ofl-search --color=sometimes "$short" 3 2>err &&
	grep -q "not auto, always or never" err
'

test_done
