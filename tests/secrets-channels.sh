# secrets-channels.sh: runs each row of tests/data/secrets/table.tsv
# through every way ofl prints what it stores, and judges each output.
# Sourced by tests/t7000-secrets.sh (which asserts) and
# tests/bench-secrets.sh (which counts); both need jq.
#
# A secret row passes a channel when its NEEDLE (the secret) is gone from
# the output and a "[redacted: KIND]" mask is there; a near-miss row when
# its NEEDLE is still there, as many times as the channel shows the line.
# A schema shows no value longer than 40 bytes: such rows are skipped
# there.
#
# secrets_run DIR writes DIR/CHANNEL for each channel: one line a row,
# "pass|fail|skip TYPE NAME".  The outputs stay in DIR/out/NAME.CHANNEL.

SECRETS_DATA=$OFL_SRCDIR/tests/data/secrets
SECRETS_CHANNELS="notice passthrough snippet snippet-json extract-n
extract-n-json extract-e jq jq-raw schema-json schema-csv listing
listing-json mcp-extract mcp-search mcp-list diff diff-json"

# secrets_text LINE: the row's text; "@FILE" is that file of the data.
secrets_text() {
	case $1 in
	@*) cat "$SECRETS_DATA/${1#@}" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# secrets_call ID TOOL ARGUMENTS: an MCP tools/call line.
secrets_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call",%s\n' "$1" \
	    "\"params\":{\"name\":\"$2\",\"arguments\":$3}}"
}

# secrets_text_of ID FILE: the text of the answer to call ID.
secrets_text_of() {
	jq -r --argjson id "$1" 'select(.id == $id) |
	    .result.content[0].text // empty' "$2"
}

# secrets_id: the ID of the reference line on stdin.
secrets_id() {
	sed -n '1s/^ofl:\([a-z0-9]*\) .*/\1/p'
}

secrets_run() {
	_d=$1
	mkdir -p "$_d/out"
	grep -v '^#' "$SECRETS_DATA/table.tsv" >"$_d/table"
	: >"$_d/rows.ndjson"
	: >"$_d/mcp.in"
	# The large text of each row (secrets_row) with no row in it.
	{
		seq -f 'filler line %g' 3000
		seq -f 'more filler %g' 8
	} | ofl-capture -q -T 0 | sed 's/^ofl://' >"$_d/before"
	_i=0
	while IFS='	' read -r _type _name _line _needle; do
		_i=$((_i + 1))
		secrets_row "$_d" "$_i" "$_name" "$_line" </dev/null
	done <"$_d/table"
	secrets_batch "$_d"
	secrets_judge_all "$_d"
}

# One row: the channels that need an artifact or a command of their own.
secrets_row() {
	_d=$1 _i=$2 _n=$3 _l=$4
	_o=$_d/out/$_n
	_text=$(secrets_text "$_l")

	# The listing (judged in secrets_batch): a command line with the row.
	ofl-capture -- echo "zqrow-$_i-" "$_text" >/dev/null 2>>"$_d/stderr"

	# Passthrough: small output printed as it is.
	printf '%s\n' "$_text" | ofl-capture >"$_o.passthrough" 2>>"$_d/stderr"

	# A large text with the row first, in the middle and last: the
	# notice shows it in its head and its tail.  It is written to a file
	# first, so that a slow writer on a busy machine does not make the
	# capture pass the output through as it comes.
	{
		printf '%s\n' "$_text"
		seq -f 'filler line %g' 3000
		printf 'zqcase %s\n' "$_text"
		seq -f 'more filler %g' 8
		printf '%s\n' "$_text"
	} >"$_d/large"
	ofl-capture <"$_d/large" >"$_o.notice" 2>>"$_d/stderr"
	_id=$(secrets_id <"$_o.notice")
	ofl-search "$_id" zqcase >"$_o.snippet" 2>>"$_d/stderr"
	ofl-search -j "$_id" zqcase >"$_o.snippet-json" 2>>"$_d/stderr"
	ofl-extract "$_id" -n -5 >"$_o.extract-n" 2>>"$_d/stderr"
	ofl-extract -j "$_id" -n -5 >"$_o.extract-n-json" 2>>"$_d/stderr"
	ofl-extract "$_id" -e zqcase >"$_o.extract-e" 2>>"$_d/stderr"
	# What changed since the same text without the row (secrets_run).
	ofl-diff "$(cat "$_d/before")" "$_id" >"$_o.diff" 2>>"$_d/stderr"
	ofl-diff -j "$(cat "$_d/before")" "$_id" >"$_o.diff-json" \
	    2>>"$_d/stderr"
	# The MCP calls of every row go to one ofl-mcp (secrets_batch).
	secrets_call $((2 * _i - 1)) ofl_extract \
	    "{\"id\":\"$_id\",\"lines\":[\"-5\"]}" >>"$_d/mcp.in"
	secrets_call $((2 * _i)) ofl_search \
	    "{\"ids\":[\"$_id\"],\"query\":\"zqcase\"}" >>"$_d/mcp.in"

	jq -cn --arg i "$_i" --arg l "$_text" '{i: $i, line: $l}' \
	    >>"$_d/rows.ndjson"
}

