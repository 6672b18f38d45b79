#!/bin/sh
#
# t9000-docs: the manual pages, the completions and the ofl dispatcher
# agree with what the binaries say about themselves.  Each check runs for
# the binaries that have been built, so the test grows with the build.

. "$(dirname "$0")/lib.sh"

# The manuals, --help and the completions do not change under the
# sanitizers: the gate runs this once, in the plain make check (and in
# make distcheck, from the tarball's read-only tree).
test_once

SRC=$OFL_SRCDIR
BUILD=$OFL_BUILDDIR
BINS='ofl-capture ofl-extract ofl-gc ofl-index ofl-mcp ofl-schema ofl-search ofl-diff'

built() {
	[ -f "$BUILD/$1" ] && [ -x "$BUILD/$1" ]
}

# long_opts FILE: the long options named in FILE, one per line.
long_opts() {
	grep -o -e '--[a-z][a-z0-9-]*' "$1" | sed 's/-*$//' | sort -u
}

# missing_in WHAT FILE PATTERN-PREFIX OPTS: print "WHAT: --opt" for each
# option in the file OPTS that FILE lacks as PREFIX+name, whole.
missing_in() {
	while read -r o; do
		n=${o#--}
		grep -q -E -e "$3$n([^a-z0-9-]|\$)" "$2" ||
		    echo "$1 lacks $o"
	done <"$4"
}

# man_missing PAGE OPTS: print "PAGE lacks --opt" for each option in the
# file OPTS that PAGE does not show as a flag: "Fl -opt" or "Fl \-opt", or
# further along a line of Fl arguments (".Fl \-check | \-repair").
man_missing() {
	while read -r o; do
		n=${o#--}
		grep -q -E -e "^\..*Fl( .*)? \\\\?-$n([^a-z0-9-]|\$)" "$1" ||
		    echo "${1##*/} lacks $o"
	done <"$2"
}

# usage_line BIN: the usage from BIN --help on one line, less "usage:".
usage_line() {
	"$1" --help | awk '
		/^usage:/ { on = 1; sub(/^usage:/, ""); print; next }
		on && /^[ \t]/ { print; next }
		on { exit }' | tr '\t\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//'
}

# man_synopsis PAGE: the SYNOPSIS of a page, rendered, on one line.
man_synopsis() {
	mandoc -Tascii -O width=1000 "$1" | col -b | awk '
		/^SYNOPSIS/ { on = 1; next }
		on && /^[^ \t]/ { exit }
		on { print }' | tr '\t\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//'
}

# bash_complete WORD...: what completions/ofl.bash offers for the line
# WORD... (the last word is the one being completed), one per line.
bash_complete() {
	bash -c '
		. "$1/completions/ofl.bash" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(( $# - 1 ))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed "s/.* -F \([^ ]*\) .*/\1/")
		"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC" "$@"
}

# The manual pages.

for page in "$SRC"/man/*.[1-9]; do
	[ -f "$page" ] || continue
	name=${page##*/}
	test_expect_success mandoc "$name: mandoc -Tlint finds no warning" '
		mandoc -Tlint -W warning "$page" >lint 2>&1
		! grep -E "WARNING|ERROR|UNSUPP|BADARG" lint
	'
done

for b in $BINS; do
	built "$b" || continue
	cmd=${b#ofl-}
	test_expect_success "$b --help: exit 0, usage on stdout" '
		"$b" --help >help 2>err &&
		test ! -s err &&
		grep -q "^usage: $b " help &&
		long_opts help >opts &&
		test -s opts
	'
	test_expect_success "$b: a manual page documents every long option" '
		"$b" --help >help &&
		long_opts help >opts &&
		{ test -f "$SRC/man/$b.1" || ! echo "man/$b.1 is missing"; } &&
		man_missing "$SRC/man/$b.1" opts >missing &&
		test_cmp /dev/null missing
	'
	test_expect_success mandoc,col "$b: man SYNOPSIS is the --help usage" '
		{ test -f "$SRC/man/$b.1" || ! echo "man/$b.1 is missing"; } &&
		usage_line "$b" >expect &&
		man_synopsis "$SRC/man/$b.1" >actual &&
		test -s expect &&
		test_cmp expect actual
	'
	test_expect_success bash "$b: ofl.bash lists every long option" '
		"$b" --help >help &&
		long_opts help >opts &&
		bash -c ". \"\$1\"; v=_ofl_opts_\$2; printf \"%s\\n\" \${!v}" \
		    _ "$SRC/completions/ofl.bash" "$cmd" |
		    sed "s/=*\$//" >listed &&
		while read -r o; do
			grep -qxF -e "$o" listed || echo "ofl.bash lacks $o"
		done <opts >missing &&
		test_cmp /dev/null missing
	'
	test_expect_success "$b: _ofl lists every long option" '
		"$b" --help >help &&
		long_opts help >opts &&
		sed -n "/^_ofl_$cmd() {/,/^}/p" "$SRC/completions/_ofl" >zsh &&
		test -s zsh &&
		missing_in _ofl zsh "--" opts >missing &&
		test_cmp /dev/null missing
	'
	test_expect_success "$b: ofl.fish lists every long option" '
		"$b" --help >help &&
		long_opts help >opts &&
		grep "^__ofl_complete $cmd " "$SRC/completions/ofl.fish" >fish &&
		missing_in ofl.fish fish "-l " opts >missing &&
		test_cmp /dev/null missing
	'
	test_expect_success "ofl $cmd --help is $b --help" '
		"$b" --help >expect &&
		ofl "$cmd" --help >actual &&
		test_cmp expect actual
	'
	test_expect_success "ofl help lists $cmd" '
		ofl help >out &&
		grep -q "^   $cmd  *[a-z]" out
	'
	test_expect_success "ofl help $cmd without man(1) prints --help" '
		"$b" --help >expect &&
		PATH="$BUILD:$SRC/bin" ofl help "$cmd" >actual &&
		test_cmp expect actual
	'
done

# The dispatcher.

test_expect_success 'ofl with no arguments: usage on stderr, exit 2' '
	test_expect_code 2 ofl >out 2>err &&
	test ! -s out &&
	grep -q "^usage: ofl " err
'

test_expect_success 'ofl foo: not a command, exit 2' '
	echo "ofl: '\''foo'\'' is not an ofl command; see '\''ofl help'\''" \
	    >expect &&
	test_expect_code 2 ofl foo >out 2>err &&
	test ! -s out &&
	test_cmp expect err
'

test_expect_success 'ofl does not run paths or options as commands' '
	test_expect_code 2 ofl ../bin/ofl-capture 2>err &&
	grep -q "is not an ofl command" err &&
	test_expect_code 2 ofl "capture x" 2>err &&
	grep -q "is not an ofl command" err &&
	test_expect_code 2 ofl --bogus 2>err &&
	grep -q "^usage: ofl " err
'

test_expect_success 'ofl help and ofl --help list commands on stdout' '
	ofl help >out 2>err &&
	test ! -s err &&
	grep -q "^usage: ofl " out &&
	grep -q "^commands:" out &&
	ofl --help >out2 &&
	test_cmp out out2
'

test_expect_success 'ofl runs ofl-CMD from its own directory first' '
	mkdir -p d1 d2 &&
	cp "$SRC/bin/ofl" d1/ofl &&
	chmod +x d1/ofl &&
	printf "#!/bin/sh\nprintf \"<%%s>\" \"\$@\"; echo; exit 7\n" \
	    >d1/ofl-fake &&
	printf "#!/bin/sh\necho wrong one\n" >d2/ofl-fake &&
	chmod +x d1/ofl-fake d2/ofl-fake &&
	printf "<a b><><*><-->\n" >expect &&
	test_expect_code 7 env PATH="$PWD/d2:$PATH" d1/ofl fake \
	    "a b" "" "*" -- >actual &&
	test_cmp expect actual &&
	printf "wrong one\n" >expect &&
	PATH="$PWD/d2:$PATH" ofl fake >actual &&
	test_cmp expect actual
'

if built ofl-capture; then
	version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
	    "$BUILD/config.h")
else
	version=
fi

test_expect_success ofl-capture 'ofl --version prints the package version' '
	test -n "$version" &&
	echo "ofl $version" >expect &&
	ofl --version >actual &&
	test_cmp expect actual &&
	ofl -V >actual &&
	test_cmp expect actual
'

test_expect_success ofl-capture 'ofl capture passes arguments and status' '
	printf "[a b][][*]" >expect &&
	test_expect_code 5 ofl capture -- sh -c \
	    "printf \"[%s]\" \"\$@\"; exit 5" sh "a b" "" "*" >actual &&
	test_cmp expect actual
'

# The completions.

test_expect_success bash 'ofl.bash: bash -n' '
	bash -n "$SRC/completions/ofl.bash"
'
test_expect_success zsh '_ofl: zsh -n' '
	zsh -n "$SRC/completions/_ofl"
'
test_expect_success fish 'ofl.fish: fish -n' '
	fish -n "$SRC/completions/ofl.fish"
'

test_expect_success bash 'bash completes options, arguments and commands' '
	printf "%s\n" --threshold >expect &&
	bash_complete ofl-capture --thr >actual &&
	test_cmp expect actual &&
	bash_complete ofl capture --thr >actual &&
	test_cmp expect actual &&
	printf "%s\n" ndjson >expect &&
	bash_complete ofl-search -k nd >actual &&
	test_cmp expect actual &&
	bash_complete ofl-search --kind=nd >actual &&
	test_cmp expect actual &&
	mkdir -p somedir &&
	printf "%s\n" somedir >expect &&
	bash_complete ofl-capture -s somed >actual &&
	test_cmp expect actual &&
	printf "%s\n" help >expect &&
	bash_complete ofl hel >actual &&
	test_cmp expect actual
'

test_expect_success fish 'fish completes options and arguments' '
	printf "%s\n" --threshold >expect &&
	fish -c "source \"\$argv[1]\"; complete -C \"ofl-capture --thr\"" \
	    "$SRC/completions/ofl.fish" | cut -f 1 >actual &&
	test_cmp expect actual &&
	fish -c "source \"\$argv[1]\"; complete -C \"ofl capture --thr\"" \
	    "$SRC/completions/ofl.fish" | cut -f 1 >actual &&
	test_cmp expect actual &&
	printf "%s\n" ndjson >expect &&
	fish -c "source \"\$argv[1]\"; complete -C \"ofl-search -k nd\"" \
	    "$SRC/completions/ofl.fish" | cut -f 1 >actual &&
	test_cmp expect actual
'

# IDs come from ofl-search -q -n 20; the prerequisite names a binary
# that is not built yet, if any.
need=sh
# The scripts in bin/: a page each, with every long option.
for b in ofl-sh ofl-claude-hook ofl-setup ofl-hook; do
	test_expect_success "$b: a manual page documents every long option" '
		sh "$SRC/bin/$b" --help >help &&
		long_opts help >opts &&
		{ test -f "$SRC/man/$b.1" || ! echo "man/$b.1 is missing"; } &&
		man_missing "$SRC/man/$b.1" opts >missing &&
		test_cmp /dev/null missing
	'
done

# ofl-sh in the three completion files, with every long option.
test_expect_success bash 'ofl-sh: ofl.bash lists every long option' '
	sh "$SRC/bin/ofl-sh" --help >help &&
	long_opts help >opts &&
	bash -c ". \"\$1\"; printf \"%s\\n\" \$_ofl_opts_sh" \
	    _ "$SRC/completions/ofl.bash" | sed "s/=*\$//" >listed &&
	while read -r o; do
		grep -qxF -e "$o" listed || echo "ofl.bash lacks $o"
	done <opts >missing &&
	test_cmp /dev/null missing
'
test_expect_success 'ofl-sh: _ofl lists every long option' '
	sh "$SRC/bin/ofl-sh" --help >help &&
	long_opts help >opts &&
	sed -n "/^_ofl_sh() {/,/^}/p" "$SRC/completions/_ofl" >zsh &&
	test -s zsh &&
	head -n 1 "$SRC/completions/_ofl" | grep -q " ofl-sh\( \|\$\)" &&
	missing_in _ofl zsh "--" opts >missing &&
	test_cmp /dev/null missing
'
test_expect_success 'ofl-sh: ofl.fish lists every long option' '
	sh "$SRC/bin/ofl-sh" --help >help &&
	long_opts help >opts &&
	grep "^__ofl_complete sh " "$SRC/completions/ofl.fish" >fish &&
	missing_in ofl.fish fish "-l " opts >missing &&
	test_cmp /dev/null missing
'
test_expect_success bash 'bash completes ofl-sh: options, then a command' '
	printf "%s\n" --help >expect &&
	bash_complete ofl-sh --he >actual &&
	test_cmp expect actual &&
	mkdir -p cmds &&
	printf "#!/bin/sh\n" >cmds/oflzzcmd && chmod +x cmds/oflzzcmd &&
	echo oflzzcmd >expect &&
	PATH="$PWD/cmds:$PATH" bash_complete ofl-sh -c oflzz >actual &&
	test_cmp expect actual
'
test_expect_success fish 'fish completes ofl-sh options' '
	printf "%s\n" --version >expect &&
	fish -c "source \"\$argv[1]\"; complete -C \"ofl-sh --vers\"" \
	    "$SRC/completions/ofl.fish" | cut -f 1 >actual &&
	test_cmp expect actual
'

built ofl-search || need=ofl-search
built ofl-capture || need=ofl-capture

test_expect_success "$need" 'the completions offer recent IDs' '
	id=$(echo hello | ofl-capture -q -T 0 | sed -n "s/^ofl:\([0-9a-z]*\)\$/\1/p") &&
	test -n "$id" &&
	ofl-search -q -n 20 </dev/null >ids &&
	grep -qxF "$id" ids &&
	prefix=$(printf "%s" "$id" | cut -c 1-6) &&
	echo "$id" >expect &&
	bash_complete ofl-extract "$prefix" >actual &&
	test_cmp expect actual &&
	bash_complete ofl extract "$prefix" >actual &&
	test_cmp expect actual &&
	bash_complete ofl-schema -s "$OFL_STORE" "$prefix" >actual &&
	test_cmp expect actual &&
	if test_have_prereq fish; then
		fish -c "source \"\$argv[1]\"; complete -C \"ofl-extract $prefix\"" \
		    "$SRC/completions/ofl.fish" | cut -f 1 >actual &&
		test_cmp expect actual
	fi
'

# The README shows only options that exist.

# readme_opts BIN: the long options used on the README's BIN command
# lines, up to a quoted argument, a "--" or a comment.
readme_opts() {
	grep -E "^ *(\\$ )?$1( |\$)" "$SRC/README.md" |
	    sed -e "s/['\"].*//" -e 's/ -- .*//' -e 's/ #.*//' >readme-lines
	long_opts readme-lines
}

# readme_synopsis BIN: the synopsis of BIN in the README, on one line.
readme_synopsis() {
	awk -v bin="$1" '
		index($0, bin " [") == 1 { on = 1; print; next }
		on && /^[ \t]/ { print; next }
		on { exit }' "$SRC/README.md" |
	    tr '\t\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//'
}

for b in $BINS; do
	built "$b" || continue
	test_expect_success "README.md: $b synopsis is the --help usage" '
		usage_line "$b" >expect &&
		readme_synopsis "$b" >actual &&
		test_cmp expect actual
	'
	test_expect_success "README.md: $b examples use real options" '
		"$b" --help >help &&
		long_opts help >opts &&
		readme_opts "$b" >used &&
		while read -r o; do
			grep -qxF -e "$o" opts || echo "README uses $b $o"
		done <used >missing &&
		test_cmp /dev/null missing
	'
done

# tests/data/README.md: each row names a file that is there, and a license
# text that is there; files copied from the corpus have a row; the loghub
# logs (research use only) are not in the repository.

test_expect_success 'tests/data/README.md rows name files and licenses' '
	sed -n "s/^| *\([^ |][^|]*[^ |]\) *|.*| *\([^|]*\) |\$/\1|\2/p" \
	    "$SRC/tests/data/README.md" | sed 1d >rows &&
	while IFS="|" read -r f lic; do
		test -f "$SRC/tests/data/$f" || echo "no file $f"
		for l in $(printf "%s\n" "$lic" | grep -o "LICENSES/[^ ,)]*"); do
			test -f "$SRC/tests/data/$l" || echo "no license $l for $f"
		done
		printf "%s\n" "$lic" | grep -q "LICENSES/" ||
		    echo "no license file named for $f"
	done <rows >missing &&
	test_cmp /dev/null missing
'

test_expect_success 'no loghub data in tests/data' '
	(cd "$SRC/tests/data" && find . -name "*_2k.log*") >found &&
	test_cmp /dev/null found
'

test_expect_success CORPUS 'data copied from the corpus has a row' '
	(cd "$CORPUS" && find . -type f ! -path "./LICENSES/*" ! -name README.md) |
	    sed "s|^\./||" >corpus-files &&
	while read -r f; do
		test -f "$SRC/tests/data/$f" || continue
		grep -q "^| *$f *|" "$SRC/tests/data/README.md" ||
		    echo "no row for $f"
	done <corpus-files >missing &&
	test_cmp /dev/null missing
'

# The example notice in the README is what ofl-capture prints, but for
# the ID.  If this fails after a change to the notice, paste the new one.
example=tests/data/json/dependabot-github-commits.json

test_expect_success ofl-capture 'README.md: the example notice is real' '
	sed -n "/^\$ ofl-capture < ${example%%/*}\/.*json\$/,/^\`\`\`\$/p" \
	    "$SRC/README.md" | sed "1d;\$d" >readme &&
	test -s readme &&
	old=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" readme) &&
	(cd "$SRC" && ofl-capture <"$example") >out &&
	new=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" out) &&
	test -n "$old" && test -n "$new" &&
	sed "s/$old/$new/g" readme >expect &&
	test_cmp expect out
'

# So is the search that follows it, on the same artifact.
test_expect_success ofl-search 'README.md: the example search is real' '
	sed -n "/^\$ ofl-search [0-9a-z]* sinatra -n 2\$/,/^\`\`\`\$/p" \
	    "$SRC/README.md" | sed "1d;\$d" >readme &&
	test -s readme &&
	old=$(sed -n "1s/^ofl:\([0-9a-z]*\):.*/\1/p" readme) &&
	new=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" out) &&
	test -n "$old" && test -n "$new" &&
	ofl-search "$new" sinatra -n 2 >got &&
	sed "s/$old/$new/g" readme >expect &&
	test_cmp expect got
'

test_done
