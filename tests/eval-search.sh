#!/bin/sh
# eval-search.sh: what ofl-search prints by default, scored (issue 11).
#
#	tests/eval-search.sh [--verbose] [--json] [--check] [FILE.tsv ...]
#
# Each query of tests/eval/queries.tsv (and of tests/eval/loghub.tsv when
# ../shared/corpus/logs, or $OFL_CORPUS/logs, exists: those logs are
# research data, read from there and never copied into the repo) is asked
# as a person or an agent would: `ofl-search ID 'QUERY'`, no option,
# output to a pipe.  What counts is what that prints.  Reported per kind,
# per half, per kind and half and per query file ("set"):
#
#   recall     the evidence pattern is in the printed bytes (the snippet
#              lines, their line numbers taken off, and the hit lines;
#              the "more:" lines and the "no match for" line, which echo
#              the query, are left out);
#   MRR        1/rank of the first printed hit whose line range (the
#              ofl:ID:A-B of its first line) holds an evidence line, 0
#              when no printed hit does;
#   MRRsh      the same for the first printed hit that shows an
#              evidence line among its snippet lines (a hit's range may
#              hold the line and show others);
#   bytes      median and mean bytes printed per query;
#   r@5        (secondary) a hit among the top 5 by line range, whatever
#              the budget (ofl-search -q -n 5 -b 1000000).
#
# Format of the query files: UTF-8, one query a line, fields separated by
# one tab; a line that starts with '#' and empty lines are ignored.
#
#   kind  half  file  query  pattern  lines
#
#   kind     what the artifact is: log, ci-log, test-output, json,
#            markdown, diff, csv (a label for the report only);
#   half     "para" when the query shares at most one content word with
#            every evidence line, "lit" otherwise; this script counts the
#            shared words itself and stops on a row marked wrong (words:
#            runs of letters and digits, case folded, stop words below
#            left out, a crude stem: a final -s, -es, -ed, -ing dropped);
#   file     the artifact, relative to the top of the tree (queries.tsv)
#            or to ../shared/corpus/logs (loghub.tsv);
#   query    the question as typed into a search box;
#   pattern  the evidence: a fixed string, or an ERE after "re:", matched
#            case-sensitively; it must match each listed line of the file;
#   lines    the evidence line numbers: "12", "12,40", "12-14".
#
# --check only checks the query files (patterns against lines, halves).
# --verbose lists each miss with what was printed; --json prints the
# figures as one JSON object instead of the table.
#
# Run from a build directory (or set OFL_BUILDDIR); OFL_CORPUS names the
# corpus directory when it is not ../shared/corpus (in a git worktree, say).
# Scratch files go to a temporary directory, removed at the end.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
LC_ALL=C
export LC_ALL
logs=${OFL_CORPUS:-$top/../shared/corpus}/logs
verbose=0
json=0
check=0
files=
for a in "$@"; do
	case $a in
	--verbose | -v) verbose=1 ;;
	--json | -j) json=1 ;;
	--check) check=1 ;;
	-h | --help)
		sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
		exit 0 ;;
	-*) echo "usage: eval-search.sh [--verbose] [--json] [--check]" \
		    "[FILE.tsv ...]" >&2
		exit 2 ;;
	*) files="$files $a" ;;
	esac
done
if [ -z "$files" ]; then
	files=$top/tests/eval/queries.tsv
	[ -d "$logs" ] && files="$files $top/tests/eval/loghub.tsv"
fi
if [ "$check" -eq 0 ]; then
	for t in ofl-capture ofl-search; do
		command -v "$t" >/dev/null 2>&1 ||
		    { echo "eval-search: $t missing" >&2; exit 2; }
	done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ofl-eval.XXXXXX")
trap 'rm -rf "$work"' EXIT
OFL_STORE=$work/store
# No indexer in the background: a search while one runs scans what it has
# not reached, so the figures would hang on the machine's load.  Each
# artifact is indexed by its first search instead.
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG
unset OFL_SESSION OFL_INTENT OFL_THRESHOLD OFL_REDACT XDG_CACHE_HOME
NO_COLOR=1
export NO_COLOR
tab=$(printf '\t')

