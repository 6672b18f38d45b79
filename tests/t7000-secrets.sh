#!/bin/sh
# t7000: secrets are masked in everything ofl prints (notices, snippets,
# extracts, schemas, listings, --json, MCP results), near-misses are not,
# and --no-redact shows them.  The table of synthetic secrets is
# tests/data/secrets/table.tsv; tests/secrets-channels.sh runs it.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/secrets-channels.sh"

test_have_prereq JQ || test_skip_all "jq is needed"

S=$DATA/secrets

# body FILE: the base64 lines of a PEM file, the secret part of a key.
body() {
	grep -v -e '^-----' "$1"
}

# no_body FILE OUTPUT: no line of the key's body is in the output.
no_body() {
	body "$1" >body.lines &&
	! grep -F -f body.lines "$2"
}

test_expect_success 'the table: 30 secrets or more, 15 near-misses or more' '
	test $(grep -c "^S	" "$S/table.tsv") -ge 30 &&
	test $(grep -c "^N	" "$S/table.tsv") -ge 15 &&
	! grep -v "^#" "$S/table.tsv" | awk -F"\t" "NF != 4" | grep .
'

test_expect_success 'the table through every channel' '
	secrets_run "$TEST_DIR/t" &&
	for c in $SECRETS_CHANNELS; do
		test $(wc -l <"$TEST_DIR/t/$c") -eq \
		    $(grep -vc "^#" "$S/table.tsv") || return 1
	done
'

# One test a channel, so a failure names it and its rows.
for c in $SECRETS_CHANNELS; do
	test_expect_success "$c: each secret masked, each near-miss intact" "
		! grep -v -e '^pass ' -e '^skip ' '$TEST_DIR/t/$c'
	"
done

test_expect_success 'a notice whose tail starts inside a private key shows none of it' '
	{ seq 10000; cat "$S/fake-rsa.pem"; } | ofl-capture >notice &&
	grep "^--- tail" notice &&
	sed -n "/^--- tail/,\$p" notice >tail &&
	! grep -q "BEGIN RSA" tail &&
	grep "pem-body" tail &&
	no_body "$S/fake-rsa.pem" notice &&
	grep "^10027| -----END RSA PRIVATE KEY-----\$" notice
'

test_expect_success 'ofl-extract -n of the last lines of a key shows none of it' '
	ofl-extract @ -n -5 >out &&
	test $(wc -l <out) -eq 5 &&
	no_body "$S/fake-rsa.pem" out &&
	printf "10023\t[redacted: pem-body]\n" >expect &&
	head -n 1 out >first &&
	test_cmp expect first &&
	ofl-extract @ -n 10020-10028 >out &&
	no_body "$S/fake-rsa.pem" out &&
	ofl-extract --no-redact @ -n -5 >raw &&
	tail -n 5 "$S/fake-rsa.pem" >expect &&
	cut -f 2- raw >got &&
	test_cmp expect got
'

test_expect_success 'a snippet that starts inside a key shows none of it' '
	ofl-search @ END >out &&
	grep "^  10027: -----END RSA PRIVATE KEY-----\$" out &&
	grep "pem-body" out &&
	no_body "$S/fake-rsa.pem" out &&
	ofl-search -j @ END >out &&
	no_body "$S/fake-rsa.pem" out
'

test_expect_success 'an OpenSSH key (70 columns) in a tail' '
	{ seq 10000; cat "$S/fake-openssh.pem"; } | ofl-capture >notice &&
	no_body "$S/fake-openssh.pem" notice &&
	ofl-extract @ -n -3 >out &&
	no_body "$S/fake-openssh.pem" out
'

test_expect_success 'a certificate whose BEGIN line is seen is left alone' '
	{ seq 100; cat "$S/fake-cert.pem"; seq 100; } | ofl-capture >/dev/null &&
	ofl-extract @ -n 101-121 >out &&
	cut -f 2- out >got &&
	test_cmp "$S/fake-cert.pem" got
'

test_expect_success 'base64 wrapped at 76 columns is left alone' '
	head -c 3000 "$S/fake-cert.pem" | base64 >b64 &&
	{ seq 5000; cat b64; } | ofl-capture >/dev/null &&
	ofl-extract @ -n 5001- >out &&
	cut -f 2- out >got &&
	test_cmp b64 got
