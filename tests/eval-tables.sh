#!/bin/sh
# eval-tables.sh: table questions scored against answers awk computes
# independently from the same input.  Tables made by tests/gen-table.sh
# (kubectl get pods -A of several sizes and seeds); questions: the count
# of each STATUS as the notice shows it, the count of each READY value,
# the pods not Running, the pods with more than 5 restarts, the pods of
# each namespace, as jq filters over the records.  Prints one line per
# wrong answer and a score; exits 1 below 100%.
#
#	tests/eval-tables.sh [BUILDDIR]
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src}
PATH="$build:$src/bin:$PATH"
export PATH LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-eval-tables.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
OFL_STORE=$tmp/store
# No indexer in the background: each artifact is indexed by its first
# search, so the figures do not hang on the machine's load.
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG
asked=0
right=0

# check WHAT GOT WANT
check() {
	asked=$((asked + 1))
	if [ "$2" = "$3" ]; then
		right=$((right + 1))
	else
		echo "wrong: $1: got '$2', want '$3'"
	fi
}

for spec in 3000:1 3000:7 1200:3 500:11 9000:5; do
	n=${spec%%:*}
	seed=${spec##*:}
	f=$tmp/pods-$n-$seed.txt
	"$src/tests/gen-table.sh" pods "$n" "$seed" >"$f"
	ofl-capture <"$f" >"$tmp/notice"
	id=$(sed -n '1s/^ofl:\([0-9a-z]*\) .*/\1/p' "$tmp/notice")
	# The notice: each STATUS and READY value's count.
	for col in STATUS:4 READY:3; do
		name=${col%%:*}
		k=${col##*:}
		awk -v k="$k" 'NR > 1 { c[$k]++ } END { for (v in c) print v, c[v] }' "$f" |
		    sort >"$tmp/want"
		sed -n "s/^$name: //p" "$tmp/notice" | tr ',' '\n' |
		    sed 's/^ //' | sort >"$tmp/got"
		while read -r v c; do
			g=$(awk -v v="$v" '$1 == v { print $2 }' "$tmp/got")
			check "$n/$seed notice $name $v" "$g" "$c"
		done <"$tmp/want"
	done
	# jq over the records.
	g=$(ofl-extract -m 0 -r "$id" 'select(.STATUS != "Running") | .NAME' | wc -l)
	w=$(awk 'NR > 1 && $4 != "Running"' "$f" | wc -l)
	check "$n/$seed not Running" "$g" "$w"
	g=$(ofl-extract -m 0 -r "$id" 'select(.RESTARTS > 5) | .NAME' | wc -l)
	w=$(awk 'NR > 1 && $5 + 0 > 5' "$f" | wc -l)
	check "$n/$seed restarts > 5" "$g" "$w"
	g=$(ofl-extract -m 0 -r "$id" 'select(.STATUS == "CrashLoopBackOff" and .RESTARTS >= 10) | .NAME' | md5sum)
	w=$(awk 'NR > 1 && $4 == "CrashLoopBackOff" && $5 + 0 >= 10 { print $2 }' "$f" | md5sum)
	check "$n/$seed crashlooping with 10+ restarts (names)" "$g" "$w"
	for ns in default kube-system monitoring payments; do
		g=$(ofl-extract -m 0 -r "$id" "select(.NAMESPACE == \"$ns\") | .NAME" | wc -l)
		w=$(awk -v ns="$ns" 'NR > 1 && $1 == ns' "$f" | wc -l)
		check "$n/$seed namespace $ns" "$g" "$w"
	done
done
echo "tables: $right of $asked right ($((100 * right / asked))%)"
[ "$right" -eq "$asked" ]
