#!/bin/sh
#
# t4003-schema-memory: a large input is streamed, never loaded whole:
# ofl-schema describes ~150 MB of NDJSON under a 128 MiB address-space
# limit, and its peak RSS stays under 64 MiB, even when every record
# brings new keys (the path limit bounds the tree).

. "$(dirname "$0")/lib.sh"

# A sanitizer build reserves terabytes of address space: skip there.
if ! (ulimit -v 131072 && ofl-schema --help) >/dev/null 2>&1; then
	test_skip_all 'ofl-schema does not run under ulimit -v'
fi

# peak_kb CMD...: run CMD, print its peak RSS in KiB (GNU time).
peak_kb() {
	/usr/bin/time -f "%M" -o rss "$@" >/dev/null 2>&1 || return 1
	tail -n 1 rss
}

test_expect_success 'capture 150 MB of NDJSON' '
	awk "BEGIN { for (i = 0; i < 1000000; i++)
	    printf \"{\\\"id\\\":%d,\\\"name\\\":\\\"user-%d\\\",\\\"t\\\":\\\"2024-01-02T03:04:05Z\\\",\\\"tags\\\":[\\\"a\\\",\\\"b\\\"],\\\"pad\\\":\\\"%070d\\\"}\n\", i, i, i }" |
	    ofl-schema >shape &&
	printf "%s\n" "{id: integer 0..999999, name: string, t: \"2024-01-02T03:04:05Z\", tags: [\"a\" (1000000)|\"b\" (1000000)] x2," \
	    "  pad: string} x1,000,000 values" >expect &&
	test_cmp expect shape
'

test_expect_success 'described under a 128 MiB address-space limit' '
	(ulimit -v 131072 && ofl-schema -J -c @ >schema) &&
	grep -q "\"required\":\\[\"id\",\"name\",\"pad\",\"t\",\"tags\"\\]" schema
'

test_expect_success '/usr/bin/time' 'peak RSS under 64 MiB' '
	kb=$(peak_kb ofl-schema @) &&
	echo "peak RSS $kb KiB" &&
	test "$kb" -lt 65536
'

test_expect_success '/usr/bin/time' 'new keys in every record: bounded too' '
	awk "BEGIN { for (i = 0; i < 300000; i++)
	    printf \"{\\\"k%d\\\":%d,\\\"v\\\":\\\"x\\\"}\n\", i, i }" >keys.ndjson &&
	ofl-schema <keys.ndjson >/dev/null 2>err &&
	grep -q "250002 values beyond 50000 distinct paths left out" err &&
	kb=$(peak_kb ofl-schema @) &&
	echo "peak RSS $kb KiB" &&
	test "$kb" -lt 65536
'

test_done
