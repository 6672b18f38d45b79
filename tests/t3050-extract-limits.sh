#!/bin/sh
# t3050: a jq filter has no way out of its sandbox (no module, import or
# include, whatever comes before it; no environment), and a filter or a
# regular expression runs under limits of CPU time and memory: over one,
# a single line on stderr and exit 3.

. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: an artifact, and files a filter must not read' '
	printf "{\"name\":\"import\",\"n\":1}\n" |
	    ofl-capture -T 0 -q >ref &&
	mkdir lib &&
	echo "{\"stolen\":\"config-file\"}" >lib/config.json &&
	echo "def leak: \"module-file\";" >lib/m.jq
'

test_expect_success 'a module directive cannot smuggle an import in' '
	for f in "module {a:\";\"}; import \"config\" as \$c {search:\"$PWD/lib\"}; \$c" \
	    "module {a:\";\"}; include \"m\" {search:\"$PWD/lib\"}; leak" \
	    "module {}; import \"m\" as m {search:\"$PWD/lib\"}; m::leak" \
	    "# a comment
	     module {a: \"x;y\"}; include \"m\" {search: \"$PWD/lib\"}; leak" \
	    "module {a:1}; ." "	import \"m\" as m; ."; do
		test_expect_code 2 ofl-extract @ "$f" >out 2>err &&
		test ! -s out &&
		test $(wc -l <err) -eq 1 &&
		grep -q "^ofl-extract: jq: error: \(module\|import\|include\) is not allowed: filters run without access to the file system" err ||
		return 1
	done
'

test_expect_success 'the words alone, in strings, keys and fields, are fine' '
	ofl-extract -c @ "select(.name==\"import\") | {import: .n, include:
	    \"module\", module: .import}" >out &&
	echo "{\"import\":1,\"include\":\"module\",\"module\":null}" >expect &&
	test_cmp expect out &&
	ofl-extract -r @ "\"import \\\"m\\\";\" # import" >out &&
	echo "import \"m\";" >expect &&
	test_cmp expect out
'

test_expect_success 'no environment, no file name, no module metadata' '
	SECRET_TOKEN=hunter2 ofl-extract -c @ \
	    "[env, \$ENV, input_filename, get_search_list]" >out &&
	echo "[{},{},null,[]]" >expect &&
	test_cmp expect out &&
	test_expect_code 3 ofl-extract @ "\"config\" | modulemeta" >out 2>err &&
	test ! -s out &&
	grep "module not found: config" err &&
	! grep -r "config-file\|module-file\|hunter2" out err
'

test_expect_success 'ofl_extract over MCP refuses the same filters' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ofl_extract\",\"arguments\":{\"id\":\"@\",\"filter\":\"module {a:\\\\\";\\\\\"}; import \\\\\"config\\\\\" as \$c {search:\\\\\"%s/lib\\\\\"}; \$c\"}}}\n" "$PWD" |
	ofl-mcp >out 2>err &&
	grep "\"isError\":true" out &&
	grep "jq: error: module is not allowed: filters run without access to the file system" out &&
	! grep "config-file" out
'

test_expect_success 'a filter over its CPU time: one line, exit 3' '
	test_expect_code 3 ofl-extract -c --time-limit 1 @ \
	    "last(range(1e12))" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: jq: the filter used 1 s of CPU time, the limit (--time-limit)" >expect &&
	test_cmp expect err
'

test_expect_success 'a filter that goes on past the budget: what fit, a mark, exit 0' '
	ofl-extract -c @ "range(1e9)" >out 2>err &&
	test ! -s err &&
	sed "\$d" out >shown &&
	test "$(wc -c <shown)" -le 4096 &&
	head -n 3 out >head &&
	printf "0\n1\n2\n" >expect &&
	test_cmp expect head &&
	tail -n 1 out >mark &&
	grep "^\[\.\.\. results [0-9]* on of the filter on ofl:[a-z0-9]* (stopped at [0-9]*) not shown: ofl-extract [a-z0-9]* -c --skip [0-9]* '"'"'range(1e9)'"'"'\]\$" mark &&
	ofl-extract -c @ "repeat(.)" >out 2>err &&
	grep "(stopped at [0-9]*) not shown" out &&
	ofl-extract -j @ "range(1e9)" >out 2>err &&
	tail -n 1 out | grep "\"omitted\":\"results [0-9]* on of the filter" &&
	seq 1 2000000 | ofl-capture -s "$PWD/st2" -q -T 0 >many &&
	ofl-extract -s "$PWD/st2" -j "$(cat many)" . >out 2>err &&
	tail -n 1 out | grep "\"omitted\":\"results [0-9]* on of the filter on ofl:[a-z0-9]* (stopped at [0-9]*)\""
'

test_expect_success 'OFL_TIME_LIMIT sets it, --time-limit wins' '
	OFL_TIME_LIMIT=1s test_expect_code 3 ofl-extract @ \
	    "last(range(1e12))" >out 2>err &&
	grep "used 1 s of CPU time" err &&
	OFL_TIME_LIMIT=1000 test_expect_code 3 ofl-extract --time-limit 1 @ \
	    "last(range(1e12))" >out 2>err &&
	grep "used 1 s of CPU time" err
'

test_expect_success 'bad limits: exit 2' '
	for a in "--time-limit x" "--time-limit -1" "--memory-limit 1k" \
	    "--memory-limit lots"; do
		test_expect_code 2 ofl-extract $a @ . >out 2>err &&
		grep "^ofl-extract: --\(time\|memory\)-limit: bad" err ||
		return 1
	done &&
	OFL_MEMORY_LIMIT=1 test_expect_code 2 ofl-extract @ . 2>err &&
	grep "^ofl-extract: OFL_MEMORY_LIMIT: bad size" err
'

# A sanitizer build reserves terabytes of address space, and the memory
# limit is off there.
if (ulimit -v 262144 && ofl-extract --help) >/dev/null 2>&1; then
	HAVE_AS=1
else
	HAVE_AS=
fi

test_expect_success 'a filter over its memory: one line, exit 3' '
	test -n "$HAVE_AS" || { echo "skipped: no RLIMIT_AS" && return 0; }
	test_expect_code 3 ofl-extract --memory-limit 64M --time-limit 60 @ \
	    "[range(1e9)] | length" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: jq: the filter needs more than 64 MiB of memory, the limit (--memory-limit)" >expect &&
	test_cmp expect err
'

test_expect_success 'a regex that takes gigabytes to compile: one line, exit 3' '
	test -n "$HAVE_AS" || { echo "skipped: no RLIMIT_AS" && return 0; }
	test_expect_code 3 ofl-extract --memory-limit 64M @ \
	    -e "((a{1,100}){1,100}){1,100}" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: regex needs more than 64 MiB of memory, the limit (--memory-limit)" >expect &&
	test_cmp expect err
'

# Back references make glibc backtrack: far more than a second on a line
# of 3,000 "a"s, in a few megabytes (a regex that takes long to compile
# may take its memory first, or compile within the second on a fast
# machine).
test_expect_success 'a regex over its CPU time: one line, exit 3' '
	OFL_STORE=$TEST_DIR/cpu && export OFL_STORE &&
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"a\"; print \"\" }" |
	    ofl-capture -T 0 -q >/dev/null &&
	test_expect_code 3 ofl-extract --memory-limit 512M --time-limit 1 @ \
	    -e "(a*)(a*)(a*)\3\2\1b" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: regex used 1 s of CPU time, the limit (--time-limit)" >expect &&
	test_cmp expect err
'

test_expect_success 'within the limits, output and status are as before' '
	ofl-extract -c --time-limit 5 --memory-limit 64M @ ".n, .name" >out &&
	printf "1\n\"import\"\n" >expect &&
	test_cmp expect out &&
	ofl-extract --memory-limit 64M @ -e "n.*e" >out &&
	printf "1:\t{\"name\":\"import\",\"n\":1}\n" >expect &&
	test_cmp expect out &&
	test_expect_code 1 ofl-extract @ -e "^x" >out &&
	test_expect_code 1 ofl-extract @ "empty" &&
	test_expect_code 3 ofl-extract @ "error(\"boom\")" 2>err &&
	grep "boom" err
'

test_done
