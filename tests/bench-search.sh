#!/bin/sh
# bench-search.sh: how well and how fast ofl-index and ofl-search work.
#
#	tests/bench-search.sh [SIZE_MB]	(default 100)
#
# (a) Quality, on the loghub ground truth in ../shared/corpus/logs (skipped
# when absent; those files are research data and stay out of the repo):
# each event of a *_templates.csv becomes a query, written as a person
# would ask (the words of the template, placeholders and stop words left
# out), and the *_structured.csv gives the lines it should find.  Reported:
# recall@5 (a top-5 hit's line range holds an expected line), the same for
# the lines the snippets show, MRR, and bytes returned per query.  The CI
# log's logview.json gives the error lines a CI summarizer must find.
#
# (b) Speed: index a generated log of SIZE_MB MiB and the corpus (MB/s),
# the store's size against the raw size, and the median time of
# ofl-search on the big artifact against rg on the raw file for the same
# words (hyperfine).
#
# Run from a build directory (or set OFL_BUILDDIR).  Needs jq; hyperfine
# and rg for (b).  Scratch files go to $BENCH_DIR (default: a temporary
# directory), removed at the end.
set -eu
size_mb=${1:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
corpus=$top/../shared/corpus
for t in jq ofl-capture ofl-index ofl-search; do
	command -v "$t" >/dev/null 2>&1 ||
	    { echo "bench-search: $t missing" >&2; exit 2; }
done
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
OFL_STORE=$work/store
# Indexing is timed by ofl-index alone: no indexer in the background
# started by a capture, which would be timed instead.
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG
unset OFL_SESSION OFL_INTENT

# The words of a template or line, as a person would type them: letters
# only, placeholders and stop words out, at most five, first ones first.
query_of() {
	printf '%s\n' "$1" | sed 's/<\*>/ /g' | tr -c 'A-Za-z_\n' ' ' |
	    tr ' ' '\n' | sed 's/^_*//; s/_*$//' | awk '
	BEGIN {
		n = split("a an and are as at be by for from in is it of on or the to was were with", w, " ")
		for (i = 1; i <= n; i++) stop[w[i]] = 1
	}
	length($0) >= 3 && !(tolower($0) in stop) && !(tolower($0) in seen) {
		seen[tolower($0)] = 1
		out = out (k++ ? " " : "") $0
		if (k == 5) { print out; exit }
	}
	END { if (k > 0 && k < 5) print out }'
}

# score ID QUERY EXPECTED_FILE: one line "rank snip_hit bytes" (rank 0:
# no top-5 hit holds an expected line).
score() {
	ofl-search "$1" "$2" >"$work/text" 2>/dev/null || true
	bytes=$(wc -c <"$work/text")
	ofl-search -j "$1" "$2" 2>/dev/null |
	    jq -r '"\(.lines[0]) \(.lines[1]) \(.snippet_lines | map(tostring) | join(","))"' \
	    >"$work/hits" || true
	awk -v bytes="$bytes" '
	FNR == NR { want[$1] = 1; next }
	{
		r++
		if (!rank)
			for (l = $1; l <= $2; l++)
				if (l in want) { rank = r; break }
		if (!snip) {
			n = split($3, s, ",")
			for (i = 1; i <= n; i++)
				if (s[i] in want) { snip = 1; break }
		}
	}
	END { printf "%d %d %d\n", rank, snip, bytes }' "$3" "$work/hits"
}

# Sum up lines of "rank snip bytes".
summary() {
	awk -v name="$1" '
	{ n++; if ($1 > 0) { hit++; rr += 1 / $1 } ; snip += $2; bytes += $3
	  if ($3 > max) max = $3 }
	END {
		if (n == 0) { printf "%-10s no queries\n", name; exit }
		printf "%-10s queries %4d  recall@5 %.3f  snippet recall@5 %.3f  MRR %.3f  bytes/query %4.0f (max %d)\n",
		    name, n, hit / n, snip / n, rr / n, bytes / n, max
	}' "$2"
}

echo "== (a) quality"
if [ -d "$corpus/logs" ]; then
	: >"$work/all"
	for tpl in "$corpus"/logs/*_templates.csv; do
		name=$(basename "$tpl" _2k.log_templates.csv)
		log=$corpus/logs/${name}_2k.log
		csv=$corpus/logs/${name}_2k.log_structured.csv
		id=$(ofl-capture -q -T 0 -l "$name" <"$log" | sed 's/^ofl://')
		ofl-index "$id" >/dev/null
		# LineId and EventId (the last E<n> field) of each line.
		sed -n '2,$s/^\([0-9]*\),.*,\(E[0-9]*\),.*$/\1 \2/p' "$csv" \
		    >"$work/truth"
		: >"$work/scores"
		tail -n +2 "$tpl" | while IFS= read -r row; do
			ev=${row%%,*}
			text=$(printf '%s' "${row#*,}" | sed 's/^"//; s/"$//; s/""/"/g')
			q=$(query_of "$text")
			[ -n "$q" ] || continue
			awk -v e="$ev" '$2 == e { print $1 }' "$work/truth" \
			    >"$work/want"
			[ -s "$work/want" ] || continue
			score "$id" "$q" "$work/want" >>"$work/scores"
		done
		summary "$name" "$work/scores"
		cat "$work/scores" >>"$work/all"
	done
	summary "loghub" "$work/all"

	# The CI log: one query per distinct error (its words, timestamps
	# left out); each finds every line that gives the same query.  The
	# line numbers of logview.json count from 0.
	ci=$corpus/ci/treeherder-taskcluster-timeout.log
	id=$(ofl-capture -q -T 0 -l ci <"$ci" | sed 's/^ofl://')
	ofl-index "$id" >/dev/null
	jq -r '.errors[] | "\(.linenumber + 1)\t\(.line)"' \
	    "$corpus/ci/treeherder-taskcluster-timeout.logview.json" |
	    while IFS="$(printf '\t')" read -r n line; do
		printf '%s\t%s\n' "$n" "$(query_of "$line")"
	    done >"$work/ciq"
	: >"$work/scores"
	cut -f 2 "$work/ciq" | sort -u | while IFS= read -r q; do
		awk -F '\t' -v q="$q" '$2 == q { print $1 }' "$work/ciq" \
		    >"$work/want"
		score "$id" "$q" "$work/want" >>"$work/scores"
	done
	summary "ci-log" "$work/scores"
else
	echo "skipped: no $corpus/logs"
fi

echo "== (b) speed"
# A log with timestamps, levels, ids, addresses, stack traces.
gen_log() {
	awk -v mb="$1" 'BEGIN {
		srand(42)
		split("OrderService PaymentGateway InventoryManager SessionCache UserRepository HttpServer KafkaConsumer Scheduler", svc, " ")
		split("INFO INFO INFO INFO INFO DEBUG DEBUG WARN ERROR INFO", lvl, " ")
		split("GET POST PUT DELETE", meth, " ")
		split("/api/v1/orders /api/v1/users /api/v2/payments /healthz /api/v1/inventory/items /static/app.js", path, " ")
		target = mb * 1048576
		t = 1700000000
		while (total < target) {
			t += int(rand() * 3)
			l = lvl[int(rand() * 10) + 1]
			s = svc[int(rand() * 8) + 1]
			ts = sprintf("2023-11-%02dT%02d:%02d:%02d.%03dZ", 14 + int(t / 86400) % 14, int(t / 3600) % 24, int(t / 60) % 60, t % 60, int(rand() * 1000))
			r = rand()
			if (l == "ERROR" && r < 0.3)
				line = sprintf("%s ERROR [worker-%d] com.example.%s: connect to 10.%d.%d.%d:%d failed: ECONNREFUSED (attempt %d)", ts, int(rand() * 64), s, int(rand() * 255), int(rand() * 255), int(rand() * 255), 5432 + int(rand() * 10), int(rand() * 5) + 1)
			else if (l == "ERROR" && r < 0.5)
				line = sprintf("%s ERROR [worker-%d] com.example.%s: unhandled exception in request %08x\njava.lang.IllegalStateException: order %d is in state CANCELLED\n\tat com.example.%s.process(%s.java:%d)\n\tat com.example.HttpServer.dispatch(HttpServer.java:%d)\n\tat java.base/java.lang.Thread.run(Thread.java:833)", ts, int(rand() * 64), s, int(rand() * 4294967295), int(rand() * 1000000), s, s, int(rand() * 900) + 10, int(rand() * 400) + 10)
			else if (l == "ERROR")
				line = sprintf("%s ERROR [worker-%d] com.example.%s: timeout after %d ms waiting for lock 0x%x on table orders_%d", ts, int(rand() * 64), s, int(rand() * 30000), int(rand() * 4294967295), int(rand() * 16))
			else if (l == "WARN")
				line = sprintf("%s WARN  [worker-%d] com.example.%s: slow query took %d ms: SELECT * FROM orders WHERE customer_id = %d", ts, int(rand() * 64), s, int(rand() * 5000) + 500, int(rand() * 100000))
			else if (r < 0.4)
				line = sprintf("%s %-5s [http-%d] com.example.HttpServer: %s %s?page=%d status=%d bytes=%d duration=%dms user=u%06d", ts, l, int(rand() * 200), meth[int(rand() * 4) + 1], path[int(rand() * 6) + 1], int(rand() * 50), (rand() < 0.95 ? 200 : 503), int(rand() * 100000), int(rand() * 900), int(rand() * 1000000))
			else if (r < 0.7)
				line = sprintf("%s %-5s [worker-%d] com.example.%s: processed order %d for customer %d in %d ms (items=%d, total=%.2f EUR)", ts, l, int(rand() * 64), s, int(rand() * 10000000), int(rand() * 100000), int(rand() * 500), int(rand() * 20) + 1, rand() * 1000)
			else
				line = sprintf("%s %-5s [cache-%d] com.example.SessionCache: evicted %d entries, size now %d (hit ratio %.3f) key=sess_%08x%08x", ts, l, int(rand() * 8), int(rand() * 1000), int(rand() * 1000000), rand(), int(rand() * 4294967295), int(rand() * 4294967295))
			print line
			total += length(line) + 1
		}
	}'
}

now_ms() {
	date +%s%3N
}

# rate NAME BYTES MS: print MB/s.
rate() {
	awk -v n="$1" -v b="$2" -v ms="$3" 'BEGIN {
		printf "%-24s %8.1f MB in %6.2f s: %6.1f MB/s\n", n, b / 1e6,
		    ms / 1000, (ms > 0 ? b / 1e3 / ms : 0) }'
}

gen_log "$size_mb" >"$work/big.log"
raw=$(wc -c <"$work/big.log")
OFL_STORE=$work/big
export OFL_STORE
t0=$(now_ms)
big=$(ofl-capture -q -T 0 <"$work/big.log" | sed 's/^ofl://')
t1=$(now_ms)
ofl-index "$big" >/dev/null
t2=$(now_ms)
rate "capture ${size_mb} MiB log" "$raw" $((t1 - t0))
rate "index ${size_mb} MiB log" "$raw" $((t2 - t1))
# The reserve, room kept free for gc on a full disk, is not stored data.
stored=$(du -sb --exclude=reserve "$OFL_STORE" | cut -f 1)
awk -v s="$stored" -v r="$raw" 'BEGIN {
	printf "store (content + index)  %8.1f MB for %.1f MB raw: %.2fx (target < 1.5x)\n",
	    s / 1e6, r / 1e6, s / r }'

if [ -d "$corpus" ]; then
	OFL_STORE=$work/corpus
	export OFL_STORE
	find "$corpus" -type f ! -path '*/LICENSES/*' ! -name '*.md' \
	    -o -type f -name '*.md' ! -name README.md | sort >"$work/files"
	cbytes=0
	while IFS= read -r f; do
		ofl-capture -q -T 0 <"$f" >>"$work/ids"
		cbytes=$((cbytes + $(wc -c <"$f")))
	done <"$work/files"
	t0=$(now_ms)
	sed 's/^ofl://' "$work/ids" | xargs ofl-index >/dev/null
	t1=$(now_ms)
	rate "index corpus" "$cbytes" $((t1 - t0))
	stored=$(du -sb --exclude=reserve "$OFL_STORE" | cut -f 1)
	awk -v s="$stored" -v r="$cbytes" 'BEGIN {
		printf "store (content + index)  %8.1f MB for %.1f MB raw: %.2fx\n",
		    s / 1e6, r / 1e6, s / r }'
fi

if command -v hyperfine >/dev/null 2>&1 && command -v rg >/dev/null 2>&1
then
	OFL_STORE=$work/big
	export OFL_STORE
	for q in ECONNREFUSED IllegalStateException \
	    'timeout waiting for lock' 'slow query' 'unhandled exception' \
	    'evicted entries'; do
		pat=$(printf '%s' "$q" | sed 's/ for / /; s/ /|/g')
		hyperfine -N --output=pipe -w 3 -r 20 \
		    --export-json "$work/h.json" \
		    "ofl-search $big '$q'" "rg -i '$pat' $work/big.log" \
		    >/dev/null 2>&1
		jq -r --arg q "$q" '"\($q)\t\(.results[0].median * 1000)\t\(.results[1].median * 1000)"' \
		    "$work/h.json"
	done | awk -F '\t' '{
		printf "%-26s ofl-search %6.1f ms   rg %6.1f ms   %s\n", $1,
		    $2, $3, $2 < $3 ? "faster" : "SLOWER"
	}'
else
	echo "skipped: hyperfine or rg missing (apt-get install hyperfine ripgrep)"
fi
