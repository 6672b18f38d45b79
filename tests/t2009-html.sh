#!/bin/sh
# HTML pages: the notice is the page's map (title, roles, headings,
# landmarks, every form with its fields and buttons, each by line and
# by the name it is sent under), and ofl-extract --role lists elements
# one a line, as a browser would name them, in any page however broken.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

PAGE="$DATA/snapshot/pages/tracker.html"

test_expect_success 'the notice of a page is its map' '
	ofl-capture -T 0 <"$PAGE" >notice &&
	head -n 1 notice | grep "^ofl:[0-9a-z]* html 2.5 kB 57 lines$" &&
	cat >want <<-\EOT &&
	page: Build tracker - runs
	elements: 77; cell 20, link 13, row 6, button 5, columnheader 4, heading 4, textbox 4, listitem 3, option 3, checkbox 2 (+11 roles)
	headings: # Runs | ## Recent runs | ## Agents | ## Sign in to retry
	landmarks: banner [line 5], navigation "Main" [line 7], search [GET tracker.html, line 11], main [line 16], form "Filter runs" [GET tracker.html, line 20], navigation "Pagination" [line 40], form "Sign in" [POST tracker.html, line 48], contentinfo [line 55]
	search [GET tracker.html, line 11]: searchbox "Search runs" [name=q, line 12], button "Go" [line 13]
	form "Filter runs" [GET tracker.html, line 20]: textbox "Branch" [name=branch, line 21], combobox "Status" [name=status, line 22], checkbox "Only my runs" [name=mine, line 23], textbox "Since" [name=since, line 24], button "Apply filters" [line 25], button "Clear" [line 26]
	form "Sign in" [POST tracker.html, line 48]: textbox "User name" [name=user, line 49], textbox "Password" [name=password, line 50], checkbox "Keep me signed in" [name=remember, line 51], button "Sign in" [line 52]
	EOT
	sed -n "2,8p" notice >got &&
	test_cmp want got &&
	! grep "^--- head" notice &&
	id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" notice) &&
	echo "$id" >id &&
	grep "^      ofl-extract $id --role searchbox$" notice &&
	! grep -- "-n [0-9]" notice
'

test_expect_success 'ofl-extract --role: elements named as a browser would' '
	id=$(cat id) &&
	ofl-extract "$id" --role textbox >fields &&
	printf "21\ttextbox \"Branch\" name=branch type=text\tmain > form \"Filter runs\" > heading \"Runs\"\n24\ttextbox \"Since\" name=since type=date\tmain > form \"Filter runs\" > heading \"Runs\"\n49\ttextbox \"User name\" name=user type=text\tmain > form \"Sign in\" > heading \"Sign in to retry\"\n50\ttextbox \"Password\" name=password type=password\tmain > form \"Sign in\" > heading \"Sign in to retry\"\n" >want &&
	test_cmp want fields &&
	ofl-extract "$id" --role link --name next >next &&
	printf "40\tlink \"Next\" href=tracker.html?page=3\tmain > navigation \"Pagination\" > heading \"Recent runs\"\n" >want &&
	test_cmp want next &&
	ofl-extract "$id" --role heading >heads &&
	test $(wc -l <heads) -eq 4 &&
	head -n 1 heads | grep "^17	heading \"Runs\" level=1	main$" &&
	test_expect_code 1 ofl-extract "$id" --role slider
'

