#!/bin/sh
#
# t9010-cli: command-line conventions every ofl program keeps: --version
# and -V print the version configure gave, and say so in --help and the
# manual; the dispatcher lists with "ofl list" and suggests a command for
# a typo; ofl-sh refuses an option of its own.

. "$(dirname "$0")/lib.sh"

SRC=$OFL_SRCDIR
version=$(sed -n 's/^AC_INIT(\[ofl\], \[\([^]]*\)\].*/\1/p' \
    "$SRC/configure.ac")

test_expect_success 'setup: configure.ac names the version' '
	test -n "$version"
'

for b in ofl-capture ofl-extract ofl-gc ofl-index ofl-mcp ofl-schema \
    ofl-search ofl ofl-sh ofl-claude-hook; do
	test_expect_success "$b --version and -V: \"ofl $version\", exit 0" '
		echo "ofl $version" >expect &&
		"$b" --version </dev/null >out 2>err &&
		test_cmp expect out && test ! -s err &&
		"$b" -V </dev/null >out 2>err &&
		test_cmp expect out && test ! -s err
	'
	test_expect_success "$b: --help and its manual name -V, --version" '
		"$b" --help >help 2>&1 &&
		grep -q -e "-V" help && grep -q -e "--version" help &&
		page="$SRC/man/$b.1" &&
		grep "^\.It Fl V , Fl " "$page" | grep -q -e "-version"
	'
done

test_expect_success 'ofl list and ofl ls: the listing' '
	echo hello | ofl-capture -T 0 -l greet -q >/dev/null &&
	ofl-search | sed "s/ [0-9]*s  / Ns  /" >expect &&
	ofl list | sed "s/ [0-9]*s  / Ns  /" >out &&
	test_cmp expect out &&
	ofl ls | sed "s/ [0-9]*s  / Ns  /" >out &&
	test_cmp expect out &&
	ofl-search -q -k text >expect &&
	ofl ls -q -k text >out &&
	test_cmp expect out &&
	ofl ls --label=greet -n 1 -j >out &&
	grep -q "\"label\":\"greet\"" out
'

test_expect_success 'ofl ls with an operand: a usage error, not a search' '
	test_expect_code 2 ofl ls hello >out 2>err &&
	test ! -s out &&
	echo "ofl: list: unexpected operand '"'"'hello'"'"' (to search: ofl search QUERY)" \
	    >expect &&
	test_cmp expect err
'

test_expect_success 'a typo gets the nearest command: exit 2' '
	test_expect_code 2 ofl serach x >out 2>err &&
	test ! -s out &&
	echo "ofl: '"'"'serach'"'"' is not an ofl command; did you mean '"'"'search'"'"'?" \
	    >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl captur >out 2>err &&
	grep -q "did you mean '"'"'capture'"'"'?" err &&
	test_expect_code 2 ofl lst >out 2>err &&
	grep -q "did you mean '"'"'list'"'"' or '"'"'ls'"'"'?" err
'

test_expect_success 'nothing near: no suggestion, exit 2' '
	test_expect_code 2 ofl xyzzy >out 2>err &&
	echo "ofl: '"'"'xyzzy'"'"' is not an ofl command; see '"'"'ofl help'"'"'" \
	    >expect &&
	test_cmp expect err
'

test_expect_success 'data where a command was meant: one short line, exit 2' '
	word=$(printf "line one\\nline two %03000d" 0) &&
	test_expect_code 2 ofl "$word" >out 2>err &&
	test ! -s out &&
	test $(wc -l <err) -eq 1 &&
	test $(wc -c <err) -lt 160 &&
	grep -q "^ofl: '"'"'line one?line two 000000*\.\.\.'"'"' is not an ofl command" err &&
	w=$(printf "\303\251%.0s" $(seq 40)) &&
	test_expect_code 2 ofl "$w" >out 2>err &&
	printf "\303\251%.0s" $(seq 30) >expect &&
	grep -q "^ofl: '"'"'$(cat expect)\.\.\.'"'"'" err
'

test_expect_success 'a command whose program is missing: exit 3, which one' '
	mkdir alone &&
	cp "$OFL_SRCDIR/bin/ofl" alone/ &&
	test_expect_code 3 env PATH=/usr/bin:/bin sh alone/ofl search x \
	    >out 2>err &&
	test ! -s out &&
	echo "ofl: '"'"'search'"'"' is an ofl command, but ofl-search is not found beside ofl or in PATH" \
	    >expect &&
	test_cmp expect err &&
	test_expect_code 3 env PATH=/usr/bin:/bin sh alone/ofl list \
	    >out 2>err &&
	test_cmp expect err
'

test_expect_success 'ofl help lists list' '
	ofl help >out &&
	grep -q "^   list  " out
'

test_expect_success 'ofl-sh --bogus: its own usage error, exit 2' '
	test_expect_code 2 ofl-sh --bogus >out 2>err &&
	test ! -s out &&
	head -n 1 err >first &&
	echo "ofl-sh: unknown option: --bogus" >expect &&
	test_cmp expect first &&
	grep -q "^usage: ofl-sh" err &&
	test_expect_code 2 ofl-sh -Q >out 2>err &&
	grep -q "^ofl-sh: unknown option: -Q" err
'

test_expect_success 'ofl-sh passes shell options and scripts on' '
	echo "echo from-stdin" | ofl-sh -s >out &&
	echo from-stdin >expect &&
	test_cmp expect out &&
	echo "echo script" >s.sh &&
	ofl-sh s.sh >out &&
	echo script >expect &&
	test_cmp expect out &&
	ofl-sh -ec "echo wrapped" >out &&
	echo wrapped >expect &&
	test_cmp expect out
'

test_done
