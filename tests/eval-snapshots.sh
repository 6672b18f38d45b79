#!/bin/sh
# eval-snapshots.sh: browser snapshot questions, scored on what
# ofl-search prints by default.
#
#	tests/eval-snapshots.sh [--verbose] [--resolve] [QUESTIONS]
#
# Each row of QUESTIONS (tests/eval/snapshot-questions.tsv unless given)
# names a snapshot under
# tests/data/snapshot, a question as an agent would type it, a locator
# (a fixed string, case ignored, of the line that answers it) and the ref of the
# element that answers it.  The question is asked as `ofl-search ID
# 'QUESTION'`, no option, output to a pipe; it is answered when the
# printed bytes hold "[ref=REF]" (or "uid=REF ").  The baseline is grep
# for the question's rarest word (the word, of three letters or more,
# on the fewest lines of the snapshot): `grep -i -F WORD FILE`, answered
# when its output holds the ref in the same way.  Printed: per
# snapshot and in all, the share answered and the median bytes printed,
# for both; and "alike", the share ofl-search answers when an element
# like the answer counts too: one with the same name (the heading of a
# section and a link to it) or a link to the same URL (the same link in
# the contents and in the text), as the ref column names only the first
# element that holds the locator.
#
# --resolve fills the ref column from the locator (the element of the
# first line that holds it; for a child line such as "/url:" or "text:",
# the element above it that has a ref) and prints the file to stdout.
# --verbose lists each miss with what was printed.
#
# When written (78 questions over 10 snapshots of 7 documentation sets):
# ofl-search 0.78 answered, median 1,264 bytes printed; grep for the
# rarest word 0.68, median 370 bytes.  With the snapshot's own line
# choice (lines weighed for their length, links and buttons first, no
# surroundings, weak hits left to the more: line) and 30 questions more
# over 4 snapshots it was not tuned on (108 over 14, 10 documentation
# sets): 0.84 answered (0.87 alike), median 925 bytes; grep 0.68,
# median 635 bytes.
# The 30 alone: 0.80, median 962 bytes; before that line choice, 0.63,
# median 1,301 bytes.
# Then 38 questions over 5 snapshots of 4 documentation sets more,
# written before ofl-search was run on them (146 over 19): before the
# hits were ordered by the element each names, a definition shown with
# its term and a nested item with the item above it, the 38 were 0.76
# answered (0.92 alike), median 1,047 bytes, the 108 before them 0.84,
# median 925; after, the 38 are 0.92 (0.95 alike), median 889 bytes,
# the 108 are 0.91 (0.93 alike), median 922; all 146: 0.91, median 915
# bytes; grep 0.70, median 602 bytes.
# With the first link, button or field under a heading that answers
# shown with it: 0.92 (0.94 alike), median 926 bytes.
# Then 70 questions over 7 snapshots of 6 documentation sets more
# (snapshot-questions-2.tsv), written by one who had not seen what
# ofl-search prints: 0.59 answered (0.63 alike), median 1,184 bytes;
# grep 0.26, median 456 bytes.  After what their misses taught (the
# block that a heading, a term or a sentence ending in "the command
# line" introduces shown with it, a heading named by the text under it,
# 64 hits weighed by name before the best 24 go on): 0.71 (0.76 alike),
# median 1,239 bytes; the 146 before, 0.92 (0.94 alike), median 967.
# With a line that holds two of the words asked for in their order
# weighed up (a phrase): the 70, 0.73 (0.77 alike), median 1,239; the
# 146, 0.91 (0.94 alike), median 967 (the miss, "strict tables", now
# shows the link "STRICT table" first, not "STRICT").
# With a line in the term of a description list weighed up (where a
# function or an option is defined) and a term named by its link, else
# by its word in bold or code: the 70, 0.76 (0.80 alike); the 146, 0.92
# (0.95 alike), medians unchanged.
# With the block after a heading's block when that one is shown already
# (a function's signature, then what it does): the 70, 0.77 (0.81
# alike), median 1,239; the 146, 0.92 (0.95 alike), median 981.
# Then 60 questions over 6 snapshots of 4 documentation sets more
# (snapshot-questions-3.tsv), written as the 70 were and kept from ofl
# until all the changes above were made: with ofl as it was before
# them, 0.82 answered (0.83 alike), median 933 bytes; after, 0.85 (0.85
# alike), median 1,022 bytes; grep 0.45, median 261 bytes.
# With the indent all the lines of a hit share left out, and what is
# under a heading that answers right after the heading: the 60, 0.85,
# median 922 bytes; the 70, 0.77, median 1,240; the 146, 0.91 (0.94
# alike), median 930.
# With a line cut to the budget shown up to its ref at least: the 60
# (seen by then), 0.88, median 922; the 70, 0.79 (0.83 alike), median
# 1,240; the 146, 0.91, median 930.  With a table's cell leading to the
# cell beside it (a parameter, then what it is): the 60, 0.90; the 70,
# 0.79, median 1,248; the 146, 0.91.  With a name's words matched by
# their stems ("saving" the "Save" of xsltSaveResultToFile): the 70,
# 0.80 (0.84 alike).
# Then 60 questions over 6 snapshots of 6 documentation sets more
# (snapshot-questions-4.tsv), written as the 70 were and kept from ofl
# until measured once, a harder set (grep 0.08, median 298 bytes): with
# ofl as it was before any of the snapshot changes above from the 70
# on, 0.60 answered (0.63 alike), median 1,298 bytes; as it was when
# the 60 of snapshot-questions-3.tsv were first measured, 0.67 (0.67
# alike), median 1,310; now, 0.68 (0.72 alike), median 1,291.
# With what is under a heading put right after it only when the heading
# holds the words that weigh most ("Table of Contents" does not answer
# "the contents link to the accuracy section": the "1.5 Accuracy" link
# first): the 60 (seen by then), 0.72, median 1,293; the others
# unchanged (0.91, 0.80, 0.90).
# With a question for the contents, sidebar, menu or TOC putting the
# hits in a navigation landmark or under a contents heading first: the
# 146, 0.91 (0.94 alike), median 930; the 70, 0.81 (0.86 alike), median
# 1,263; the 60 of -3, 0.92, median 922; the 60 of -4, 0.73, median
# 1,295 (31 such questions in all, 24 answered before, 27 after).
# With a table row's other cell shown with the row's first cell (the
# name a description cell describes): the 60 of -4, 0.75, median 1,295;
# the others unchanged.
# With peak ~ maximum and turn off ~ disable (turn on ~ enable) in the
# lexicon: the 60 of -4, 0.78, median 1,295; the others unchanged
# (eval-search.sh: recall unchanged, MRR 0.792 to 0.789).
# On 2026-12-05 the misses of snapshot-questions-4.tsv were printed and
# read (no change was made for them): it is no longer a set no one has
# read, and a new sealed set is needed for a blind figure.
# Then 60 questions over 6 snapshots of 6 documentation sets more
# (snapshot-questions-5.tsv: git-rebase, pg_dump, Apache mod_rewrite,
# cmake(1), libxml2's xmlReader API, bash(1)), written blind as the 60 of
# -4 were, first measured on 2026-12-05 (commit 5fdedcd): 0.67 answered
# (0.67 alike), median 1,348 bytes; grep for the rarest word 0.13,
# median 360 bytes.  The honest figure for snapshots no change has seen.
# Its misses were then read.  With previous/prev in the lexicon, a
# button shown bringing the field it goes with (a search form's box with
# no name), and a line that holds a term as typed, punctuation and all
# ("${parameter:-word}"), weighed twice: the 60 of -5, 0.72, median
# 1,340 bytes; the 146, 0.91, median 918; the others unchanged (0.83,
# 0.92, 0.78).
# Then 60 questions over 6 snapshots of 4 documentation sets more
# (snapshot-questions-6.tsv: the Lua 5.2 manual, two GLib reference
# pages, two Graphviz pages, an SDL2 Doxygen header page), written blind,
# first measured on 2026-12-05 (commit 826d20d): 0.32 answered (0.33
# alike), median 1,369 bytes; grep for the rarest word 0.07, median 394
# bytes.  Its misses and those of -5 were then read.  With an entry's
# other term, a row header's value, a text's link and a section's heading
# shown with the line that brings them, and a heading named past an
# anchor sign ("◆"): the 60 of -6, 0.37, median 1,360; of -5, 0.77; of
# -4, 0.80; the 146 (0.91), the 70 (0.83) and -3 (0.92) unchanged.
# Then 59 questions over 6 snapshots of 6 documentation sets more
# (snapshot-questions-7.tsv: Jansson's API reference, Jinja's template
# guide, a cairo gtk-doc page, Vim's help on patterns, zsh's options,
# Postfix's SASL howto), written blind, first measured on 2026-12-07
# (commit bcf55ab): 0.56 answered (0.58 alike), median 1,374 bytes; grep
# for the rarest word 0.10, median 409 bytes.  With a line inside a
# block of prose shown with the block (commit 429c0de): the 59, 0.56,
# median 1,382; -6, 0.50; -5, 0.83; the others unchanged.  Its misses
# are not read.  With a hit weak by its score weighed by names rather
# than BM25 alone, unless it names the question about as well as the
# best (commit e68eddc): the 59, 0.59, median 1,371; the 146, 0.90,
# median 681; the 70, 0.83, median 1,026; -3, 0.92, median 767; -4,
# 0.83, median 1,161; -5, 0.83, median 1,260; -6, 0.55.  With weak
# hits shown while what is printed before them is under 500 bytes: the
# 146, 0.92, median 831; the 70, 0.83, median 1,061; -3, 0.92, median
# 914; the others unchanged (-4, -5, -6, and the 59 at 0.59, 1,371).
# With a snapshot's line cut to 150 bytes rather than 200 (more lines
# fit): -6, 0.55 -> 0.58; the others unchanged, medians within 20 bytes
# (120 gives the same; at 100, the 70 and -3 lose).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
LC_ALL=C
export LC_ALL
Q=$top/tests/eval/snapshot-questions.tsv
D=$top/tests/data/snapshot
verbose=0
resolve=0
for a in "$@"; do
	case $a in
	--verbose) verbose=1 ;;
	--resolve) resolve=1 ;;
	-*) echo "usage: $0 [--verbose] [--resolve] [QUESTIONS]" >&2; exit 2 ;;
	*) Q=$a ;;
	esac
