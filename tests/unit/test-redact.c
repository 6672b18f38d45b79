/*
 * test-redact.c: realistic fake secrets are masked with their kind;
 * near-misses (hashes, UUIDs, base64 image data) are left alone.  All
 * the secrets are made up.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"

static char *
run(struct ofl_redactor *r, const char *in)
{
	struct ofl_buf	b;

	ofl_buf_init(&b);
	ofl_redact(r, in, strlen(in), &b);
	return ofl_buf_str(&b);
}

static const struct {
	const char	*in;
	const char	*out;
} cases[] = {
	{ "key AKIAIOSFODNN7EXAMPLE ok",
	  "key [redacted: aws-access-key] ok" },
	{ "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	  "aws_secret_access_key = [redacted: secret]" },
	{ "token ghp_1234567890abcdefghijklmnopqrstuvwxyz done",
	  "token [redacted: github-token] done" },
	{ "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
	  "[redacted: github-token]" },
	{ "export GITLAB=glpat-abcdefghij0123456789",
	  "export GITLAB=[redacted: gitlab-token]" },
	{ "slack xoxb-1234567890-abcdefghijklmnop",
	  "slack [redacted: slack-token]" },
	{ "url https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXX",
	  "url [redacted: slack-webhook]" },
	{ "stripe sk_live_abcdefghijklmnop1234",
	  "stripe [redacted: stripe-key]" },
	{ "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
	  "//registry.npmjs.org/:_authToken=[redacted: npm-token]" },
	{ "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	  "Authorization: Bearer [redacted: bearer-token]" },
	{ "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
	  "jwt=[redacted: jwt]" },
	{ "Authorization: Basic dXNlcjpwYXNzd29yZA==",
	  "Authorization: Basic [redacted: basic-auth]" },
	{ "postgres://admin:s3cr3tpass@db.example.com:5432/app",
	  "postgres://admin:[redacted: url-password]@db.example.com:5432/app" },
	{ "DB_PASSWORD=hunter2hunter2", "DB_PASSWORD=[redacted: secret]" },
	{ "{\"password\": \"correct horse\", \"user\": \"bob\"}",
	  "{\"password\": \"[redacted: secret]\", \"user\": \"bob\"}" },
	{ "client_secret: 'abc123def456'",
	  "client_secret: '[redacted: secret]'" },
	{ "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=bXlrZXlteWtleW15a2V5bXlrZXk=;EndpointSuffix=core.windows.net",
	  "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[redacted: secret];EndpointSuffix=core.windows.net" },
	{ "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n\", \"x\": 1}",
	  "{\"private_key\": \"[redacted: private-key]\", \"x\": 1}" },
	{ "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----\nafter\n",
	  "[redacted: private-key]\n[redacted: private-key]\n[redacted: private-key]\n-----END RSA PRIVATE KEY-----\nafter\n" },
	{ "gcp AIzaSyA1234567890abcdefghijklmnopqrstuv",
	  "gcp [redacted: gcp-api-key]" },
	{ "https://ghp_1234567890abcdefghijklmnopqrstuvwxyz:x-oauth-basic@github.com/o/r",
	  "https://[redacted: github-token]:[redacted: url-password]@github.com/o/r" },
	{ "https://AKIAIOSFODNN7EXAMPLE:pw12@host/x",
	  "https://[redacted: aws-access-key]:[redacted: url-password]@host/x" },
	/* A token inside the user part, after other bytes, is masked too. */
	{ "https://me+ghp_1234567890abcdefghijklmnopqrstuvwxyz:pw12@host/x",
	  "https://me+[redacted: github-token]:[redacted: url-password]@host/x" },
	/* And an assignment: the user part is masked as a line would be. */
	{ "https://api_token=abc123def456:pw12@host/x",
	  "https://api_token=[redacted: secret]:[redacted: url-password]@host/x" },
	{ "export OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f",
	  "export OPENAI_API_KEY=[redacted: openai-key]" },
	{ "key sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i end",
	  "key [redacted: openai-key] end" },
	{ "x sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-zyXWvuTsRq",
	  "x [redacted: anthropic-key]" },
	{ "login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	  "login --token [redacted: huggingface-token]" },
	{ "k 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",
	  "k [redacted: sendgrid-key]" },
	{ "mysqladmin --user=root --password=Wint3r-Sun status",
	  "mysqladmin --user=root --password=[redacted: secret] status" },
	{ "docker login --username ci --password Gr33nTea42 reg.example.com",
	  "docker login --username ci --password [redacted: secret] reg.example.com" },
	{ "curl -u deploy:Tr1cky-Pa55 https://ci.example.com/",
	  "curl -u deploy:[redacted: secret] https://ci.example.com/" },
	{ "curl --user deploy:Tr1cky-Pa55 https://ci.example.com/",
	  "curl --user deploy:[redacted: secret] https://ci.example.com/" },
	{ "mysql -h db -u app -pQu1etRiver77 appdb",
	  "mysql -h db -u app -p[redacted: secret] appdb" },
	{ "{\"body\":\"{\\\"token\\\":\\\"abc123def456\\\"}\"}",
	  "{\"body\":\"{\\\"token\\\":\\\"[redacted: secret]\\\"}\"}" },
	{ "{\"l\":\"{\\\\\\\"api_token\\\\\\\":\\\\\\\"nSxYCzrZbox00m\\\\\\\"}\"}",
	  "{\"l\":\"{\\\\\\\"api_token\\\\\\\":\\\\\\\"[redacted: secret]\\\\\\\"}\"}" },
	{ "MYSQL_PWD=s3cretpw mysql", "MYSQL_PWD=[redacted: secret] mysql" },
	{ "redis://:Sh4dowRedis99@cache.example.com:6379/0",
	  "redis://:[redacted: url-password]@cache.example.com:6379/0" },
	{ "Server=x;User ID=admin;Password=R3dCanyon!9;Encrypt=True;",
	  "Server=x;User ID=admin;Password=[redacted: secret];Encrypt=True;" },
	{ "-----BEGIN PGP PRIVATE KEY BLOCK-----",
	  "[redacted: private-key]" },
	/* A 64-column PEM body line seen without its BEGIN line. */
	{ "hbXrl84JlAEgp4TnXxUi6rKq4N6hIo2Qidsoph4Jg5xX/ThZqN3vlw7gkDCaNEzh\n"
	  "o0/kVLLkRqXuPWA8GLnjqJB/rWe8Qy9f8LKGwKs9dUvfONzrDSnqvfcPdvLypy+y\n"
	  "ndSwWJ48bpn0Cbhq8Q==\n-----END RSA PRIVATE KEY-----\nafter\n",
	  "[redacted: pem-body]\n[redacted: pem-body]\n[redacted: pem-body]\n"
	  "-----END RSA PRIVATE KEY-----\nafter\n" },
	/* What is printed after a key's body is not taken for it. */
	{ "hbXrl84JlAEgp4TnXxUi6rKq4N6hIo2Qidsoph4Jg5xX/ThZqN3vlw7gkDCaNEzh\n"
	  "8SFw==\nDone\n1234\n",
	  "[redacted: pem-body]\n[redacted: pem-body]\nDone\n1234\n" },
	/* A private key header in a string cut short: this line only. */
	{ "{\"x\":\"-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\nnext line\n",
	  "{\"x\":\"[redacted: private-key]\nnext line\n" },
	/* Near-misses. */
	{ "PWD=/home/alice/src", NULL },
	{ "OLDPWD=/home/alice", NULL },
	{ "password_reset_url=https://example.com/reset", NULL },
	{ "cat /etc/passwd | cut -d: -f1", NULL },
	{ "passwd:         files systemd", NULL },
	{ "--password-file=/run/secrets/db_password", NULL },
	{ "token_count: 123", NULL },
	{ "docker run -u 1000:1000 alpine", NULL },
	{ "ssh -p 2222 deploy@bastion", NULL },
	{ "mysql -p appdb", NULL },
	{ "hf_hub_download(repo_id=\"gpt2\")", NULL },
	{ "pip install scikit-learn sk-video", NULL },
	{ "password: string", NULL },
	{ "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", NULL },
	{ "TG9yZW0gaXBzdW0gZG9sb3Igc2l0IGFtZXQsIGNvbnNlY3RldHVyIGFkaXBpc2NpbmcgZWxpdCwg", NULL },
	/* A certificate whose BEGIN line is seen is no secret. */
	{ "-----BEGIN CERTIFICATE-----\n"
	  "hbXrl84JlAEgp4TnXxUi6rKq4N6hIo2Qidsoph4Jg5xX/ThZqN3vlw7gkDCaNEzh\n"
	  "ndSwWJ48bpn0Cbhq==\n-----END CERTIFICATE-----\n", NULL },
	/* Near-misses: left alone. */
	{ "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	  NULL },
	{ "id 123e4567-e89b-12d3-a456-426614174000", NULL },
	{ "img data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	  NULL },
	{ "max_tokens=4096 password_policy is strict", NULL },
	{ "if (password == expected) {", NULL },
	{ "http://example.com:8080/path?q=1", NULL },
	{ "AKIAIOSFODNN7EXAMPLEX is too long", NULL },
	{ "commit 5d41402abc4b2a76b9719d911017c592 author Bob", NULL },
	{ "password: ${DB_PASSWORD}", NULL },
};

int
main(void)
{
	struct ofl_redactor	*r;
	char			*got;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = ofl_redactor_new();
		got = run(r, cases[i].in);
		is_str(got, cases[i].out != NULL ? cases[i].out : cases[i].in,
		    "case %zu", i);
		ofl_redactor_free(r);
		free(got);
	}
	r = ofl_redactor_new();
	got = run(r, "a\nb AKIAIOSFODNN7EXAMPLE\n\nc\n");
	is_str(got, "a\nb [redacted: aws-access-key]\n\nc\n",
	    "line structure kept");
	ok(ofl_redactor_count(r) == 1, "one mask counted");
	free(got);
	ofl_redactor_free(r);
	return done_testing();
}
