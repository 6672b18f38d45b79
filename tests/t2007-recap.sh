#!/bin/sh
# t2007: ofl-search --recap, what one session offloaded and saved: a line
# of totals, then a line per artifact, oldest first, with the signature of
# its first error; other sessions left out.

. "$(dirname "$0")/lib.sh"

big() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "line %06d\n", i }'
}

test_expect_success 'a session of three captures' '
	big 3000 >log.txt &&
	echo "fatal: disk 7 failed at 0x1f2e" >>log.txt &&
	{ OFL_SESSION=s1 ofl-capture -- sh -c "cat log.txt; exit 2" >notice1; test $? -eq 2; } &&
	big 5000 | OFL_SESSION=s1 ofl-capture -l numbers >notice2 &&
	echo small | OFL_SESSION=s1 ofl-capture >small &&
	big 4000 | OFL_SESSION=other ofl-capture >/dev/null &&
	ofl-search -S s1 -q >ids &&
	test $(wc -l <ids) -eq 3
'

test_expect_success 'the recap: totals, then each artifact, oldest first' '
	ofl-search --recap -S s1 >out &&
	ofl-search -S s1 -j | jq -s -r "reverse | .[] | .id" >order &&
	sed -n "2,\$p" out | sed "s/^ofl:\([a-z0-9]*\) .*/\1/" >got &&
	test_cmp order got &&
	id1=$(sed -n "s/^ofl:\([a-z0-9]*\) .*/\1/p" notice1 | head -n 1) &&
	grep "^ofl:$id1  text  36 kB  sh -c .cat log.txt; exit 2.  exit 2  error: fatal: disk <\*> failed at <\*>$" out &&
	id2=$(sed -n "s/^ofl:\([a-z0-9]*\) .*/\1/p" notice2 | head -n 1) &&
	grep "^ofl:$id2  text  60 kB  numbers$" out &&
	grep "  text  6 B  -$" out &&
	! grep "  48 kB  " out
'

# Savings: the bytes stored against what ofl-capture printed for each.
test_expect_success 'the savings line adds up' '
	ofl-search --recap -S s1 -j >j &&
	n=$(ofl-search -S s1 -q | wc -l) &&
	jq -s -e --argjson n "$n" "
	    (.[0] | .session == \"s1\" and .artifacts == \$n and
	     .printed_unknown == 0) and
	    (.[0].bytes == ([.[1:][].bytes] | add)) and
	    (.[0].saved == .[0].bytes_known - .[0].printed)" j &&
	p=$(($(wc -c <notice1) + $(wc -c <notice2) + $(wc -c <small))) &&
	jq -s -e --argjson p "$p" ".[0].printed >= \$p" j &&
	jq -s -e ".[1:] | map(select(.error_signature != null)) | length == 1 and
	    .[0].error_signature == \"fatal: disk <*> failed at <*>\"" j &&
	head -n 1 out | grep "^session s1: $n artifacts, [0-9.]* kB stored; [0-9.]* kB printed in their place, [0-9.]* kB saved ([0-9.]*%)$"
'

test_expect_success 'MCP results count: what the client got in their place' '
	printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ofl_list\",\"arguments\":{\"limit\":1000}}}" |
	OFL_SESSION=m1 ofl-mcp -T 10 >/dev/null 2>&1 &&
	ofl-search --recap -S m1 -j >mj &&
	jq -s -e ".[0].artifacts == 1 and .[0].printed_unknown == 0 and
	    .[0].printed > 0 and .[1].label == \"ofl/ofl_list\"" mj
'

test_expect_success 'default session from OFL_SESSION; none: usage; empty: 1' '
	OFL_SESSION=other ofl-search --recap >o &&
	test $(wc -l <o) -eq 2 &&
	head -n 1 o | grep "^session other: 1 artifact, " &&
	test_expect_code 1 ofl-search --recap -S nothing >e &&
	echo "session nothing: 0 artifacts, 0 B stored" >expect &&
	test_cmp expect e &&
	(unset OFL_SESSION; test_expect_code 2 ofl-search --recap 2>err) &&
	grep "^ofl-search: --recap takes no operand and needs a session" err &&
	test_expect_code 2 ofl-search --recap -S s1 word 2>err
'

test_done
