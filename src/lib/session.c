/*
 * session.c: what one session offloaded, in a few lines, for an agent
 * whose context was compacted: a line per artifact (its reference, kind,
 * size, label and command, exit status, the signature of its first error)
 * and what the session saved, the bytes stored against the bytes printed
 * in their place (the notices).
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define SIG_MAX		160	/* bytes of an error signature shown */

struct ids {
	char	**v;
	size_t	  n;
};

static int	 collect(const struct ofl_meta *, void *);
static void	 cell(struct ofl_buf *, const char *, size_t);
static void	 first_sig(struct ofl_store *, const struct ofl_meta *,
		    struct ofl_buf *);
static void	 line_text(struct ofl_buf *, const struct ofl_meta *,
		    const struct ofl_buf *);
static void	 line_json(struct ofl_buf *, const struct ofl_meta *,
		    const struct ofl_buf *);

static int
collect(const struct ofl_meta *m, void *arg)
{
	struct ids	*ids = arg;

	ids->v = ofl_xrealloc(ids->v, (ids->n + 1) * sizeof *ids->v);
	ids->v[ids->n++] = ofl_xstrdup(m->id);
	return 0;
}

/* Text made safe to show on one line, secrets masked. */
static void
cell(struct ofl_buf *out, const char *s, size_t max)
{
	struct ofl_redactor	*rd;
	struct ofl_buf		 t, r;
	size_t			 i;

	ofl_buf_init(&t);
	ofl_buf_init(&r);
	if (ofl_redact_wanted() && (rd = ofl_redactor_new()) != NULL) {
		ofl_redact(rd, s, strlen(s), &r);
		ofl_redactor_free(rd);
		s = ofl_buf_str(&r);
	}
	ofl_render_safe(&t, (const unsigned char *)s, strlen(s), max);
	for (i = 0; i < t.len; i++)
		if (t.data[i] == '\t' || t.data[i] == '\n')
			t.data[i] = ' ';
	ofl_buf_add(out, t.data, t.len);
	ofl_buf_free(&t);
	ofl_buf_free(&r);
}

/* The signature of the artifact's first error line, if it has one. */
static void
first_sig(struct ofl_store *st, const struct ofl_meta *m,
    struct ofl_buf *out)
{
	struct ofl_reader	*r;
	char			 line[4096], *nl;
	ssize_t			 n;

	if (m->errors == 0 || m->first_error == 0)
		return;
	if ((r = ofl_reader_open(st, m->id)) == NULL)
		return;
	if (ofl_reader_seek_line(r, m->first_error) != -1 &&
	    (n = ofl_reader_read_full(r, line, sizeof line - 1)) > 0) {
		line[n] = '\0';
		if ((nl = memchr(line, '\n', (size_t)n)) != NULL)
			n = nl - line;
		ofl_fmt_log_mask(out, line, (size_t)n);
	}
	ofl_reader_close(r);
}

/* ofl:ID  KIND  SIZE  LABEL: COMMAND  exit N  error: SIGNATURE */
static void
line_text(struct ofl_buf *out, const struct ofl_meta *m,
    const struct ofl_buf *sig)
{
	char	size[32];

	ofl_fmt_size(size, sizeof size, m->bytes);
	ofl_buf_addf(out, "ofl:%s  %s  %s  ", m->id, ofl_kind_name(m->kind),
	    size);
	if (m->label != NULL && *m->label != '\0') {
		cell(out, m->label, 100);
		if (m->command != NULL && *m->command != '\0')
			ofl_buf_adds(out, ": ");
	}
	if (m->command != NULL && *m->command != '\0')
		cell(out, m->command, 200);
	else if (m->label == NULL || *m->label == '\0')
		ofl_buf_adds(out, "-");
	if (m->has_exit && m->exit_status != 0)
		ofl_buf_addf(out, "  exit %d", m->exit_status);
	if (m->incomplete)
		ofl_buf_adds(out, "  incomplete");
	if (sig->len > 0) {
		ofl_buf_adds(out, "  error: ");
		cell(out, ofl_buf_str((struct ofl_buf *)sig), SIG_MAX);
	}
	ofl_buf_addc(out, '\n');
}

