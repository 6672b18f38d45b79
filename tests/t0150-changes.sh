#!/bin/sh
# t0150-changes: ofl-capture --changes leads the notice of a rerun (the
# same command in the same directory) with what changed since the last
# run: a test suite's one new failure first.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# One write of the whole report (awk's buffer): a loop of echo on a busy
# machine pauses, and ofl-capture passes a slow command's output through.
cat >suite.sh <<'EOT'
#!/bin/sh
b=0
[ -f broken ] && b=1
awk -v b=$b 'BEGIN {
	for (i = 1; i <= 400; i++)
		print "ok " i " - case number " i " of the suite, with a long description"
	print (b ? "not ok" : "ok") " 401 - parses dates"
	print "1..401"
}'
EOT
chmod +x suite.sh

test_expect_success 'the first run: no changes line' '
	ofl-capture --changes -- ./suite.sh >first &&
	head -n 1 first | grep "^ofl:[0-9a-z]* text " &&
	! grep "^changes since" first
'

test_expect_success 'a rerun with one new failure leads with that failure' '
	touch broken &&
	ofl-capture --changes -- ./suite.sh >second &&
	prev=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" first) &&
	sed -n 2,4p second >actual &&
	cat >expect <<-EOT &&
	changes since ofl:$prev (the last run of this command here):
	tests: 1 newly failing, 0 still failing, 0 newly passing
	  new failure: not ok - parses dates  (line 401)
	EOT
	test_cmp expect actual
'

test_expect_success 'the same output again: none' '
	ofl-capture --changes -- ./suite.sh >third &&
	prev=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" second) &&
	sed -n 2p third >actual &&
	echo "changes since ofl:$prev (the last run of this command here): none" >expect &&
	test_cmp expect actual
'

test_expect_success 'OFL_CHANGES=1 does the same; another directory has no run before' '
	OFL_CHANGES=1 ofl-capture -- ./suite.sh >fourth &&
	grep "^changes since ofl:" fourth &&
	mkdir other && cp suite.sh other/ &&
	(cd other && ofl-capture --changes -- ./suite.sh) >fifth &&
	! grep "^changes since" fifth
'

test_expect_success 'without --changes, no changes line' '
	ofl-capture -- ./suite.sh >plain &&
	! grep "^changes since" plain
'

test_expect_success '--json: the notice in the object leads with the changes' '
	ofl-capture --changes -j -- ./suite.sh >j &&
	grep -F "lines  \$ ./suite.sh  exit 0" j | grep -F "ms\\nchanges since ofl:"
'

test_done
