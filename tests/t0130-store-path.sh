#!/bin/sh
#
# t0130-store-path: a store is a directory named by an absolute path.  A
# URL (no backend but the local one is built in) or a relative path, in
# OFL_STORE or -s, is a usage error: one line, exit 2, nothing created.

. "$(dirname "$0")/lib.sh"

mkdir work
cd work || exit 99

# nothing_made: the working directory is still empty.
nothing_made() {
	test -z "$(ls -A)"
}

for url in postgresql://db.example/ofl s3://bucket/x git+ssh://h/p; do
	scheme=${url%%://*}
	test_expect_success "OFL_STORE=$url: every tool refuses it, exit 2" '
		for t in "ofl-capture" "ofl-capture -- true" "ofl-search" \
		    "ofl-search @ x" "ofl-extract @" "ofl-schema @" \
		    "ofl-index @" "ofl-gc"; do
			echo x | OFL_STORE=$url test_expect_code 2 $t \
			    >out 2>err || exit 1
			test ! -s out || exit 1
			echo "${t%% *}: OFL_STORE=$url: $scheme:// stores are not supported (a store is a directory)" \
			    >expect &&
			test_cmp expect err || exit 1
			rm -f out err expect
		done &&
		nothing_made
	'
done

test_expect_success '-s URL: refused the same way' '
	echo x | test_expect_code 2 ofl-capture -s postgresql://h/db \
	    >out 2>err &&
	echo "ofl-capture: --store postgresql://h/db: postgresql:// stores are not supported (a store is a directory)" \
	    >expect &&
	test_cmp expect err &&
	test ! -s out &&
	rm out err expect &&
	nothing_made
'

test_expect_success 'ofl-capture -- CMD with a URL store: CMD does not run' '
	OFL_STORE=postgresql://h/db test_expect_code 2 \
	    ofl-capture -- touch ran 2>err &&
	test ! -e ran &&
	rm err &&
	nothing_made
'

test_expect_success 'a relative OFL_STORE or -s: exit 2, nothing made' '
	echo x | OFL_STORE=rel test_expect_code 2 ofl-capture >out 2>err &&
	echo "ofl-capture: OFL_STORE=rel: not an absolute path" >expect &&
	test_cmp expect err &&
	echo x | test_expect_code 2 ofl-capture -s ./rel >out 2>err &&
	echo "ofl-capture: --store ./rel: not an absolute path" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-search -s rel >out 2>err &&
	test_expect_code 2 env OFL_STORE=rel ofl-mcp </dev/null >out 2>err &&
	echo "ofl-mcp: OFL_STORE=rel: not an absolute path" >expect &&
	test_cmp expect err &&
	rm out err expect &&
	nothing_made
'

test_expect_success 'an absolute path still works, and a name like a.b:c' '
	echo x | ofl-capture -s "$TEST_DIR/st" >out &&
	echo x >expect &&
	test_cmp expect out &&
	echo y | ofl-capture -s "$TEST_DIR/a.b:c" >out &&
	test -d "$TEST_DIR/a.b:c" &&
	rm out expect &&
	nothing_made
'

test_done