done

# The ref of the element that holds the first line with the locator.
ref_of() {
	awk -v loc="$2" '
	function depth(s) { match(s, /^ */); return RLENGTH }
	function ref(s,   m) {
		if (s ~ /^ *- \/|^ *- text:/) return ""
		if (match(s, /\[ref=[a-z0-9]+\]/))
			return substr(s, RSTART + 5, RLENGTH - 6)
		if (match(s, /uid=[0-9_]+ /))
			return substr(s, RSTART + 4, RLENGTH - 5)
		return ""
	}
	{ line[NR] = $0 }
	!found && index(tolower($0), tolower(loc)) > 0 { found = NR }
	END {
		if (!found) exit 1
		r = ref(line[found]); d = depth(line[found])
		for (i = found - 1; r == "" && i > 0; i--) {
			if (depth(line[i]) < d) {
				d = depth(line[i])
				r = ref(line[i])
			}
		}
		if (r == "") exit 1
		print r
	}' "$1"
}

if [ $resolve -eq 1 ]; then
	while IFS='	' read -r f q loc ref; do
		case $f in '#'*|'') printf '%s\n' "$f"; continue ;; esac
		r=$(ref_of "$D/$f" "$loc") || {
			echo "$f: no element for locator '$loc'" >&2
			exit 1
		}
		printf '%s\t%s\t%s\t%s\n' "$f" "$q" "$loc" "$r"
	done <"$Q"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-eval-snap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
