#!/bin/sh
#
# bench-schema.sh: ofl-schema on a generated 200 MiB JSON array of
# objects, against genson-js when npm can install it.  Prints the times
# (hyperfine if present), the throughput and the peak RSS.
#
# usage: tests/bench-schema.sh [MiB]     (run from the build directory)

set -e
MIB=${1:-200}
BUILD=${OFL_BUILDDIR:-$(pwd)}
PATH="$BUILD:$PATH"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ofl-bench-schema.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OFL_STORE=$WORK/store
export OFL_STORE LC_ALL=C

echo "== generating a $MIB MiB JSON array of objects"
awk -v max=$((MIB * 1024 * 1024)) 'BEGIN {
	split("Running Pending Failed", ph, " ");
	printf "[";
	for (i = 0; size < max; i++) {
		s = sprintf("%s{\"id\":%d,\"name\":\"user-%d\",\"email\":" \
		    "\"user%d@example.com\",\"active\":%s,\"score\":%d.%d," \
		    "\"tags\":[\"alpha\",\"beta\"],\"created\":" \
		    "\"2024-01-%02dT10:00:00Z\",\"status\":{\"phase\":\"%s\"," \
		    "\"restarts\":%d},\"note\":%s}", i ? "," : "", i, i, i,
		    i % 3 ? "true" : "false", i % 100, i % 7, i % 28 + 1,
		    ph[i % 3 + 1], i % 5,
		    i % 10 ? "\"hello \\\"world\\\" \\u00e9\"" : "null");
		printf "%s", s;
		size += length(s);
	}
	print "]";
}' >"$WORK/big.json"
BYTES=$(wc -c <"$WORK/big.json")
echo "$BYTES bytes"

echo "== capturing it (not timed)"
ofl-schema <"$WORK/big.json" >"$WORK/shape"
cat "$WORK/shape"

echo "== ofl-schema -J @ and ofl-schema @ (shape)"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -w 1 -r 5 "ofl-schema -J @ >/dev/null" \
	    "ofl-schema @ >/dev/null"
fi
start=$(date +%s.%N)
ofl-schema -J @ >"$WORK/ofl.json"
end=$(date +%s.%N)
echo "$BYTES $start $end" | awk '{ printf "ofl-schema -J: %.2f s, %.0f MB/s\n",
    $3 - $2, $1 / ($3 - $2) / 1e6 }'
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v ofl-schema -J @ 2>&1 >/dev/null |
	    grep -E "Maximum resident|Elapsed" | sed 's/^[ \t]*/ofl-schema: /'
fi

echo "== genson-js"
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
    (cd "$WORK" && npm install --silent genson-js >/dev/null 2>&1); then
	cat >"$WORK/genson.js" <<'EOF'
const { createSchema } = require('genson-js');
const data = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
process.stdout.write(JSON.stringify(createSchema(data)) + '\n');
EOF
	if command -v hyperfine >/dev/null 2>&1; then
		(cd "$WORK" && hyperfine -w 1 -r 3 \
		    "node genson.js big.json >/dev/null")
	fi
	if [ -x /usr/bin/time ]; then
		(cd "$WORK" && /usr/bin/time -v node genson.js big.json \
		    2>&1 >genson.json | grep -E "Maximum resident|Elapsed" |
		    sed 's/^[ \t]*/genson-js: /')
	else
		(cd "$WORK" && node genson.js big.json >genson.json)
	fi
	if command -v jq >/dev/null 2>&1; then
		norm='del(."$schema") | walk(if type == "object" then
		    (if (.type|type) == "array" then .type |= sort else . end)
		    | (if .required then .required |= sort else . end)
		    else . end)'
		jq -S "$norm" "$WORK/ofl.json" >"$WORK/a"
		jq -S "$norm" "$WORK/genson.json" >"$WORK/b"
		if cmp -s "$WORK/a" "$WORK/b"; then
			echo "schemas agree (normalized)"
		else
			echo "schemas differ:"
			diff "$WORK/a" "$WORK/b" | head -n 20
		fi
	fi
else
	echo "genson-js not available (no node/npm or no registry): skipped"
fi