/* The metadata as JSON, with the signature as "error_signature". */
static void
line_json(struct ofl_buf *out, const struct ofl_meta *m,
    const struct ofl_buf *sig)
{
	ofl_buf_addc(out, '{');
	ofl_meta_json_fields(out, m);
	ofl_buf_adds(out, ",\"error_signature\":");
	if (sig->len > 0)
		ofl_buf_add_json_str(out, sig->data, sig->len);
	else
		ofl_buf_adds(out, "null");
	ofl_buf_adds(out, "}\n");
}

int
ofl_session_view(struct ofl_store *st, const char *session, int json,
    struct ofl_buf *out)
{
	struct ofl_filter	 f;
	struct ofl_meta		 m;
	struct ofl_buf		 sig, body;
	struct ids		 ids;
	uint64_t		 bytes = 0, known = 0, printed = 0;
	size_t			 i, shown = 0, unknown = 0;
	char			 a[32], b[32], c[32];
	int			 n;

	memset(&ids, 0, sizeof ids);
	ofl_filter_init(&f);
	f.session = session;
	if ((n = ofl_store_list(st, &f, collect, &ids)) == -1)
		return -1;
	ofl_buf_init(&sig);
	ofl_buf_init(&body);
	/* Oldest first: the order the session made them in. */
	for (i = ids.n; i-- > 0;) {
		memset(&m, 0, sizeof m);
		if (ofl_store_meta(st, ids.v[i], &m) == -1)
			continue;	/* expired meanwhile */
		ofl_buf_reset(&sig);
		first_sig(st, &m, &sig);
		if (json)
			line_json(&body, &m, &sig);
		else
			line_text(&body, &m, &sig);
		bytes += m.bytes;
		if (m.printed >= 0) {
			known += m.bytes;
			printed += (uint64_t)m.printed;
		} else
			unknown++;
		shown++;
		ofl_meta_free(&m);
	}
	if (json) {
		ofl_buf_adds(out, "{\"session\":");
		ofl_buf_add_json_str(out, session, strlen(session));
		ofl_buf_addf(out, ",\"artifacts\":%zu,\"bytes\":%llu,"
		    "\"bytes_known\":%llu,\"printed\":%llu,\"saved\":%llu,"
		    "\"printed_unknown\":%zu}\n", shown,
		    (unsigned long long)bytes, (unsigned long long)known,
		    (unsigned long long)printed,
		    (unsigned long long)(known > printed ? known - printed :
		    0), unknown);
	} else {
		ofl_fmt_size(a, sizeof a, bytes);
		ofl_buf_addf(out, "session ");
		cell(out, session, 100);
		ofl_buf_addf(out, ": %zu artifact%s, %s stored", shown,
		    shown == 1 ? "" : "s", a);
		if (known > 0 && unknown > 0) {
			ofl_fmt_size(a, sizeof a, known);
			ofl_buf_addf(out, "; of the %zu that say what was "
			    "printed in their place, %s stored", shown -
			    unknown, a);
		}
		if (known > 0) {
			ofl_fmt_size(b, sizeof b, printed);
			ofl_fmt_size(c, sizeof c, known > printed ?
			    known - printed : 0);
			ofl_buf_addf(out, "; %s printed in %s place, %s saved "
			    "(%.1f%%)", b, unknown > 0 ? "its" : "their", c,
			    known > printed ? 100.0 * (double)(known -
			    printed) / (double)known : 0.0);
		}
		ofl_buf_addc(out, '\n');
	}
	ofl_buf_add(out, body.data, body.len);
	for (i = 0; i < ids.n; i++)
		free(ids.v[i]);
	free(ids.v);
	ofl_buf_free(&sig);
	ofl_buf_free(&body);
	return (int)shown;
}