OFL_STORE=$tmp/store
# No indexer in the background: each artifact is indexed by its first
# search, so the figures do not hang on the machine's load.
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG

# The rarest word of a question in a file.
rarest() {
	best= bestn=
	for w in $(printf '%s\n' "$2" | tr 'A-Z' 'a-z' |
	    tr -c 'a-z0-9_\n' ' '); do
		[ ${#w} -ge 3 ] || continue
		n=$(grep -c -i -F -- "$w" "$1" || true)
		[ "$n" -gt 0 ] || continue
		if [ -z "$bestn" ] || [ "$n" -lt "$bestn" ]; then
			best=$w bestn=$n
		fi
	done
	printf '%s\n' "$best"
}

has_ref() {
	grep -q -F -e "[ref=$2]" -e "uid=$2 " "$1"
}

# The refs of the elements like the answer (FILE REF), one a line: the
# elements with the same name (a section's heading and the links to it
# are named alike), and the links to the same URL as the answer's (the
# same link in the contents and in the text).  Playwright's tree only.
alike() {
	awk -v want="$2" '
	function depth(s) { match(s, /^ */); return RLENGTH }
	function ref(s) {
		if (match(s, /\[ref=[a-z0-9]+\]/))
			return substr(s, RSTART + 5, RLENGTH - 6)
		return ""
	}
	function name(s) {
		if (match(s, /^ *- [a-zA-Z]+ "([^"\\]|\\.)*"/)) {
			s = substr(s, RSTART, RLENGTH)
			sub(/^ *- [a-zA-Z]+ /, "", s)
			return s
		}
		return ""
	}
	{
		line[NR] = $0
		if ($0 ~ /^ *- \/url: / && owner != "" && depth($0) > odepth) {
			u = $0; sub(/^ *- \/url: /, "", u)
			url[owner] = u
			owner = ""
		}
		r = ref($0)
		if (r != "") {
			nm[r] = name($0)
			owner = r
			odepth = depth($0)
		}
	}
	END {
		for (r in nm)
			if (r == want || (nm[want] != "" && nm[r] == nm[want]) ||
			    (url[want] != "" && url[r] == url[want]))
				print r
	}' "$1"
}

# 1 if FILE holds REF or an element like it in SNAPSHOT.
has_alike() {
	for r in $(alike "$3" "$2"); do
		has_ref "$1" "$r" && return 0
	done
	return 1
}

: >"$tmp/rows"
while IFS='	' read -r f q loc ref; do
	case $f in '#'*|'') continue ;; esac
	if [ ! -f "$tmp/id.$f" ]; then
		ofl-capture -q -T 0 <"$D/$f" >"$tmp/id.$f"
	fi
	id=$(sed 's/^ofl://' "$tmp/id.$f")
	ofl-search "$id" -- "$q" >"$tmp/out" 2>/dev/null || true
	ok=0
	has_ref "$tmp/out" "$ref" && ok=1
	lok=$ok
	[ $ok -eq 1 ] || ! has_alike "$tmp/out" "$ref" "$D/$f" || lok=1
	b=$(wc -c <"$tmp/out")
	w=$(rarest "$D/$f" "$q")
	if [ -n "$w" ]; then
		grep -i -F -- "$w" "$D/$f" >"$tmp/grep" || true
	else
		: >"$tmp/grep"
	fi
	gok=0
	has_ref "$tmp/grep" "$ref" && gok=1
	gb=$(wc -c <"$tmp/grep")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$ok" "$b" "$gok" "$gb" "$lok" \
	    >>"$tmp/rows"
	if [ $verbose -eq 1 ] && [ $ok -eq 0 ]; then
		printf '== miss: %s: %s (ref %s)\n' "$f" "$q" "$ref"
		sed 's/^/   /' "$tmp/out"
	fi
done <"$Q"

awk -F'\t' '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	f = $1; n[f]++; ok[f] += $2; gok[f] += $4; lok[f] += $6
	all++; aok += $2; agok += $4; alok += $6
	B[all] = $3; G[all] = $5
	k = ++m[f]; b[f, k] = $3; g[f, k] = $5
	if (!(f in seen)) { seen[f] = 1; order[++nf] = f }
}
END {
	printf "%-26s %4s  %8s %8s  %8s %8s  %6s\n", "snapshot", "q", "ofl",
	    "bytes", "grep", "bytes", "alike"
	for (i = 1; i <= nf; i++) {
		f = order[i]
		for (k = 1; k <= n[f]; k++) { x[k] = b[f, k]; y[k] = g[f, k] }
		printf "%-26s %4d  %8.2f %8d  %8.2f %8d  %6.2f\n", f, n[f],
		    ok[f] / n[f], median(x, n[f]), gok[f] / n[f],
		    median(y, n[f]), lok[f] / n[f]
	}
	printf "%-26s %4d  %8.2f %8d  %8.2f %8d  %6.2f\n", "all", all,
	    aok / all, median(B, all), agok / all, median(G, all), alok / all
}' "$tmp/rows"