'

test_expect_success 'the listing masks Bearer and GitHub tokens in the command' '
	cmd="echo curl -H \"Authorization: Bearer Zm9vYmFyYmF6cXV4MTIzNDU2\""
	cmd="$cmd https://api.example.com; echo ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
	ofl-capture -- sh -c "$cmd" >/dev/null &&
	ofl-search -n 1 >list &&
	! grep -e Zm9vYmFyYmF6cXV4MTIzNDU2 -e ghp_Ab3d list &&
	grep "Bearer \[redacted: bearer-token\]" list &&
	grep "\[redacted: github-token\]" list &&
	ofl-search -j -n 1 >list.json &&
	! grep -e Zm9vYmFyYmF6cXV4MTIzNDU2 -e ghp_Ab3d list.json &&
	secrets_call 1 ofl_list "{\"limit\":1}" | ofl-mcp >mcp &&
	secrets_text_of 1 mcp >mcp.text &&
	grep "Bearer \[redacted: bearer-token\]" mcp.text &&
	! grep -e Zm9vYmFyYmF6cXV4MTIzNDU2 -e ghp_Ab3d mcp.text &&
	ofl-search --no-redact -n 1 >raw &&
	grep Zm9vYmFyYmF6cXV4MTIzNDU2 raw &&
	OFL_REDACT=off ofl-search -n 1 >raw &&
	grep ghp_Ab3d raw
'

cat >users.json <<'EOF'
[{"user": "bob", "password": "hunter2hunter2", "api_key": "k3y-0f-b0b"},
 {"user": "al", "password": "Tr0ub4dor&3", "api_key": "k3y-0f-al"}]
EOF

test_expect_success 'ofl-schema -j masks the values of secret keys' '
	ofl-capture <users.json >/dev/null &&
	ofl-schema -j @ >out &&
	! grep -e hunter2 -e Tr0ub4dor -e k3y-0f out &&
	grep "\"path\":\".\\[\\].password\",.*\"values\":{\"\\[redacted: secret\\]\":2}" out &&
	grep "\"values\":{\"bob\":1,\"al\":1}" out &&
	ofl-schema @ >shape &&
	! grep -e hunter2 -e Tr0ub4dor -e k3y-0f shape &&
	grep "password: \"\\[redacted: secret\\]\"" shape &&
	ofl-schema --no-redact -j @ >raw &&
	grep "\"hunter2hunter2\":1" raw
'

test_expect_success 'ofl-schema masks CSV columns named like secrets' '
	printf "user,password,note\nbob,hunter2x,hi\nal,Tr0ub4dor,ok\n" |
	    ofl-capture >/dev/null &&
	ofl-schema -j @ >out &&
	! grep -e hunter2 -e Tr0ub4dor out &&
	grep "\"column\":\"password\",.*\"max_length\":9,.*\"examples\":\\[\"\\[redacted: secret\\]\"\\]" out &&
	ofl-schema @ >shape &&
	! grep -e hunter2 -e Tr0ub4dor shape &&
	OFL_REDACT=off ofl-schema -j @ >raw &&
	grep hunter2x raw
'

test_expect_success 'the changes since the last run mask the secrets that changed, numbered' '
	t1=ghp_abcdefghijklmnopqrstuvwxyz0123456789 &&
	t2=ghp_zyxwvutsrqponmlkjihgfedcba9876543210 &&
	{ echo "line one" && echo "export API_TOKEN=$t1" &&
	    seq 1 3000 | sed "s/^/filler line number /"; } >run.txt &&
	ofl-capture --changes -- cat run.txt >/dev/null &&
	sed -i "s/$t1/$t2/" run.txt &&
	ofl-capture --changes -- cat run.txt >out &&
	grep "^changes since ofl:" out &&
	! grep -e "$t1" -e "$t2" out &&
	grep "^-export API_TOKEN=\[redacted: github-token #1\]\$" out &&
	grep "^+export API_TOKEN=\[redacted: github-token #2\]\$" out &&
	sed -i "s/$t2/$t1/" run.txt &&
	ofl-capture -j --changes -- cat run.txt >out.json &&
	! grep -e "$t1" -e "$t2" out.json &&
	grep "redacted: github-token #1" out.json
'

test_done