# The channels that one artifact or one command serves for all rows,
# their outputs cut into one file a row.
secrets_batch() {
	_d=$1

	# Every row's calls to one ofl-mcp, which runs --jobs of them at a
	# time; with no budget for the answers together, so that each row's
	# answer is judged, not a notice that offloads it.
	OFL_COMBINED=1000000000 ofl-mcp <"$_d/mcp.in" >"$_d/mcp.out" \
	    2>/dev/null
	_i=0
	while IFS='	' read -r _type _name _line _needle; do
		_i=$((_i + 1))
		secrets_text_of $((2 * _i - 1)) "$_d/mcp.out" \
		    >"$_d/out/$_name.mcp-extract"
		secrets_text_of $((2 * _i)) "$_d/mcp.out" \
		    >"$_d/out/$_name.mcp-search"
	done <"$_d/table"

	ofl-search -n 1000 >"$_d/listing" 2>>"$_d/stderr"
	ofl-search -j -n 1000 >"$_d/listing-json" 2>>"$_d/stderr"
	secrets_call 1 ofl_list '{"limit":1000}' | ofl-mcp 2>/dev/null |
	    jq -r '.result.content[0].text' >"$_d/mcp-list"

	# JSON holding every row: jq filters, a schema.
	jq -s '{rows: .}' "$_d/rows.ndjson" | ofl-capture >/dev/null 2>>"$_d/stderr"
	ofl-extract --max-bytes 0 -c @ '.rows[]' >"$_d/jq" 2>>"$_d/stderr"
	ofl-extract --max-bytes 0 -r @ '.rows[] | "zqrow-\(.i)-", .line' \
	    >"$_d/jq-raw" 2>>"$_d/stderr"
	jq -s 'map({key: "r\(.i)", value: .line}) | from_entries' \
	    "$_d/rows.ndjson" | ofl-capture >/dev/null 2>>"$_d/stderr"
	ofl-schema -m 0 -j @ >"$_d/schema-json" 2>>"$_d/stderr"

	# CSV: a column a row; the schema's examples hold whole values.
	jq -rs '(map("r\(.i)") | join(",")),
	    (map("\"" + (.line | gsub("\""; "\"\"")) + "\"") | join(","))' \
	    "$_d/rows.ndjson" | ofl-capture >/dev/null 2>>"$_d/stderr"
	ofl-schema -m 0 -j @ >"$_d/schema-csv" 2>>"$_d/stderr"

	awk -F'\t' -v d="$_d" '
	function out(row) {
		f = d "/out/" name[row] "." ch
		print >> f
		close(f)	# a file a row and channel: too many to keep open
	}
	FILENAME == d "/table" { name[++n] = $2; next }
	FNR == 1 { ch = FILENAME; sub(".*/", "", ch); row = 0; k = 0 }
	ch ~ /^(listing|listing-json|mcp-list)$/ {
		if (match($0, /zqrow-[0-9]+-/))
			out(substr($0, RSTART + 6, RLENGTH - 7) + 0)
		next
	}
	ch == "jq" { out(++k); next }
	ch == "jq-raw" {
		if ($0 ~ /^zqrow-[0-9]+-$/)
			row = substr($0, 7, length($0) - 7) + 0
		else if (row)
			out(row)
		next
	}
	ch == "schema-json" && match($0, /"path":"\.r[0-9]+"/) {
		out(substr($0, RSTART + 10, RLENGTH - 11) + 0)
		next
	}
	ch == "schema-csv" && match($0, /"column":"r[0-9]+"/) {
		out(substr($0, RSTART + 11, RLENGTH - 12) + 0)
		next
	}' "$_d/table" "$_d/listing" "$_d/listing-json" "$_d/mcp-list" \
	    "$_d/jq" "$_d/jq-raw" "$_d/schema-json" "$_d/schema-csv"
}

# Judge every output at once (one awk, not a process an output).
secrets_judge_all() {
	_d=$1
	awk -F'\t' -v d="$_d" -v chans="$SECRETS_CHANNELS" '
	function count(s, t,    n, i) {
		n = 0
		while ((i = index(s, t)) > 0) {
			n++
			s = substr(s, i + length(t))
		}
		return n
	}
	BEGIN { nc = split(chans, ch, /[ \n]+/) }
	{
		for (c = 1; c <= nc; c++) {
			f = d "/out/" $2 "." ch[c]
			text = ""
			while ((getline line < f) > 0)
				text = text line "\n"
			close(f)
			times = ch[c] == "notice" ? 2 : 1
			v = "fail"
			if (ch[c] == "schema-json" && index(text, "\"values\"") == 0)
				v = "skip"
			else if ($1 == "S") {
				if (count(text, $4) == 0 &&
				    index(text, "[redacted: ") > 0)
					v = "pass"
			} else if (count(text, $4) >= times)
				v = "pass"
			print v, $1, $2 > (d "/" ch[c])
		}
	}' "$_d/table"
}