test_expect_success 'names: aria-label, label, placeholder, value, alt, entities' '
	cat >p.html <<-\EOT &&
	<html><head><title>Shop &amp; more</title>
	<link rel="canonical" href="https://shop.example/cart?a=1&amp;b=2">
	<script>var s = "<form><input name=fake></form>";</script>
	<style>h1 { content: "<h1>" }</style></head>
	<body><!-- <form name="commented"> -->
	<h1>Cart <a href="#cart" class="anchor">#</a></h1>
	<form action="/pay" method="post" aria-label="Pay">
	<input type="hidden" name="csrf" value="x">
	<input name="card" placeholder="Card number">
	<input type="email" name="mail" aria-label="Your e-mail">
	<input type="submit" value="Pay now">
	<input type="image" src="go.png" alt="Go">
	<textarea name="note"><b>not a tag</b></textarea>
	</form>
	<a href="/help"><img src="h.png" alt="Help"></a>
	</body></html>
	EOT
	ofl-capture -T 0 <p.html >n &&
	grep "^page: Shop & more <https://shop.example/cart?a=1&b=2>$" n &&
	grep "^headings: # Cart$" n &&
	grep "^form \"Pay\" \[POST /pay, line 7\]: hidden \"csrf\" \[name=csrf, line 8\], textbox \"Card number\" \[name=card, line 9\], textbox \"Your e-mail\" \[name=mail, line 10\], button \"Pay now\" \[line 11\], button \"Go\" \[line 12\], textbox \"note\" \[name=note, line 13\]$" n &&
	! grep "fake\|commented" n &&
	hid=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" n) &&
	ofl-extract "$hid" --role link >links &&
	printf "6\tlink \"#\" href=#cart\t\n15\tlink \"Help\" href=/help\theading \"Cart\"\n" >want &&
	test_cmp want links
'

test_expect_success 'a large page: its notice stays under 2 kB' '
	{
		echo "<html><head><title>Big</title></head><body><nav>" &&
		i=0 && while [ $i -lt 3000 ]; do
			echo "<li><a href=\"p$i.html\">Page $i</a></li>"
			i=$((i + 1))
		done &&
		echo "</nav><form action=/s><input name=q><button>Find</button></form>" &&
		i=0 && while [ $i -lt 200 ]; do
			echo "<h2>Section $i</h2><p>Text of section $i.</p>"
			i=$((i + 1))
		done &&
		echo "</body></html>"
	} >big.html &&
	ofl-capture <big.html >n &&
	head -n 1 n | grep " html " &&
	test $(wc -c <n) -le 2048 &&
	grep "^elements: 6,404; link 3,000, listitem 3,000, heading 200, paragraph 200, " n &&
	grep "^form \[GET /s, line 3002\]: textbox \"q\" \[name=q, line 3002\], button \"Find\" \[line 3002\]$" n &&
	grep "^headings: ## Section 0 | ## Section 1 | .* (+1[0-9][0-9] more)$" n
'

test_expect_success 'broken pages: every one a map, nothing lost' '
	printf "<html><title>cut</title><body><form action=\"/x\"><input name=\"a" >cut.html &&
	printf "<html><body><!-- never closed <form>" >comment.html &&
	printf "<html><body><form><p>\377\376 <button>bad\377 \033[31mred</button></p>" >bytes.html &&
	printf "<html><body><h1>Deep</h1>" >deep.html &&
	i=0 && while [ $i -lt 5000 ]; do printf "<div><form><label><a href=x>"; i=$((i + 1)); done >>deep.html &&
	{ printf "<html><body><a href=\"" && head -c 1048576 /dev/zero | tr "\\000" a && printf "\">long</a>"; } >long.html &&
	for f in cut comment bytes deep long; do
		ofl-capture -T 0 <$f.html >$f.n || return 1
		grep "^elements: " $f.n || return 1
		id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" $f.n)
		ofl-extract "$id" >$f.back || return 1
		cmp $f.html $f.back || return 1
	done &&
	grep "^page: cut$" cut.n &&
	grep "^form \[GET /x, line 1\]: textbox \"a\" \[name=a, line 1\]$" cut.n &&
	grep "^elements: 0$" comment.n &&
	grep "^form \[GET, line 1\]: button \"bad\\\\xff \\\\x1b\[31mred\" \[line 1\]$" bytes.n &&
	printf "<p>a\000b</p>" >nul.html &&
	ofl-capture -T 0 -q <nul.html >nid &&
	ofl-extract "$(sed s/^ofl:// nid)" >nul.back &&
	cmp nul.html nul.back &&
	grep "^elements: 10,001; form 5,000, link 5,000, heading 1$" deep.n &&
	id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" long.n) &&
	ofl-extract "$id" --role link >l &&
	test $(wc -c <l) -le 600
'

test_done
