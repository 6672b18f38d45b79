#!/bin/sh
#
# t2008-lines: which lines of a hit ofl-search prints.  Of lines that
# hold the same terms, the shorter comes first (more of them fit), and a
# line that opens what answers ("# To install with pip:", a heading, a
# key ending in a colon) comes with the line below it.

. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a section whose answer is under a comment' '
	{
		printf "# Tool\n\n## Install\n\n"
		printf "If you installed it with pip, run the same install"
		printf " command again.\n\n"
		printf "Packages from pip are installed"
		i=0
		while [ $i -lt 20 ]; do
			printf " with many more words"
			i=$((i + 1))
		done
		printf " under the install prefix.\n\n"
		printf "\`\`\`\n# To install with pip:\n"
		printf "python -m pip install -U tool\n\`\`\`\n\nOther text.\n"
	} >pip.md &&
	ofl-capture -q -T 0 <pip.md | sed "s/^ofl://" >id &&
	ofl-index -q $(cat id)
'

test_expect_success 'the comment and the command under it, before a long line' '
	ofl-search "$(cat id)" "install with pip" -m 600 >out &&
	sed "s/$(cat id)/ID/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:3-14  Tool > Install  (0.0)
	  3: ## Install
	  5: If you installed it with pip, run the same install command again.
	  10: # To install with pip:
	  11: python -m pip install -U tool
	more: ofl-extract ID -n 3-14
	EOF
	test_cmp expect actual
'

test_done
