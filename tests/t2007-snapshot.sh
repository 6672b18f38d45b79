#!/bin/sh
# Browser snapshots: Playwright MCP's YAML accessibility tree (with and
# without its "### Page" wrapper) and Chrome DevTools MCP's uid= text
# are kind snapshot, chunked by element, mapped in the notice, and a
# search hit shows the element's line with its ref.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

SNAP="$DATA/snapshot/ofl-search.1.txt"
DEVTOOLS="$DATA/snapshot/devtools-form.txt"

test_expect_success 'a Playwright snapshot with its wrapper is a snapshot' '
	ofl-capture -T 10 <"$SNAP" >notice &&
	head -n 1 notice | grep "^ofl:[0-9a-z]* snapshot 28 kB 605 lines$" &&
	grep "^page: OFL-SEARCH(1) <http://127.0.0.1:8718/ofl-search.1.html>$" notice &&
	grep "^elements: 361; code 175, link 43, definition 35, term 35, " notice &&
	grep "^headings: # NAME | # SYNOPSIS | # DESCRIPTION | ## Searching | ## Listing | ## Options | # ENVIRONMENT | # EXIT STATUS | # EXAMPLES | # SEE ALSO$" notice &&
	grep "^forms: none$" notice &&
	! grep "^--- head" notice &&
	id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" notice) &&
	echo "$id" >id &&
	grep "^      ofl-extract $id --role link$" notice &&
	test $(wc -c <notice) -le 2048
'

test_expect_success 'without the wrapper it is still a snapshot' '
	sed -n "/^\`\`\`yaml/,/^\`\`\`\$/p" "$SNAP" | sed "1d;\$d" >bare &&
	head -n 1 bare | grep "^- generic \[active\] \[ref=e1\]:$" &&
	ofl-capture -T 10 <bare >notice2 &&
	head -n 1 notice2 | grep " snapshot 28 kB 598 lines$" &&
	! grep "^page:" notice2 &&
	grep "^elements: 361; " notice2
'

test_expect_success 'chunks are element subtrees titled by their path' '
	id=$(cat id) &&
	ofl-search "$id" -- "exit status of the command" >hits &&
	head -n 1 hits | grep "^ofl:$id:222-229  heading \"Listing\" \[ref=e99\] > generic \[ref=e104\]  (" &&
	grep "^  226- *- definition \[ref=e134\]:$" hits &&
	grep "^  227: *- text: the exit status of the command, ‘$" hits
'

# GLib's reference puts each function in a box ("generic [ref=...]")
# whose first child is its heading: the chunk of that box is the
# function's section, titled by its heading and the heading's ref, not by
# the last heading of the section before ("Returns").
test_expect_success 'a chunk whose box opens with a heading is titled by it, with its ref' '
	ofl-capture -q -T 0 <"$DATA/snapshot/glib-hash-tables.txt" >gh &&
	ofl-search "$(sed "s/^ofl://" gh)" -- "signed value of each byte" >hits &&
	head -n 1 hits | grep "^ofl:[0-9a-z]*:3812-3851  heading \"g_str_hash ()\" \[ref=f1e2669\]  (" &&
	grep "^  3828: *- text: \. This function uses the signed value of each byte\.$" hits
'

test_expect_success 'a heading named by the words asked comes before a paragraph that holds them' '
	ofl-capture -q -T 10 <"$DATA/snapshot/sqlite-lang_select.txt" >sq &&
	ofl-search "$(sed "s/^ofl://" sq)" -- "the LIMIT clause" >hits &&
	sed -n 2p hits | grep "^  607: *- heading \"5. The LIMIT clause\" \[level=1\] \[ref=f4e892\]$" &&
	! grep "^  628:" hits
'

test_expect_success 'the code inside a link comes with the link and its ref' '
	ofl-capture -q -T 10 <"$DATA/snapshot/ofl-extract.1.txt" >ex &&
	ofl-search "$(sed "s/^ofl://" ex)" -- "--errors option" >hits &&
	grep "^  219- *- link \[ref=e121\] \[cursor=pointer\]:$" hits &&
	grep "^  221: *- code \[ref=e122\]: \"--errors\"$" hits &&
	ofl-search -j "$(sed "s/^ofl://" ex)" -- "--errors option" >hits.json &&
	grep -F "\"snippet\":\"            - link [ref=e121] [cursor=pointer]:\\n" hits.json
