#!/bin/sh
#
# t9040-options: each binary's option table (its hidden --list-options)
# against what is said of it elsewhere: --help, the manual page's option
# list, and the bash, zsh and fish completions show every option of the
# table and no hidden alias; the manual and the bash list name nothing the
# table lacks; across the tools a letter means one option and a long
# option has one letter.  t9000 compares --help's synopsis, which is made
# from the same table, with the manual's SYNOPSIS and the README.

. "$(dirname "$0")/lib.sh"

SRC=$OFL_SRCDIR
BUILD=$OFL_BUILDDIR
BINS='ofl-capture ofl-extract ofl-gc ofl-index ofl-mcp ofl-schema ofl-search ofl-diff'

built() {
	[ -f "$BUILD/$1" ] && [ -x "$BUILD/$1" ]
}

# Rows of --list-options: letter, name, argument, its name, shown|hidden;
# "-" for none.
for b in $BINS; do
	built "$b" || continue
	test_expect_success "$b --list-options: a table, exit 0" '
		"$b" --list-options >"$TEST_DIR/$b.opts" 2>err &&
		test ! -s err &&
		test -s "$TEST_DIR/$b.opts" &&
		! awk -F "\t" "NF != 5 || (\$1 == \"-\" && \$2 == \"-\")" \
		    "$TEST_DIR/$b.opts" | grep . &&
		grep -q "^h	help	none	-	shown\$" "$TEST_DIR/$b.opts" &&
		grep -q "^V	version	none	-	shown\$" "$TEST_DIR/$b.opts"
	'
done

# shown FILE / hidden FILE: the rows of a table shown or hidden.
shown() {
	awk -F "\t" '$5 == "shown"' "$1"
}
hidden() {
	awk -F "\t" '$5 == "hidden"' "$1"
}

for b in $BINS; do
	built "$b" || continue
	cmd=${b#ofl-}
	opts="$TEST_DIR/$b.opts"
	page="$SRC/man/$b.1"

	test_expect_success "$b --help: a line for each option, none hidden" '
		"$b" --help >help &&
		shown "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ] && [ "$n" != - ]; then
				pat="^  -$l, --$n( |\[|=|\$)"
			elif [ "$l" != - ]; then
				pat="^  -$l( |\$)"
			else
				pat="^      --$n( |\[|=|\$)"
			fi
			grep -q -E -e "$pat" help || echo "--help lacks $l $n"
		done >missing &&
		hidden "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ]; then
				! grep -q -E -e "^  -$l[, ]" help ||
				    echo "--help shows hidden -$l"
			fi
			if [ "$n" != - ]; then
				! grep -q -E -e "^ .*--$n([^a-z0-9-]|\$)" help ||
				    echo "--help shows hidden --$n"
			fi
		done >>missing &&
		test_cmp /dev/null missing
	'

	test_expect_success "$b: the manual names each option, as the table pairs them" '
		grep -E "^\.(It )?Fl" "$page" | sed "s/\\\\-/-/g" |
		    sed "s/^\.Fl/.It Fl/" >items &&
		shown "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ] && [ "$n" != - ]; then
				pat="^\.It Fl $l( .*)? Fl -$n([^a-z0-9-]|\$)"
			elif [ "$l" != - ]; then
				pat="^\.It Fl $l( |\$)"
			else
				pat="^\.It Fl -$n([^a-z0-9-]|\$)"
			fi
			grep -q -E -e "$pat" items || echo "$b.1 lacks $l $n"
		done >missing &&
		test_cmp /dev/null missing
	'

	test_expect_success "$b: the manual lists no option the table lacks" '
		grep "^\.It Fl" "$page" | sed "s/\\\\-/-/g" >items &&
		sed -n "s/^\.It Fl \([A-Za-z0-9]\)\( .*\)*\$/\1/p" items |
		    while read -r l; do
			shown "$opts" | cut -f 1 | grep -qxF -e "$l" ||
			    echo "$b.1 lists -$l"
		done >extra &&
		grep -o -E "Fl -[a-z][a-z0-9-]*" items | sed "s/^Fl --*//" |
		    sort -u | while read -r n; do
			shown "$opts" | cut -f 2 | grep -qxF -e "$n" ||
			    echo "$b.1 lists --$n"
		done >>extra &&
		test_cmp /dev/null extra
	'

	test_expect_success "$b: the manual SYNOPSIS names no hidden alias" '
		sed -n "/^\.Sh SYNOPSIS/,/^\.Sh/p" "$page" |
		    sed "s/\\\\-/-/g" >syn &&
		hidden "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ] &&
			    grep -q -E -e "Fl [a-zA-Z0-9]*$l[a-zA-Z0-9]*( |\$)" syn; then
				echo "SYNOPSIS shows -$l"
			fi
			if [ "$n" != - ] && grep -q -e "Fl -$n" syn; then
				echo "SYNOPSIS shows --$n"
			fi
		done >extra &&
		test_cmp /dev/null extra
	'

	test_expect_success bash "$b: ofl.bash lists the table, arguments and all" '
		bash -c ". \"\$1\"; v=_ofl_opts_\$2; printf \"%s\\n\" \${!v}" \
		    _ "$SRC/completions/ofl.bash" "$cmd" | grep -vx -e "--" |
		    sort >listed &&
		shown "$opts" | while IFS="	" read -r l n a an s; do
			case $a in
			none|optional) eq= ;;
			*) case $an in *" "*) eq="==" ;; *) eq="=" ;; esac ;;
			esac
			[ "$l" = - ] || echo "-$l$eq"
			[ "$n" = - ] || echo "--$n$eq"
		done | sort >expect &&
		test_cmp expect listed
	'

	test_expect_success "$b: _ofl completes each letter with its option" '
		sed -n "/^_ofl_$cmd() {/,/^}/p" "$SRC/completions/_ofl" >zsh &&
		test -s zsh &&
		shown "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ] && [ "$n" != - ]; then
				grep -q -E -e "\{-$l\+?,--$n=?\}" zsh ||
				    echo "_ofl lacks -$l, --$n"
			elif [ "$n" != - ]; then
				grep -q -E -e "[{'\'')*]--$n([=[-]|\$)" zsh ||
				    echo "_ofl lacks --$n"
			fi
		done >missing &&
		hidden "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ]; then
				! grep -q -E -e "[{ ]-$l[+,} ]" zsh ||
				    echo "_ofl offers hidden -$l"
			fi
			if [ "$n" != - ]; then
				! grep -q -E -e "--$n([=[,}]|\$)" zsh ||
				    echo "_ofl offers hidden --$n"
			fi
		done >>missing &&
		test_cmp /dev/null missing
	'

	test_expect_success "$b: ofl.fish completes each letter with its option" '
		grep "^__ofl_complete $cmd " "$SRC/completions/ofl.fish" >fish &&
		shown "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ] && [ "$n" != - ]; then
				grep -q -E -e " -s $l -l $n( |\$)" fish ||
				    echo "ofl.fish lacks -$l, --$n"
			elif [ "$n" != - ]; then
				grep " -l $n\( \|\$\)" fish | grep -q -v " -s " ||
				    echo "ofl.fish lacks --$n alone"
			fi
		done >missing &&
		hidden "$opts" | while IFS="	" read -r l n a an s; do
			if [ "$l" != - ]; then
				! grep -q -e " -s $l " fish ||
				    echo "ofl.fish offers hidden -$l"
			fi
			if [ "$n" != - ]; then
				! grep -q -E -e " -l $n( |\$)" fish ||
				    echo "ofl.fish offers hidden --$n"
			fi
		done >>missing &&
		test_cmp /dev/null missing
	'