# shared QUERY: the most content words QUERY shares with one line of
# stdin.  Words are runs of letters and digits, case folded, stop words
# left out, crudely stemmed.
shared() {
	awk -v q="$1" '
	function stem(s) {
		if (length(s) > 4 && s ~ /ies$/) return substr(s, 1, length(s) - 3) "y"
		if (length(s) > 5 && s ~ /ing$/) return substr(s, 1, length(s) - 3)
		if (length(s) > 4 && s ~ /ed$/) return substr(s, 1, length(s) - 2)
		if (length(s) > 4 && s ~ /es$/) return substr(s, 1, length(s) - 2)
		if (length(s) > 3 && s ~ /[^s]s$/) return substr(s, 1, length(s) - 1)
		return s
	}
	function words(t, set,    n, i, w, a) {
		n = split(tolower(t), a, /[^a-z0-9]+/)
		for (i = 1; i <= n; i++)
			if (a[i] != "" && !(a[i] in stop)) set[stem(a[i])] = 1
	}
	BEGIN {
		n = split("a about after all an and any are as at be been before " \
		    "but by can could did do does doing done for from get gets got " \
		    "had has have how i if in into is it its me my no not of on " \
		    "or our out over so some than that the their them then there " \
		    "these they this those to up us was we were what when where " \
		    "which while who whom why will with would you your", w, " ")
		for (i = 1; i <= n; i++) stop[w[i]] = 1
		words(q, qw)
	}
	{
		split("", lw)
		words($0, lw)
		k = 0
		for (x in qw) if (x in lw) k++
		if (k > max) max = k
	}
	END { print max + 0 }'
}

# The evidence lines "12,40-42" as one number a line.
expand() {
	printf '%s\n' "$1" | tr ',' '\n' | awk -F- '
	NF == 1 && $1 ~ /^[0-9]+$/ { print $1; next }
	NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		for (i = $1; i <= $2; i++) print i; next }
	{ print "bad" }'
}

# match FILE PATTERN: does FILE hold PATTERN?
match() {
	case $2 in
	re:*) grep -Eq -e "${2#re:}" "$1" ;;
	*) grep -Fq -e "$2" "$1" ;;
	esac
}

# The artifact of a file, captured once (IDs cached in $work/ids).
artifact() {
	id=$(awk -F '\t' -v f="$1" '$1 == f { print $2; exit }' "$work/ids")
	if [ -z "$id" ]; then
		id=$(ofl-capture -q -T 0 <"$1" | sed -n '1s/^ofl:\([^ ]*\).*/\1/p')
		[ -n "$id" ] || { echo "eval-search: cannot capture $1" >&2
			exit 3; }
		printf '%s\t%s\n' "$1" "$id" >>"$work/ids"
	fi
	printf '%s\n' "$id"
}