'

test_expect_success 'a hit in a child line shows the element that holds it' '
	id=$(cat id) &&
	ofl-search "$id" -- NO_COLOR >hits &&
	head -n 1 hits | grep "^ofl:$id:552-561  " &&
	grep "^  553- *- link \[ref=e326\] \[cursor=pointer\]:$" hits &&
	grep "^  554: *- /url: \"#NO_COLOR\"$" hits
'

# The heading matches "next topic"; what to click is the link under it.
test_expect_success 'a heading that answers comes with the link under it' '
	{
		echo "- generic [ref=e1]:"
		echo "  - navigation \"main navigation\" [ref=e2]:"
		echo "    - heading \"Previous topic\" [level=4] [ref=e3]"
		echo "    - paragraph [ref=e4]:"
		echo "      - link \"4. An Informal Introduction\" [ref=e5] [cursor=pointer]:"
		echo "        - /url: introduction.html"
		echo "    - heading \"Next topic\" [level=4] [ref=e6]"
		echo "    - paragraph [ref=e7]:"
		echo "      - link \"5. Data Structures\" [ref=e8] [cursor=pointer]:"
		echo "        - /url: datastructures.html"
		i=10
		while [ $i -lt 60 ]; do
			echo "    - listitem [ref=e$i]: item $i of the page"
			i=$((i + 1))
		done
	} >nav.txt &&
	ofl-capture -q -T 0 <nav.txt | sed "s/^ofl://" >id.nav &&
	ofl-search "$(cat id.nav)" "next topic" >out &&
	grep "^  7: .*heading \"Next topic\" \[level=4\] \[ref=e6\]" out &&
	grep "^  9- .*link \"5. Data Structures\" \[ref=e8\]" out
'

test_expect_success 'a heading named by the text under it is named so' '
	ofl-capture -T 0 -q <"$DATA/snapshot/node-child_process.txt" >nid &&
	ofl-search "$(sed s/^ofl:// nid)" -- "heading on shell requirements" >hits &&
	sed -n 2p hits | grep "^  3845: *- heading \[level=3\] \[ref=f3e2252\]:$"
'