done

# One meaning per letter, one letter per option, across the tools.  Two
# letters keep a second meaning that output and tests hold to: the "more:"
# line of ofl-search writes "-n 10" for ten more hits, while the omission
# marks and next: lines write "ofl-extract ID -n A-B" for lines; -l is
# --lenient in ofl-schema (its usage is tested as "[-cJjl]").  -c is jq's
# compact output in ofl-extract and the same in ofl-schema.
exceptions='c compact compact-output
l label lenient
n limit lines'

test_expect_success 'a letter means one option in every tool' '
	cat "$TEST_DIR"/ofl-*.opts >all &&
	shown all | awk -F "\t" "\$1 != \"-\" && \$2 != \"-\" {
		print \$1, \$2 }" | sort -u >pairs &&
	cut -d " " -f 1 pairs | sort | uniq -d >twice &&
	while read -r l; do
		got=$(grep "^$l " pairs | cut -d " " -f 2 | sort | tr "\n" " " |
		    sed "s/ \$//")
		printf "%s\n" "$exceptions" | grep -qxF -e "$l $got" ||
		    echo "-$l means $got"
	done <twice >bad &&
	test_cmp /dev/null bad
'

test_expect_success 'a long option has the same letter in every tool' '
	cat "$TEST_DIR"/ofl-*.opts >all &&
	shown all | awk -F "\t" "\$1 != \"-\" && \$2 != \"-\" {
		print \$2, \$1 }" | sort -u >pairs &&
	cut -d " " -f 1 pairs | sort | uniq -d >twice &&
	sed "s/^/--/" twice >bad &&
	test_cmp /dev/null bad
'

test_expect_success 'the output budget has one name, --max-bytes (-m)' '
	cat "$TEST_DIR"/ofl-*.opts >all &&
	! shown all | cut -f 2 | grep -x -e budget &&
	shown all | awk -F "\t" "\$2 == \"max-bytes\"" | cut -f 1 |
	    sort -u >letters &&
	echo m >expect &&
	test_cmp expect letters
'

test_done
