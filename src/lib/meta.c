/*
 * meta.c: an artifact's metadata as ofl shows it, as JSON (the listing,
 * ofl-capture --json and the JSON notice share it).  Its command is
 * masked for secrets, so this sits above redact.c and not in the base
 * with render.c: it belongs with the store, whose struct it prints.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofl.h"
#include "banned.h"

static void	put_time(struct ofl_buf *, int64_t);

void
ofl_meta_mask(const char *s, struct ofl_buf *t)
{
	struct ofl_redactor	*red;

	if (ofl_redact_wanted() && (red = ofl_redactor_new()) != NULL) {
		ofl_redact(red, s, strlen(s), t);
		ofl_redactor_free(red);
	} else
		ofl_buf_adds(t, s);
}

static void
put_time(struct ofl_buf *b, int64_t ms)
{
	struct tm	tm;
	time_t		t;
	char		s[32];

	if (ms <= 0) {
		ofl_buf_adds(b, "null");
		return;
	}
	t = (time_t)(ms / 1000);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		ofl_buf_adds(b, "null");
		return;
	}
	ofl_buf_addf(b, "\"%s\"", s);
}

void
ofl_meta_json_fields(struct ofl_buf *b, const struct ofl_meta *m)
{
	ofl_buf_adds(b, "\"id\":");
	ofl_buf_add_json_cstr(b, m->id);
	ofl_buf_addf(b, ",\"ref\":\"ofl:");
	ofl_buf_add(b, m->id, strlen(m->id));
	ofl_buf_adds(b, "\",\"kind\":");
	ofl_buf_add_json_cstr(b, ofl_kind_name(m->kind));
	ofl_buf_addf(b, ",\"bytes\":%llu,\"lines\":%llu,\"stored\":%llu",
	    (unsigned long long)m->bytes, (unsigned long long)m->lines,
	    (unsigned long long)m->stored);
	ofl_buf_adds(b, ",\"hash\":");
	ofl_buf_add_json_cstr(b, m->hash[0] != '\0' ? m->hash : NULL);
	ofl_buf_adds(b, ",\"created\":");
	put_time(b, m->created);
	ofl_buf_adds(b, ",\"used\":");
	put_time(b, m->used);
	ofl_buf_adds(b, ",\"expires\":");
	put_time(b, m->expires);
	ofl_buf_adds(b, ",\"label\":");
	ofl_buf_add_json_cstr(b, m->label);
	ofl_buf_adds(b, ",\"command\":");
	if (m->command != NULL) {
		struct ofl_buf t;

		ofl_buf_init(&t);
		ofl_meta_mask(m->command, &t);
		ofl_buf_add_json_str(b, t.data != NULL ? t.data : "", t.len);
		ofl_buf_free(&t);
	} else
		ofl_buf_adds(b, "null");
	ofl_buf_adds(b, ",\"cwd\":");
	ofl_buf_add_json_cstr(b, m->cwd);
	ofl_buf_adds(b, ",\"session\":");
	ofl_buf_add_json_cstr(b, m->session);
	if (m->has_exit)
		ofl_buf_addf(b, ",\"exit\":%d", m->exit_status);
	else
		ofl_buf_adds(b, ",\"exit\":null");
	if (m->duration_ms >= 0)
		ofl_buf_addf(b, ",\"duration_ms\":%lld",
		    (long long)m->duration_ms);
	else
		ofl_buf_adds(b, ",\"duration_ms\":null");
	ofl_buf_addf(b, ",\"writing\":%s,\"incomplete\":%s,\"errors\":%llu,"
	    "\"warnings\":%llu", m->state != OFL_STATE_COMPLETE &&
	    !m->incomplete ? "true" : "false", m->incomplete ? "true" :
	    "false", (unsigned long long)m->errors,
	    (unsigned long long)m->warnings);
	if (m->first_error > 0)
		ofl_buf_addf(b, ",\"first_error\":%llu",
		    (unsigned long long)m->first_error);
	else
		ofl_buf_adds(b, ",\"first_error\":null");
}

void
ofl_meta_json(struct ofl_buf *b, const struct ofl_meta *m)
{
	ofl_buf_addc(b, '{');
	ofl_meta_json_fields(b, m);
	ofl_buf_adds(b, "}\n");
}