test_expect_success 'a line that introduces a block comes with the block' '
	ofl-capture -T 0 -q <"$DATA/snapshot/follow.txt" >fid &&
	fid=$(sed s/^ofl:// fid) &&
	ofl-search "$fid" -- "command to compile the program" >hits &&
	grep "^  14: *- paragraph \[ref=e12\]: On a typical system" hits &&
	grep "^  15- *- generic \[ref=e13\]: cc sum.c -o sum -lsum$" hits &&
	ofl-search "$fid" -- "example running ls" >hits2 &&
	grep "^  31- *- code \[ref=e26\]:$" hits2 &&
	! grep "checkbox" hits2
'

test_expect_success 'a line with the words asked in their order comes first' '
	ofl-capture -T 0 -q <"$DATA/snapshot/zlib-how.txt" >zid &&
	ofl-search -m 600 "$(sed s/^ofl:// zid)" -- "code allocating deflate state with deflateInit" >hits &&
	sed -n 2p hits | grep "^  82: - generic \[ref=f5e39\]: /\* allocate deflate state \*/ " &&
	ofl-search --json "$(sed s/^ofl:// zid)" -- "code allocating deflate state with deflateInit" >j &&
	head -n 1 j | grep "\\n  - generic \[ref=f5e39\]: /\* allocate"
'

test_expect_success 'where a name is defined: the term, by its name' '
	ofl-capture -T 0 -q <"$DATA/snapshot/libffi-closure.txt" >lid &&
	ofl-search "$(sed s/^ofl:// lid)" -- "ffi_prep_closure_loc function" >hits &&
	grep "^  66: *- emphasis \[ref=f1e40\]: ffi_prep_closure_loc (ffi_closure \*closure" hits &&
	ofl-capture -T 0 -q <"$DATA/snapshot/nettle-manual.txt" >tid &&
	ofl-search "$(sed s/^ofl:// tid)" -- "constant time memory comparison function" >hits2 &&
	sed -n 1,5p hits2 | grep "^  9344- *- strong \[ref=f6e6634\]: memeql_sec$"
'

test_expect_success 'a heading and its signature come with what follows them' '
	ofl-capture -T 0 -q <"$DATA/snapshot/libxslt-xsltutils.txt" >xid &&
	ofl-search "$(sed s/^ofl:// xid)" -- "description of xslDropCall" >hits &&
	sed -n 2,4p hits >got &&
	grep "^  566: .*heading \"Function: xslDropCall\" \[level=3\] \[ref=f4e326\]" got &&
	grep "^  567: *- generic \[ref=f4e327\]: void xslDropCall (void)$" got &&
	grep "^  568- *- paragraph \[ref=f4e328\]: Drop the topmost item off the call stack$" got
'

test_expect_success 'a line cut to the budget keeps its ref; a cell leads to the next' '
	ofl-capture -T 0 -q <"$DATA/snapshot/libxslt-templates.txt" >xid &&
	ofl-search "$(sed s/^ofl:// xid)" -- "docs heading for xsltEvalStaticAttrValueTemplate" >hits &&
	grep "^  441: - .heading \"Function: xsltEvalStaticAttrValueTemplate\" \[level=3\] \[ref=f4e329\]" hits &&
	ofl-search "$(sed s/^ofl:// xid)" -- "meaning of the found parameter" >hits2 &&
	grep "^  479- *- cell \"indicator whether the attribute is present\" \[ref=f4e362\]$" hits2
'

test_expect_success 'Chrome DevTools text snapshot: the form by ref' '
	ofl-capture -T 10 <"$DEVTOOLS" >notice3 &&
	head -n 1 notice3 | grep " snapshot 930 B 20 lines$" &&
	grep "^page: Sign in - Example Tracker <http://127.0.0.1:8000/login.html>$" notice3 &&
	grep "^landmarks: banner \[ref=1_1\], navigation \"Main\" \[ref=1_3\], main \[ref=1_6\], form \"Sign in\" \[ref=1_8\], contentinfo \[ref=1_16\]$" notice3 &&
	grep "^form \"Sign in\" \[ref=1_8\]: textbox \"Username or email address\" \[ref=1_9\], textbox \"Password\" \[ref=1_10\], checkbox \"Keep me signed in\" \[ref=1_11\], button \"Sign in\" \[ref=1_12\]$" notice3 &&
	grep "^      ofl-extract [0-9a-z]* --role textbox$" notice3
'

test_expect_success 'a 616 kB snapshot: a notice under 2 kB with its forms by ref' '
	ofl-capture <"$DATA/snapshot/python-stdtypes.txt" >big &&
	head -n 1 big | grep " snapshot 616 kB 11,481 lines$" &&
	test $(wc -c <big) -le 2048 &&
	grep "^search \[ref=e23\]: textbox \"Quick search\" \[ref=e25\], button \"Go\" \[ref=e26\]$" big &&
	grep "^landmarks: navigation \"related navigation\" \[ref=e2\], search \[ref=e23\], main \[ref=e30\], " big &&
	grep "^headings: # Built-in Types | ## Truth Value Testing | " big
'

test_expect_success 'a Markdown list with brackets stays Markdown' '
	printf "# Notes\n\n- see [ref=a1] and [ref=a2]\n- [link](x)\n- item\n" >md &&
	ofl-capture -T 1 <md | head -n 1 | grep " markdown "
'

test_expect_success 'ofl-extract --role: one element a line, ref and path' '
	id=$(cat id) &&
	ofl-extract "$id" --role heading >roles &&
	test $(wc -l <roles) -eq 10 &&
	printf "16\t- heading [level=1] [ref=e10]:  # NAME\tgeneric [ref=e9]\n" >want &&
	head -n 1 roles >got &&
	test_cmp want got &&
	ofl-extract "$id" --role LINK --name SINCE >since &&
	printf "468\t- link [ref=e273] [cursor=pointer]:  # --since\theading \"Options\" [ref=e161] > term [ref=e272]\n" >want &&
	test_cmp want since
'

test_expect_success 'ofl-extract --role keeps to the budget and says what is left' '
	id=$(cat id) &&
	ofl-extract "$id" --role code -m 400 >codes &&
	test $(wc -c <codes) -le 500 &&
	tail -n 1 codes | grep "^\[\.\.\. 1[0-9][0-9] more elements not shown: ofl-extract $id --max-bytes 400 --role code --skip [0-9]*\]$" &&
	skip=$(tail -n 1 codes | sed "s/.*--skip \([0-9]*\)\]/\1/") &&
	ofl-extract "$id" --role code --skip "$skip" --limit 1 >next &&
	all=$(ofl-extract "$id" --role code -m 0 | sed -n "$((skip + 1))p") &&
	test "$(head -n 1 next)" = "$all" &&
	tail -n 1 next | grep "^\[\.\.\. 1[0-9][0-9] more elements not shown: ofl-extract $id --role code --skip $((skip + 1))\]$"
'

test_expect_success 'ofl-extract --role: nothing found is 1, another kind is 2' '
	id=$(cat id) &&
	test_expect_code 1 ofl-extract "$id" --role slider &&
	printf "a\nb\n" | ofl-capture -T 0 -q >tid &&
	test_expect_code 2 ofl-extract "$(cat tid)" --role button 2>err &&
	grep "need a browser snapshot or an HTML page; this artifact is text" err &&
	test_expect_code 2 ofl-extract "$id" --role button -n 1-5 &&
	test_expect_code 2 ofl-extract "$id" --role "" >out 2>err &&
	test ! -s out &&
	head -n 1 err >first &&
	echo "ofl-extract: --role: give a role (button, link, textbox, heading, row, ...)" \
	    >expect &&
	test_cmp expect first
'

# A name of 1,000 bytes was cut at 300 with its ref; one of 70,000 (a
# line past the line reader's 64 KiB) was left out unsaid.
test_expect_success 'ofl-extract --role: a long name is cut in its middle, a huge one listed' '
	{
		echo "- generic [ref=e1]:" &&
		echo "  - link \"first\" [ref=e2]" &&
		printf "  - link \"%s\" [ref=e3]\n" "$(printf "%01000d" 0 | tr 0 N)" &&
		printf "  - link \"%s\" [ref=e4] [cursor=pointer]\n" \
		    "$(printf "%070000d" 0 | tr 0 M)" &&
		echo "  - link \"last\" [ref=e5]"
	} >long.txt &&
	lid=$(ofl-capture -q -T 0 <long.txt) &&
	ofl-extract "$lid" --role link >links &&
	test $(wc -l <links) -eq 4 &&
	cut -f 1 links >nos && printf "2\n3\n4\n5\n" >want && test_cmp want nos &&
	sed -n 2p links >got &&
	grep -E "^3	- link \"N{142}\.\.\.N{134}\" \[ref=e3\]	generic \[ref=e1\]\$" got &&
	m289=$(printf "%0289d" 0 | tr 0 M) &&
	printf "4\t- link \"%s...\tgeneric [ref=e1]\n" "$m289" >want &&
	sed -n 3p links >got && test_cmp want got &&
	ofl-extract "$lid" --role link --name MMMM | cut -f 1 >got &&
	echo 4 >want && test_cmp want got &&
	printf "  - textbox \"%s\" [ref=e6]: %s\n" \
	    "$(printf "%0400d" 0 | tr 0 N)" "$(printf "%0200d" 0 | tr 0 V)" \
	    >>long.txt &&
	lid=$(ofl-capture -q -T 0 <long.txt) &&
	ofl-extract "$lid" --role textbox >got &&
	grep -E "^6	- textbox \"N{139}\.\.\.N{134}\" \[ref=e6\]\.\.\.	generic \[ref=e1\]\$" got
'

# The last line of a snapshot with no newline after it is no long line.
test_expect_success 'ofl-extract --role: the last line, with no newline' '
	printf "%s\n%s\n%s\n%s\n%s" "- generic [ref=e1]:" \
	    "  - heading \"Start\" [level=1] [ref=e2]" \
	    "  - link \"About\" [ref=e4]" "  - link [ref=e3]:" \
	    "    - text: Home" >nonl.txt &&
	nid=$(ofl-capture -q -T 0 <nonl.txt) &&
	ofl-extract "$nid" --role link --name Home >got &&
	printf "4\t- link [ref=e3]:  # Home\theading \"Start\" [ref=e2]\n" \
	    >want &&
	test_cmp want got &&
	test_expect_code 1 ofl-extract "$nid" --role text
'

# Earlier Playwright MCP wrote its lines with no "### Page" heading: they
# were counted as elements ("Page 3, Ran 1") and the page went unnamed.
test_expect_success 'the wrapper without its headings: the page named, its lines no elements' '
	printf "%s\n" "- Ran Playwright code:" "\`\`\`js" \
	    "await page.goto(\"https://e.com/\");" "\`\`\`" "" \
	    "- Page URL: https://e.com/" "- Page Title: Example page" \
	    "- Page Snapshot:" "\`\`\`yaml" "- generic [ref=e1]:" \
	    "  - link \"Home\" [ref=e2]" "  - button \"Go\" [ref=e3]" \
	    "\`\`\`" >old.txt &&
	ofl-capture -T 0 <old.txt >notice &&
	sed -n "2,3p" notice >got &&
	printf "%s\n" "page: Example page <https://e.com/>" \
	    "elements: 3; button 1, generic 1, link 1" >want &&
	test_cmp want got
'

test_expect_success 'the Chrome DevTools form by role' '
	ofl-capture -T 0 -q <"$DEVTOOLS" >did &&
	ofl-extract "$(cat did)" --role textbox >fields &&
	printf "12\tuid=1_9 textbox \"Username or email address\" focusable focused\tmain > heading \"Sign in\" [ref=1_7] > form \"Sign in\" [ref=1_8]\n13\tuid=1_10 textbox \"Password\" focusable\tmain > heading \"Sign in\" [ref=1_7] > form \"Sign in\" [ref=1_8]\n" >want &&
	test_cmp want fields
'

test_expect_success 'a question for the contents: the navigation link before the section' '
	echo "  - navigation [ref=e2]:" >toc &&
	echo "    - list [ref=e3]:" >>toc &&
	echo "  - main [ref=e4]:" >body &&
	i=0 &&
	for t in Installing Configuring "Retry limits" Logging; do
		i=$((i + 1)) &&
		echo "      - listitem [ref=n${i}a]:" >>toc &&
		echo "        - link \"$t\" [ref=n$i]:" >>toc &&
		echo "          - /url: \"#s$i\"" >>toc &&
		echo "    - heading \"$t\" [level=2] [ref=h$i]" >>body &&
		echo "    - generic [ref=g$i]:" >>body &&
		for k in $(seq 1 40); do
			echo "      - paragraph [ref=p${i}x$k]: Paragraph $k about $t: how the tool behaves, which settings matter, and what their defaults mean."
		done >>body || return 1
	done &&
	{
		echo "- generic [ref=e1]:" &&
		echo "  - navigation [ref=e0]:" &&
		for k in $(seq 1 30); do
			echo "    - link \"Project page $k\" [ref=x$k]:"
		done &&
		cat toc body
	} >nav.txt &&
	ofl-capture -T 0 -q <nav.txt >nid &&
	ofl-search "$(cat nid)" "contents entry for retry limits" >out &&
	sed -n 2p out | grep "link \"Retry limits\" \[ref=n3\]" &&
	ofl-search "$(cat nid)" "retry limits" >out2 &&
	sed -n 2p out2 | grep "heading \"Retry limits\" \[level=2\] \[ref=h3\]"
'

test_expect_success 'weak hits leave their share: the answer'"'"'s long line is shown' '
	ofl-capture -T 0 -q <"$DATA/snapshot/zlib-how.txt" >zid &&
	ofl-search "$(cat zid)" "code handling Z_NEED_DICT from inflate" >out &&
	cat out &&
	grep "^  162: - generic \[ref=f5e82\]: \"ret = inflate(&strm, Z_NO_FLUSH);" out &&
	test "$(grep -c "^ofl:" out)" = 1 &&
	grep "^more: ofl-search .* -n 10 -m 3000$" out
'

test_expect_success '--name matches the name, not its quoting' '
	printf -- "- main [ref=e1]:\n  - button \"Next \\\\\"page\\\\\"\" [ref=e4]\n  - button \"back\\\\\\\\slash\" [ref=e5]\n  - button \"Other\" [ref=e6]\n" >quoted.txt &&
	grep -F "button \"Next \\\"page\\\"\" [ref=e4]" quoted.txt &&
	id=$(ofl-capture -q -T 0 <quoted.txt) &&
	ofl-extract "$id" --role button --name "Next \"page\"" >out &&
	grep -c "ref=e4" out && ! grep "ref=e5" out &&
	ofl-extract "$id" --role button --name "back\\slash" >out &&
	grep "ref=e5" out && ! grep "ref=e4" out &&
	ofl-extract "$id" --role button --name "\\" >out &&
	grep "ref=e5" out && ! grep "ref=e4" out &&
	printf -- "- main [ref=e1]:\n  - textbox [ref=e2]: C:\\\\temp\\\\dir\n  - button \"Other\" [ref=e6]\n" >plain.txt &&
	grep -F "C:\\temp\\dir" plain.txt &&
	id=$(ofl-capture -q -T 0 <plain.txt) &&
	ofl-extract "$id" --role textbox --name "C:\\temp" >out &&
	grep "ref=e2" out &&
	test_expect_code 1 ofl-extract "$id" --role textbox --name "C:temp"
'

test_expect_success 'a button shown brings the field it goes with' '
	{
	printf -- "### Page\n- Page URL: http://127.0.0.1/api.html\n- Page Title: API\n### Snapshot\n\`\`\`yaml\n" &&
	printf -- "- table [ref=e1]:\n  - rowgroup [ref=e2]:\n    - row \"API Menu\" [ref=e3]:\n      - cell \"API Menu\" [ref=e4]\n" &&
	printf -- "    - row [ref=e5]:\n      - cell [ref=e6]:\n        - textbox [ref=e7]\n        - button \"Search ...\" [ref=e8]\n" &&
	i=10 && while [ $i -lt 60 ]; do
		printf -- "    - row [ref=e%d]:\n      - link \"Menu item %d\" [ref=e%d] [cursor=pointer]:\n        - /url: item%d.html\n" $i $i $((i + 100)) $i
		i=$((i + 1))
	done &&
	printf -- "\`\`\`\n"
	} >form.txt &&
	id=$(ofl-capture -q -T 0 <form.txt) &&
	ofl-search "$id" "the search box of the API menu" >out &&
	grep "button \"Search ...\" \[ref=e8\]" out &&
	grep "textbox \[ref=e7\]" out
'

test_expect_success 'a term asked for as typed, punctuation and all, comes first' '
	{
	printf -- "### Page\n- Page URL: http://127.0.0.1/bash.html\n- Page Title: Man page of BASH\n### Snapshot\n\`\`\`yaml\n" &&
	printf -- "- heading \"Parameter Expansion\" [level=4] [ref=e1]\n- generic [ref=e2]:\n" &&
	sed -n "1116,1131p" "$DATA/snapshot/bash-manual.txt" | sed "s/^  //" &&
	printf -- "\`\`\`\n"
	} >param.txt &&
	id=$(ofl-capture -q -T 0 <param.txt) &&
	ofl-search "$id" "what does \${parameter:-word}, do" -m 400 >out &&
	grep "term \[ref=f5e750\]: \"\${parameter:-word}\"" out &&
	grep "definition \[ref=f5e751\]: Use Default Values" out
'

# A page of filler sections around what each test below asks for, so
# that the answer is one hit among others.
filler() {
	i=$1
	while [ $i -lt $2 ]; do
		printf -- "- heading \"Section %d\" [level=2] [ref=e%d]\n- paragraph [ref=e%d]: Filler words about topic number %d of the manual.\n" \
		    $i $((i * 3 + 1000)) $((i * 3 + 1001)) $i
		i=$((i + 1))
	done
}
page() {
	printf -- "### Page\n- Page URL: http://127.0.0.1/doc.html\n- Page Title: Doc\n### Snapshot\n\`\`\`yaml\n" &&
	filler 0 40 &&
	cat &&
	filler 40 80 &&
	printf -- "\`\`\`\n"
}

test_expect_success 'a row header shown brings the value it names' '
	page >rows.txt <<-\EOT &&
	- table [ref=e1]:
	  - rowgroup [ref=e2]:
	    - row [ref=e3]:
	      - rowheader [ref=e4]:
	        - link "Syntax:" [ref=e5] [cursor=pointer]:
	          - /url: dict.html#Syntax
	      - cell [ref=e6]:
	        - code [ref=e7]: Widget on|off
	    - row [ref=e8]:
	      - rowheader [ref=e9]:
	        - link "Default:" [ref=e10] [cursor=pointer]:
	          - /url: dict.html#Default
	      - cell [ref=e11]:
	        - code [ref=e12]: Widget off
	    - row [ref=e13]:
	      - rowheader [ref=e14]:
	        - link "Context:" [ref=e15] [cursor=pointer]:
	          - /url: dict.html#Context
	      - cell [ref=e16]: server config
	EOT
	id=$(ofl-capture -q -T 0 <rows.txt) &&
	ofl-search "$id" "what is the default" >out &&
	grep "link \"Default:\" \[ref=e10\]" out &&
	grep "code \[ref=e12\]: Widget off" out
'

test_expect_success 'a term shown brings the other term of its entry above it' '
	page >terms.txt <<-\EOT &&
	- term [ref=e20]: "-x <cmd>"
	- term [ref=e21]: "--exec <cmd>"
	- definition [ref=e22]:
	  - paragraph [ref=e23]:
	    - text: Append a line that runs the command after each line creating a commit.
	EOT
	id=$(ofl-capture -q -T 0 <terms.txt) &&
	ofl-search "$id" "run a command after each commit" >out &&
	grep "term \[ref=e21\]: \"--exec <cmd>\"" out &&
	grep "term \[ref=e20\]: \"-x <cmd>\"" out
'

test_expect_success 'a text that runs on into a link brings the link' '
	page >license.txt <<-\EOT &&
	- paragraph [ref=e30]:
	  - generic [ref=e31]:
	    - text: Copyright the authors. Freely redistributable under the terms of the
	    - link "Zork license" [ref=e32] [cursor=pointer]:
	      - /url: http://example.org/license.html
	    - text: .
	EOT
	id=$(ofl-capture -q -T 0 <license.txt) &&
	ofl-search "$id" "terms under which it may be redistributed" >out &&
	grep "text: Copyright the authors" out &&
	grep "link \"Zork license\" \[ref=e32\]" out
'

test_expect_success 'the first words of a section bring its heading' '
	page >api.txt <<-\EOT &&
	- heading "frob_widget ()" [level=3] [ref=e40]
	- generic [ref=e41]:
	  - table [ref=e42]:
	    - row [ref=e43]:
	      - cell "int frob_widget" [ref=e44]
	      - cell "(" [ref=e45]
	      - cell "struct widget *w" [ref=e46]
	      - cell ")" [ref=e47]
	  - paragraph [ref=e48]: Turns the widget inside out and back again.
	  - paragraph [ref=e49]: Returns zero.
	EOT
	id=$(ofl-capture -q -T 0 <api.txt) &&
	ofl-search "$id" "turn a widget inside out" >out &&
	grep "paragraph \[ref=e48\]: Turns the widget inside out" out &&
	grep "heading \"frob_widget ()\" \[level=3\] \[ref=e40\]" out
'

test_expect_success 'a picture that names a link brings the link' '
	page >nav.txt <<-\EOT &&
	- table [ref=e60]:
	  - row [ref=e61]:
	    - cell [ref=e62]:
	      - link [ref=e63] [cursor=pointer]:
	        - /url: index.html
	        - img "Home" [ref=e64]
	    - cell [ref=e65]:
	      - link [ref=e66] [cursor=pointer]:
	        - /url: chapter.html
	        - img "Up" [ref=e67]
	EOT
	id=$(ofl-capture -q -T 0 <nav.txt) &&
	ofl-search "$id" "up one level" >out &&
	grep "img \"Up\" \[ref=e67\]" out &&
	grep "link \[ref=e66\]" out
'

test_expect_success 'three lines shown under one heading bring the heading' '
	page >styles.txt <<-\EOT &&
	- heading "Styles for Widgets" [level=2] [ref=e70]
	- paragraph [ref=e71]: The style attribute changes how a widget looks, with the values below.
	- generic [ref=e72]:
	  - term [ref=e73]: shaded
	  - definition [ref=e74]: The inside is painted with the fill colour.
	  - term [ref=e75]: dashed
	  - definition [ref=e76]: The border is drawn as a broken line.
	  - term [ref=e77]: heavy
	  - definition [ref=e78]: The border is drawn twice as thick.
	EOT
	id=$(ofl-capture -q -T 0 <styles.txt) &&
	ofl-search "$id" "widget values like shaded, dashed or heavy" >out &&
	grep "term \[ref=e73\]: shaded" out &&
	grep "term \[ref=e77\]: heavy" out &&
	grep "heading \"Styles for Widgets\" \[level=2\] \[ref=e70\]" out
'

test_expect_success 'a heading is named by its text, not by an anchor sign' '
	{
	printf -- "### Page\n- Page URL: http://127.0.0.1/doc.html\n- Page Title: Doc\n### Snapshot\n\`\`\`yaml\n" &&
	cat <<-\EOT &&
	- heading [level=2] [ref=e50]:
	  - link "◆" [ref=e51] [cursor=pointer]:
	    - /url: "#a1b2"
	  - text: FROB_MUSTLOCK
	- paragraph [ref=e52]: Evaluates to true when the frob must be locked.
	EOT
	filler 0 80 &&
	printf -- "\`\`\`\n"
	} >anchor.txt &&
	ofl-capture -T 0 <anchor.txt >notice &&
	grep "^headings: .*## FROB_MUSTLOCK" notice &&
	! grep "^headings: .*◆" notice
'

test_expect_success 'a line inside a block of prose brings the block' '
	page >prose.txt <<-\EOT &&
	- heading "Shapes" [level=2] [ref=e90]
	- definition [ref=e91]:
	  - text: The corners of the box are smoothed into quarter circles of the same radius.
	  - paragraph [ref=e92]: As an example of smoothing, see the gallery of samples.
	EOT
	id=$(ofl-capture -q -T 0 <prose.txt) &&
	ofl-search "$id" "example of smoothing in the gallery" >out &&
	grep "paragraph \[ref=e92\]: As an example" out &&
	grep "definition \[ref=e91\]" out
'

test_expect_success 'a hit low by BM25 and named by the question is shown' '
	id=$(ofl-capture -q -T 0 <"$DATA/snapshot/sdl2-surface.txt") &&
	ofl-search "$id" "read a bitmap file from disk into a surface" >out &&
	grep "Load a BMP image from a seekable SDL data stream" out &&
	grep "cell \"#define SDL_LoadBMP\" \[ref=f5e823\]" out
'

test_expect_success 'a weak hit is shown while what is printed is short' '
	id=$(ofl-capture -q -T 0 <"$DATA/snapshot/bzip2-manual.txt") &&
	ofl-search "$id" "bzip2recover to recover data from damaged files" >out &&
	grep "heading \"2.6. RECOVERING DATA FROM DAMAGED FILES\" \[level=2\] \[ref=f2e503\]" out &&
	grep "link \"2.6. RECOVERING DATA FROM DAMAGED FILES\" \[ref=f2e68\]" out
'

test_expect_success 'long lines are cut shorter in a snapshot: more of them fit' '
	id=$(ofl-capture -q -T 0 <"$DATA/snapshot/graphviz-shapes.txt") &&
	ofl-search "$id" "use my own picture or PostScript as a node shape" >out &&
	grep "heading \"User-defined Nodes\" \[level=2\] \[ref=f4e689\]" out
'

test_expect_success 'a TOC link: the table of contents, asked for by its short name' '
	id=$(ofl-capture -q -T 0 <"$DATA/snapshot/node-child_process.txt") &&
	ofl-search "$id" "TOC entry for fork" >out &&
	head -n 1 out | grep "^$id:[0-9-]*  navigation \[ref=f3e4\]  (" &&
	grep "^  259- *- link \[ref=f3e182\] \[cursor=pointer\]:\$" out &&
	grep "^  261: *- code \[ref=f3e183\]: child_process.fork(" out
'

test_expect_success 'a deep line with a long name: its ref is shown, the name cut' '
	{
		echo "- heading \"Page\" [level=1] [ref=e2]" &&
		k=0 && pad= &&
		while [ $k -lt 32 ]; do
			echo "$pad- generic [ref=e$((k + 10))]:" &&
			pad="$pad  " && k=$((k + 1))
		done &&
		echo "$pad- cell \"a quartz crystal oscillator keeps the time of the board steady while the rest of it sleeps\" [ref=e99]"
	} >deep.txt &&
	id=$(ofl-capture -q -T 0 <deep.txt) &&
	ofl-search "$id" "quartz crystal oscillator" >out &&
	grep "^  34: *- cell \"a quartz crystal oscillator keeps the ti\.\.\.le the rest of it sleeps\" \[ref=e99\]\$" out
'

test_done
