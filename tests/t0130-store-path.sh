#!/bin/sh
#
# t0130-store-path: a store is a directory named by an absolute path, or
# a PostgreSQL database named by a postgresql:// URL when that engine is
# built.  Another URL, a postgresql:// URL without the engine, or a
# relative path, in OFL_STORE or -s, is a usage error: one line, exit 2,
# nothing created.

. "$(dirname "$0")/lib.sh"

# What the refusal of a URL says a store is.
if grep -q '^#define HAVE_LIBPQ 1' "$OFL_BUILDDIR/config.h" 2>/dev/null; then
	have_pg=1
	store_is="a store is a directory or a postgresql:// URL"
	refused="s3://bucket/x git+ssh://h/p"
else
	have_pg=
	store_is="a store is a directory"
	refused="postgresql://db.example/ofl s3://bucket/x git+ssh://h/p"
fi

mkdir work
cd work || exit 99

# nothing_made: the working directory is still empty.
nothing_made() {
	test -z "$(ls -A)"
}

for url in $refused; do
	scheme=${url%%://*}
	test_expect_success "OFL_STORE=$url: every tool refuses it, exit 2" '
		for t in "ofl-capture" "ofl-capture -- true" "ofl-search" \
		    "ofl-search @ x" "ofl-extract @" "ofl-schema @" \
		    "ofl-index @" "ofl-gc"; do
			echo x | OFL_STORE=$url test_expect_code 2 $t \
			    >out 2>err || exit 1
			test ! -s out || exit 1
			echo "${t%% *}: OFL_STORE=$url: $scheme:// stores are not supported ($store_is)" \
			    >expect &&
			test_cmp expect err || exit 1
			rm -f out err expect
		done &&
		nothing_made
	'
done

if [ -n "$have_pg" ]; then
	test_expect_success 'a postgresql:// URL nothing answers: exit 3, one line' '
		url="postgresql://u:secret@/ofl?host=$TEST_DIR/none" &&
		OFL_STORE=$url test_expect_code 3 ofl-search >out 2>err &&
		test ! -s out &&
		test "$(wc -l <err)" -eq 1 &&
		grep -q "^ofl-search: store postgresql://u:\*\*\*@/ofl?host=$TEST_DIR/none: cannot connect: " err &&
		! grep -q secret err &&
		rm out err &&
		nothing_made
	'
fi

test_expect_success '-s URL: refused the same way' '
	echo x | test_expect_code 2 ofl-capture -s s3://h/db \
	    >out 2>err &&
	echo "ofl-capture: --store s3://h/db: s3:// stores are not supported ($store_is)" \
	    >expect &&
	test_cmp expect err &&
	test ! -s out &&
	rm out err expect &&
	nothing_made
'

test_expect_success 'ofl-capture -- CMD with a URL store: CMD does not run' '
	OFL_STORE=s3://h/db test_expect_code 2 \
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
