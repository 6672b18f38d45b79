/*
 * list.c: the listing of artifacts, a line each, and those lines as a
 * table under a header.  A cell is made safe to print and kept on one
 * line; a command line is redacted, since it can hold a secret.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

static void	 list_cell(struct ofl_buf *, const char *);
static size_t	 list_width(const char *, size_t);

/* A cell of the listing: safe, on one line, without tabs. */
static void
list_cell(struct ofl_buf *out, const char *s)
{
	struct ofl_redactor	*rd;
	struct ofl_buf		 t, r;
	size_t			 i;

	if (s == NULL || *s == '\0')
		s = "-";
	ofl_buf_init(&t);
	ofl_buf_init(&r);
	if (ofl_redact_wanted() && (rd = ofl_redactor_new()) != NULL) {
		/* A command line can hold a token or a password. */
		ofl_redact(rd, s, strlen(s), &r);
		ofl_redactor_free(rd);
		s = ofl_buf_str(&r);
	}
	ofl_render_safe(&t, (const unsigned char *)s, strlen(s), 200);
	ofl_buf_free(&r);
	for (i = 0; i < t.len; i++)
		if (t.data[i] == '\t' || t.data[i] == '\n')
			t.data[i] = ' ';
	ofl_buf_add(out, t.data, t.len);
	ofl_buf_free(&t);
}

void
ofl_list_line(struct ofl_buf *out, const struct ofl_meta *m, int mode)
{
	char	size[32], age[32];

	if (mode == OFL_LIST_QUIET) {
		ofl_buf_addf(out, "%s\n", m->id);
		return;
	}
	if (mode == OFL_LIST_JSON) {
		ofl_meta_json(out, m);
		return;
	}
	ofl_fmt_size(size, sizeof size, m->bytes);
	ofl_fmt_age(age, sizeof age, m->created);
	ofl_buf_addf(out, "ofl:%s\t%s\t%s\t%llu\t%s\t", m->id,
	    ofl_kind_name(m->kind), size, (unsigned long long)m->lines, age);
	if (m->has_exit)
		ofl_buf_addf(out, "%d\t", m->exit_status);
	else
		ofl_buf_adds(out, "-\t");
	if (m->state != OFL_STATE_COMPLETE && !m->incomplete)
		ofl_buf_adds(out, "writing\t");
	else if (m->incomplete)
		ofl_buf_adds(out, "incomplete\t");
	else
		ofl_buf_adds(out, "-\t");
	list_cell(out, m->label);
	ofl_buf_addc(out, '\t');
	list_cell(out, m->command);
	ofl_buf_addc(out, '\n');
}

/* Characters on screen: UTF-8 sequences count once. */
static size_t
list_width(const char *s, size_t n)
{
	size_t	i, w = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * Lines of ofl_list_line() (OFL_LIST_TEXT) as a table: the header, then
 * each column as wide as its widest cell, two spaces apart; numbers to
 * the right.  The last column (the command) runs on unpadded.
 */
void
ofl_list_table(struct ofl_buf *out, const char *rows, size_t len)
{
	static const char	*head[OFL_LIST_NCOLS] = { "ID", "KIND", "SIZE",
	    "LINES", "AGE", "EXIT", "STATE", "LABEL", "COMMAND" };
	static const int	 right[OFL_LIST_NCOLS] = { 0, 0, 1, 1, 1, 1,
	    0, 0, 0 };
	size_t			 w[OFL_LIST_NCOLS], cw, c, pass;
	const char		*p, *end = rows + len, *nl, *cell, *tab;

	for (c = 0; c < OFL_LIST_NCOLS; c++)
		w[c] = strlen(head[c]);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (c = 0; c + 1 < OFL_LIST_NCOLS; c++)
				ofl_buf_addf(out, "%s%*s%s  ", right[c] ?
				    "" : head[c], (int)(w[c] -
				    strlen(head[c])), "", right[c] ? head[c] :
				    "");
			ofl_buf_addf(out, "%s\n", head[c]);
		}
		for (p = rows; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			for (c = 0, cell = p; c < OFL_LIST_NCOLS && cell <= nl;
			    c++, cell = tab + 1) {
				if ((tab = memchr(cell, '\t',
				    (size_t)(nl - cell))) == NULL)
					tab = nl;
				cw = list_width(cell, (size_t)(tab - cell));
				if (pass == 0) {
					if (cw > w[c] && c + 1 < OFL_LIST_NCOLS)
						w[c] = cw;
					continue;
				}
				if (c + 1 == OFL_LIST_NCOLS) {
					ofl_buf_add(out, cell,
					    (size_t)(tab - cell));
					break;
				}
				if (right[c])
					ofl_buf_addf(out, "%*s", (int)(w[c] -
					    cw), "");
				ofl_buf_add(out, cell, (size_t)(tab - cell));
				if (!right[c])
					ofl_buf_addf(out, "%*s", (int)(w[c] -
					    cw), "");
				ofl_buf_adds(out, "  ");
			}
			if (pass == 1)
				ofl_buf_addc(out, '\n');
		}
	}
}

/*
 * A listing shows the newest OFL_LIST_LIMIT artifacts unless told
 * otherwise, as git log shows a page: this line says what it left out.
 */
void
ofl_list_more(struct ofl_buf *out, int64_t more)
{
	char	n[32];

	ofl_fmt_count(n, sizeof n, (uint64_t)more);
	ofl_buf_addf(out, "... %s more (-a lists all, -n N the newest N)\n", n);
}
