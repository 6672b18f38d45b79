#!/bin/sh
#
# t4000-schema: JSON Schemas and shapes of real JSON, checked against
# golden files (the schemas agree with genson-js once its known
# differences from Python genson are normalized: unsorted type lists and
# required keys, fixed anyOf order).

. "$(dirname "$0")/lib.sh"

SD=$DATA/schema

# describe NAME: capture tests/data/json/NAME.* and describe it three ways.
describe() {
	f=$(ls "$DATA"/json/"$1".*) &&
	ofl-schema -J <"$f" >"$1.schema.json" &&
	ofl-schema @ >"$1.shape" &&
	ofl-schema -j -m 0 @ | sed 's/^{"id":"[^"]*",/{/' >"$1.jsonl"
}

for name in dependabot-github-commits dependabot-github-releases \
    holmesgpt-list_prometheus_rules; do
	test_expect_success "$name: JSON Schema, shape and JSON Lines" "
		describe $name &&
		test_cmp \"\$SD/$name.schema.json\" $name.schema.json &&
		test_cmp \"\$SD/$name.shape\" $name.shape &&
		test_cmp \"\$SD/$name.jsonl\" $name.jsonl
	"
done

test_expect_success 'dependabot-npm-lodash: JSON Schema and shape' '
	describe dependabot-npm-lodash &&
	gzip -dc "$SD/dependabot-npm-lodash.schema.json.gz" >expect &&
	test_cmp expect dependabot-npm-lodash.schema.json &&
	test_cmp "$SD/dependabot-npm-lodash.shape" dependabot-npm-lodash.shape
'

test_expect_success JQ 'schemas are JSON, pretty exactly as jq prints them' '
	for f in *.schema.json; do
		jq . "$f" >pretty &&
		test_cmp pretty "$f" || return 1
	done
'

test_expect_success JQ '-c prints the same schema on one line' '
	ofl-schema -J -c @ >compact &&
	test "$(wc -l <compact)" -eq 1 &&
	jq -S . compact >a &&
	jq -S . dependabot-npm-lodash.schema.json >b &&
	test_cmp b a
'

test_expect_success JQ 'JSON Lines: one object per path, each with the id' '
	ofl-schema -j -m 0 @ >lines &&
	jq -e "select(.id == null or .path == null)" lines >bad;
	test ! -s bad &&
	jq -r .path lines | head -n 4 >paths &&
	printf "%s\n" . ._id ._rev .name >expect &&
	test_cmp expect paths &&
	jq -c "select(.path == \".versions\")" lines |
	    sed "s/^{\"id\":\"[^\"]*\",/{/" >versions &&
	echo "{\"path\":\".versions\",\"count\":1,\"present\":1,\"parents\":1,\"types\":{\"object\":1},\"keys\":114}" >expect &&
	test_cmp expect versions
'

test_expect_success JQ 'JSON Lines within the budget, then what was left out' '
	ofl-schema -j @ >capped &&
	sed "\$d" capped >shown &&
	test "$(wc -c <shown)" -le 4096 &&
	n=$(wc -l <shown) && all=$(wc -l <lines) &&
	head -n "$n" lines | cmp - shown &&
	tail -n 1 capped | jq -c "del(.id)" >last &&
	id=$(head -n 1 lines | jq -r .id) &&
	echo "{\"omitted\":\"lines $((n + 1))-$all of $all over the budget\",\"command\":\"ofl-schema $id -j -m 0\"}" >expect &&
	test_cmp expect last
'

test_expect_success 'the shape of a small document' '
	printf "%s" "{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":{\"app\":\"x\"}},\"status\":{\"phase\":\"Running\"}},{\"metadata\":{\"name\":\"b\"},\"status\":{\"phase\":\"Pending\"}},{\"metadata\":{\"name\":\"c\"},\"status\":{\"phase\":\"Running\"}},{\"metadata\":{\"name\":\"d\"},\"status\":{\"phase\":\"Running\"}}],\"kind\":\"List\"}" >pods.json &&
	ofl-schema <pods.json >actual &&
	cat >expect <<-\EOT &&
	{apiVersion: "v1", items: [{metadata: {name: string, labels?: {app: "x"} 25%}, status: {phase: "Running" (3)|"Pending" (1)}}] x4,
	  kind: "List"}
	EOT
	test_cmp expect actual
'

test_expect_success '--max-bytes cuts deeper levels and says so' '
	ofl-schema --max-bytes 120 @ >actual &&
	cat >expect <<-\EOT &&
	{apiVersion: "v1", items: [{metadata: {...}, status: {...}}] x4, kind: "List"}
	(cut at depth 3: 2 containers elided)
	EOT
	test_cmp expect actual &&
	ofl-schema -m 0 @ >full &&
	ofl-schema -m 4k @ >same &&
	test_cmp full same
'

test_done