: >"$work/ids"
: >"$work/scores"
: >"$work/misses"
bad=0
n=0
for qf in $files; do
	case $qf in
	*loghub.tsv) base=$logs ;;
	*) base=$top ;;
	esac
	grep -v -e '^#' -e '^$' "$qf" >"$work/rows" || true
	row=0
	while IFS="$tab" read -r kind half file query pattern lines rest; do
		n=$((n + 1))
		row=$((row + 1))
		where="$(basename "$qf"):$row"
		f=$base/$file
		if [ -n "${rest:-}" ] || [ -z "$lines" ] || [ ! -r "$f" ]; then
			echo "eval-search: $where: bad row or no file $file" >&2
			bad=1
			continue
		fi
		expand "$lines" >"$work/want"
		if grep -q bad "$work/want"; then
			echo "eval-search: $where: bad lines '$lines'" >&2
			bad=1
			continue
		fi
		# The pattern must be on each evidence line; the half is
		# the most words the query shares with one of them.
		awk 'FNR == NR { want[$1] = 1; next } FNR in want {
			sub(/\r$/, ""); print }' "$work/want" "$f" >"$work/lines"
		nl=$(grep -c '' <"$work/lines" || true)
		case $pattern in
		re:*) nm=$(grep -c -E -e "${pattern#re:}" "$work/lines" || true) ;;
		*) nm=$(grep -c -F -e "$pattern" "$work/lines" || true) ;;
		esac
		if [ "$nm" -ne "$(grep -c '' <"$work/want")" ] ||
		    [ "$nl" -ne "$nm" ]; then
			echo "eval-search: $where: '$pattern' is on $nm of" \
			    "the evidence lines '$lines' of $file" >&2
			bad=1
		fi
		shared=$(shared "$query" <"$work/lines")
		if [ "$shared" -le 1 ]; then want_half=para; else want_half=lit; fi
		if [ "$half" != "$want_half" ]; then
			echo "eval-search: $where: '$query' shares $shared" \
			    "word(s) with the evidence: $want_half, not $half" >&2
			bad=1
		fi
		[ "$check" -eq 1 ] && continue

		id=$(artifact "$f")
		ofl-search "$id" "$query" </dev/null >"$work/out" 2>"$work/err" || true
		bytes=$(wc -c <"$work/out")
		# The text shown: titles and snippet lines, the line numbers
		# taken off, so that an ERE may anchor at the line's start.
		grep -v -e '^more: ' -e '^no match for ' "$work/out" |
		    sed -E 's/^ *[0-9]+[:-] //' >"$work/shown" || true
		if match "$work/shown" "$pattern"; then found=1; else found=0; fi
		# The rank of the first hit whose line range holds an
		# evidence line, and of the first that shows one.
		set -- $(awk '
		FNR == NR { want[$1] = 1; next }
		/^ofl:/ {
			r++
			split($1, p, ":")
			split(p[3], ab, "-")
			if (ab[2] == "") ab[2] = ab[1]
			for (l = ab[1] + 0; !range && l <= ab[2] + 0; l++)
				if (l in want) range = r
			next
		}
		r && !shown && match($0, /^ *[0-9]+[:-] /) {
			l = substr($0, 1, RLENGTH) + 0
			if (l in want) shown = r
		}
		END { print range + 0, shown + 0 }' "$work/want" "$work/out")
		rank=$1
		srank=$2
		ofl-search -q -n 5 -b 1000000 "$id" "$query" </dev/null \
		    >"$work/top5" 2>/dev/null || true
		r5=$(awk '
		FNR == NR { want[$1] = 1; next }
		{
			split($1, p, ":")
			split(p[3], ab, "-")
			if (ab[2] == "") ab[2] = ab[1]
			for (l = ab[1]; l <= ab[2]; l++)
				if (l in want) { print 1; exit }
		}' "$work/want" "$work/top5")
		[ -n "$r5" ] || r5=0
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$half" \
		    "$found" "$rank" "$bytes" "$r5" "$srank" "$query" \
		    "$(basename "$qf" .tsv)" >>"$work/scores"
		if [ "$found" -eq 0 ] || [ "$rank" -eq 0 ]; then
			{
				printf '== %s %s [%s] %s: %s\n' "$kind" "$half" \
				    "$file" "lines $lines" "$query"
				printf '   evidence %s: %s; rank %s by range, %s by lines shown\n' \
				    "$pattern" \
				    "$([ "$found" -eq 1 ] && echo printed || echo NOT printed)" \
				    "$rank" "$srank"
				sed 's/^/   | /' "$work/out" "$work/err"
			} >>"$work/misses"
		fi
	done <"$work/rows"
done
if [ "$bad" -ne 0 ]; then
	echo "eval-search: the query files have errors (above)" >&2
	exit 3
fi
if [ "$check" -eq 1 ]; then
	echo "eval-search: $n queries checked"
	exit 0
fi

[ "$verbose" -eq 1 ] && [ "$json" -eq 0 ] && cat "$work/misses"

# Figures per group: kind, half, kind/half, all.
awk -F '\t' -v json="$json" '
function add(g) {
	if (!(g in cnt)) order[++ng] = g
	cnt[g]++; rec[g] += $3; rr[g] += ($4 > 0 ? 1 / $4 : 0)
	sum[g] += $5; r5[g] += $6; srr[g] += ($7 > 0 ? 1 / $7 : 0)
	b[g, cnt[g]] = $5
}
function median(g,    i, j, k, t, a) {
	k = cnt[g]
	for (i = 1; i <= k; i++) a[i] = b[g, i]
	for (i = 2; i <= k; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
	add("kind " $1); add("half " $2); add("kind/half " $1 "/" $2)
	add("set " $9); add("all")
}
END {
	if (json) printf "{"
	else printf "%-28s %5s %7s %6s %6s %7s %7s %6s\n", "group", "n",
	    "recall", "MRR", "MRRsh", "median", "mean", "r@5"
	for (i = 1; i <= ng; i++) {
		g = order[i]
		k = cnt[g]
		if (json)
			printf "%s\"%s\":{\"queries\":%d,\"recall\":%.3f,\"mrr\":%.3f,\"mrr_shown\":%.3f,\"bytes_median\":%.1f,\"bytes_mean\":%.1f,\"recall_at_5\":%.3f}",
			    (i > 1 ? "," : ""), g, k, rec[g] / k, rr[g] / k,
			    srr[g] / k, median(g), sum[g] / k, r5[g] / k
		else
			printf "%-28s %5d %7.3f %6.3f %6.3f %7.0f %7.0f %6.3f\n", g, k,
			    rec[g] / k, rr[g] / k, srr[g] / k, median(g),
			    sum[g] / k, r5[g] / k
	}
	if (json) print "}"
}' "$work/scores" | if [ "$json" -eq 1 ]; then cat; else
	# Kinds, halves, kinds by half, then all.
	awk 'NR == 1 { print; next }
	{ o = ($1 == "kind" ? 1 : $1 == "half" ? 2 : $1 == "set" ? 4 : \
	    $1 == "all" ? 5 : 3)
	  print o "\t" $0 }' | sort -t "$tab" -k1,1n -k2,2 | cut -f 2-
fi
