/*
 * fmt-snapshot-hit.c: the lines a search hit in a browser snapshot shows
 * beside the lines it chose, read off the tree: the element that holds
 * a child line ("/url:", "text:") and its ref, the link a picture names,
 * the head and other name of a description list's entry, the value a
 * row's header names, the link a sentence runs on into, the heading of a
 * section's first words; and, for snippet-lines.c, what is under a
 * heading to act on and the field a button goes with.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "fmt-snapshot.h"
#include "banned.h"

#define TERM_UP		3		/* levels up to a term, at most */
#define TERM_SCAN	8		/* lines of a term for its name */
#define SECTION_UP	24		/* lines up to a section's heading */
#define PROSE_UP	24		/* lines up to a block of prose */

static int	 interactive(const struct ofl_fmt_snapshot_el *);
static int	 is_cell(const struct ofl_fmt_snapshot_el *);
static size_t	 row_head(const char *const *, const size_t *, size_t);
static size_t	 above(const char *const *, const size_t *, size_t, size_t,
		    int, struct ofl_fmt_snapshot_el *);
static size_t	 term_alias(const char *const *, const size_t *, size_t);
static size_t	 nameless_control(const char *const *, const size_t *, size_t);
static int	 in_rowheader(const char *const *, const size_t *, size_t);
static size_t	 section_head(const char *const *, const size_t *, size_t);
static size_t	 text_link(const char *const *, const size_t *, size_t,
		    size_t);
static size_t	 entry_head(const char *const *, const size_t *, size_t,
		    size_t);
static size_t	 entry_term(const char *const *, const size_t *, size_t,
		    size_t);
static int	 role_is(const struct ofl_fmt_snapshot_el *, const char *);
static size_t	 item_head(const char *const *, const size_t *, size_t,
		    size_t, size_t);
static int	 landmark_or_list(const struct ofl_fmt_snapshot_el *);
static int	 inline_role(const struct ofl_fmt_snapshot_el *);

/* The roles an agent clicks or fills, named or not. */
static int
interactive(const struct ofl_fmt_snapshot_el *e)
{
	static const char *const r[] = {
		"link", "button", "checkbox", "radio", "tab", "menuitem",
		"option", "row", "treeitem", "switch", "combobox", "textbox",
		"searchbox", NULL
	};
	size_t	i;

	for (i = 0; r[i] != NULL; i++)
		if (strlen(r[i]) == e->rolelen &&
		    memcmp(r[i], e->role, e->rolelen) == 0)
			return 1;
	return 0;
}

/*
 * The bytes of a line's words, as a search weighs a line's length: its
 * role, name and value, not its indent, its ref or its other attributes.
 */
size_t
ofl_fmt_snapshot_words(const char *p, size_t n)
{
	struct ofl_fmt_snapshot_el e;

	if (!ofl_fmt_snapshot_parse(p, n, &e)) {
		n = ofl_chunk_body_len(p, n);
		return n - ofl_chunk_ws_len(p, n);
	}
	return e.rolelen + e.namelen + e.valuelen;
}

/*
 * The lines to show beside line i of a hit's lines p[0..nl) (lengths
 * n[]): for a picture or another named element inside a link without a
 * name ("img "Up""), that link; when line i is a child line without a
 * ref ("/url:", "text:") or a nameless element, the nearest element
 * above it that holds it (for
 * an element with a ref of its own, only a link, a button or another
 * element one acts on: the code inside a link), and the nearest named
 * one when that one has no name; and in a description list, the head
 * of the entry (entry_head()) and the term right above that one (the
 * entry's other name), or in a table row's header, the value it
 * names (its follower), or for a text that runs on into a link, that
 * link; and for the first words of a section, its heading.  Their
 * indices go to out[]; returns how many (0 to 3).
 */
size_t
ofl_fmt_snapshot_owners(const char *const *p, const size_t *n, size_t nl,
    size_t i, size_t out[3])
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 depth, k = 0, j;
	int		 named;

	if (i >= nl || !ofl_fmt_snapshot_parse(p[i], n[i], &e))
		return 0;
	named = e.namelen > 0;
	depth = e.depth;
	/* A picture that names a link ("img "Up"" in a nameless link). */
	if (named && !interactive(&e) && (j = nameless_control(p, n, i)) <
	    nl)
		out[k++] = j;
	for (j = i; j > 0 && k < 2 && !(ofl_fmt_snapshot_acts(&e) && named); j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
		    a.depth >= depth)
			continue;
		depth = a.depth;
		if (!ofl_fmt_snapshot_acts(&a))
			continue;
		if ((k == 0 && ofl_fmt_snapshot_acts(&e) && a.namelen == 0 &&
		    !interactive(&a)) ||
		    (k > 0 && a.namelen == 0))
			continue;
		out[k++] = j - 1;
		if (a.namelen > 0 || named)
			break;
	}
	if ((j = entry_head(p, n, nl, i)) < nl && (k == 0 || out[0] != j) &&
	    (k < 2 || out[1] != j)) {
		out[k++] = j;
		if (k < 3 && (j = term_alias(p, n, j)) < nl && j != i)
			out[k++] = j;
	} else if (k < 3 && in_rowheader(p, n, i) &&
	    (j = ofl_fmt_snapshot_follower(p, n, nl, i, 0)) < nl && j != i)
		out[k++] = j;
	else if (k < 3 && (j = text_link(p, n, nl, i)) < nl)
		out[k++] = j;
	if (k < 3 && (j = section_head(p, n, i)) < nl)
		out[k++] = j;
	return k;
}

/*
 * The heading of the section whose first words line i is: the heading
 * a few lines above it with only its own lines, signatures and tables
 * between; else SIZE_MAX.
 */
static size_t
section_head(const char *const *p, const size_t *n, size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j, par = 0;

	if (!ofl_fmt_snapshot_parse(p[i], n[i], &e) || (!e.text &&
	    !role_is(&e, "paragraph")))
		return SIZE_MAX;
	for (j = i; j > 0 && i - j < SECTION_UP; j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a))
			continue;
		if (role_is(&a, "heading"))
			return j - 1;
		if (role_is(&a, "paragraph") && ++par > 1)
			return SIZE_MAX;
	}
	return SIZE_MAX;
}

/*
 * A text whose sentence runs on into the link after it ("Freely
 * available under the terms of the" link "Lua license"): that link's
 * line, else nl.
 */
static size_t
text_link(const char *const *p, const size_t *n, size_t nl, size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	char		 c;

	if (i + 1 >= nl || !ofl_fmt_snapshot_parse(p[i], n[i], &e) ||
	    !e.text || e.valuelen == 0)
		return nl;
	c = e.value[e.valuelen - 1];
	if (c == '"' && e.valuelen > 1)
		c = e.value[e.valuelen - 2];
	if (strchr(".:;!?)", c) != NULL ||
	    !ofl_fmt_snapshot_parse(p[i + 1], n[i + 1], &a) ||
	    a.depth != e.depth || !role_is(&a, "link") || a.namelen == 0 ||
	    a.ref == NULL)
		return nl;
	return i + 1;
}

/* The nearest heading above line i of p[0..i), else SIZE_MAX. */
size_t
ofl_fmt_snapshot_heading_above(const char *const *p, const size_t *n,
    size_t i)
{
	struct ofl_fmt_snapshot_el a;
	size_t		 j;

	for (j = i; j > 0; j--)
		if (ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) &&
		    role_is(&a, "heading"))
			return j - 1;
	return SIZE_MAX;
}

/*
 * The nearest element above line i less deep than depth (or as deep,
 * with same), parsed into *a: its line, else SIZE_MAX.
 */
static size_t
above(const char *const *p, const size_t *n, size_t i, size_t depth,
    int same, struct ofl_fmt_snapshot_el *a)
{
	size_t	j;

	for (j = i; j > 0; j--)
		if (ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], a) &&
		    (a->depth < depth || (same && a->depth == depth)))
			return j - 1;
	return SIZE_MAX;
}

/*
 * The block of prose that line i sits in past its first words: a link or
 * a code inside a sentence, a paragraph after a definition's own text.
 * The answer asked for is often the block (the definition, not the word
 * in bold in it), which a hit shows only by its children otherwise.  The
 * element that holds line i, when both have a ref and that one opens
 * with a text that is not line i; else SIZE_MAX.
 */
size_t
ofl_fmt_snapshot_prose(const char *const *p, const size_t *n, size_t i)
{
	struct ofl_fmt_snapshot_el e, a, t;
	size_t		 j;

	if (!ofl_fmt_snapshot_parse(p[i], n[i], &e) ||
	    !ofl_fmt_snapshot_acts(&e) ||
	    (j = above(p, n, i, e.depth, 0, &a)) == SIZE_MAX ||
	    i - j > PROSE_UP || j + 1 == i || !ofl_fmt_snapshot_acts(&a) ||
	    !ofl_fmt_snapshot_parse(p[j + 1], n[j + 1], &t) || !t.text)
		return SIZE_MAX;
	return j;
}

/*
 * The element that holds line i when it is a link or a button without a
 * name of its own: its line, else SIZE_MAX.
 */
static size_t
nameless_control(const char *const *p, const size_t *n, size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j;

	if (!ofl_fmt_snapshot_parse(p[i], n[i], &e) ||
	    (j = above(p, n, i, e.depth, 0, &a)) == SIZE_MAX)
		return SIZE_MAX;
	return (role_is(&a, "link") || role_is(&a, "button")) &&
	    a.namelen == 0 && a.ref != NULL ? j : SIZE_MAX;
}

/*
 * The term right above the term at line t, the same entry's other name
 * ("-x <cmd>" over "--exec <cmd>"): its line, else SIZE_MAX.
 */
static size_t
term_alias(const char *const *p, const size_t *n, size_t t)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j;

	if (!ofl_fmt_snapshot_parse(p[t], n[t], &e) || !role_is(&e, "term") ||
	    (j = above(p, n, t, e.depth, 1, &a)) == SIZE_MAX)
		return SIZE_MAX;
	return a.depth == e.depth && role_is(&a, "term") ? j : SIZE_MAX;
}

/* Is line i a table row's header or inside one ("Default:")? */
static int
in_rowheader(const char *const *p, const size_t *n, size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j;

	if (!ofl_fmt_snapshot_parse(p[i], n[i], &e))
		return 0;
	if (role_is(&e, "rowheader"))
		return 1;
	for (j = i; (j = above(p, n, j, e.depth, 0, &a)) != SIZE_MAX; e = a) {
		if (role_is(&a, "rowheader"))
			return 1;
		if (!inline_role(&a) && !ofl_fmt_snapshot_acts(&a))
			return 0;
	}
	return 0;
}

/* Roles that run inside a block of text, not blocks of their own. */
static int
inline_role(const struct ofl_fmt_snapshot_el *e)
{
	static const char *const r[] = {
		"emphasis", "strong", "link", "superscript", "subscript",
		"mark", "deletion", "insertion", "time", "img", NULL
	};
	size_t	i;

	if (e->text || e->prop)
		return 1;
	for (i = 0; r[i] != NULL; i++)
		if (role_is(e, r[i]))
			return 1;
	/* Code with its text on the line is a word in a sentence. */
	return role_is(e, "code") && e->valuelen > 0 && e->valuelen < 40;
}

/*
 * What line i leads to, when it introduces what comes next: for a
 * heading, a term, a paragraph, a table's cell or row header or a text
 * (or a line inside one of them), the next block at its depth, past the
 * inline elements and texts of its sentence: the code after "compiled
 * with the command line", the definition after its term, the first
 * block of a heading's section, the cell beside a parameter's name or
 * beside a row's header.  When that block is a container without words
 * of its own, its first element with a ref that is not a control.  With
 * any, the block after line i whatever it is.  nl if none in p[0..nl).
 */
size_t
ofl_fmt_snapshot_follower(const char *const *p, const size_t *n, size_t nl,
    size_t i, int any)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j, k, depth;

	if (i >= nl || !ofl_fmt_snapshot_parse(p[i], n[i], &e))
		return nl;
	/*
	 * A line inside a term, a paragraph or a table's cell or row
	 * header: from that line (a parameter's cell leads to the cell
	 * that says what it is, "Default:" to the default).
	 */
	if (!role_is(&e, "heading")) {
		depth = e.depth;
		for (j = i; j > 0; j--) {
			if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
			    a.depth >= depth)
				continue;
			if (role_is(&a, "cell") || role_is(&a, "rowheader") ||
			    ((e.text || e.prop || inline_role(&e)) &&
			    (role_is(&a, "term") || role_is(&a, "paragraph")))) {
				i = j - 1;
				e = a;
			}
			break;
		}
	}
	if (!any && !role_is(&e, "heading") && !role_is(&e, "term") &&
	    !role_is(&e, "paragraph") && !role_is(&e, "cell") &&
	    !role_is(&e, "rowheader") && !e.text)
		return nl;
	for (j = i + 1; j < nl; j++) {
		if (!ofl_fmt_snapshot_parse(p[j], n[j], &a))
			return nl;
		if (a.depth > e.depth)
			continue;
		if (a.depth < e.depth || role_is(&a, "heading"))
			return nl;
		if (!inline_role(&a))
			break;
	}
	if (j >= nl || !ofl_fmt_snapshot_acts(&a))
		return nl;
	if (a.namelen + a.valuelen > 0)
		return j;
	/* A container: its first element that is not a control. */
	depth = a.depth;
	for (k = j + 1; k < nl; k++) {
		if (!ofl_fmt_snapshot_parse(p[k], n[k], &a) || a.depth <= depth)
			break;
		if (ofl_fmt_snapshot_acts(&a) && !interactive(&a))
			return k;
	}
	return j;
}

/* A table's or a grid's cell. */
static int
is_cell(const struct ofl_fmt_snapshot_el *e)
{
	return role_is(e, "cell") || role_is(e, "gridcell");
}

/*
 * The first cell of the row that holds the cell at line c, when that is
 * another cell above it; SIZE_MAX otherwise.
 */
static size_t
row_head(const char *const *p, const size_t *n, size_t c)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j, first = SIZE_MAX;

	if (!ofl_fmt_snapshot_parse(p[c], n[c], &e))
		return SIZE_MAX;
	for (j = c; j > 0; j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
		    a.depth > e.depth)
			continue;
		if (a.depth < e.depth)
			return role_is(&a, "row") ? first : SIZE_MAX;
		first = is_cell(&a) || role_is(&a, "rowheader") ? j - 1 :
		    SIZE_MAX;
	}
	return SIZE_MAX;
}

/*
 * In a description list, what names the entry that holds line i: the
 * term of the entry, whether line i is in the term or in its
 * definition (the term is the definition's sibling above it), and of
 * the term, its first element with a ref when the term has no name of
 * its own ("term:" over "- link [ref=e184]" and "- code: -m").  The
 * index of that line, or nl when line i is in no such entry or is that
 * line.
 */
static size_t
entry_head(const char *const *p, const size_t *n, size_t nl, size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 depth, j, t = nl, first, named;
	int		 nest = 0;

	if (!ofl_fmt_snapshot_parse(p[i], n[i], &e))
		return nl;
	depth = e.depth;
	for (j = i; j > 0 && t == nl; j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
		    a.depth >= depth)
			continue;
		depth = a.depth;
		/* An item of a list in an item: listitem, list, listitem. */
		if (nest > 0) {
			if ((nest == 1 && !role_is(&a, "list")) ||
			    (nest == 2 && !role_is(&a, "listitem")))
				return nl;
			if (nest++ == 2)
				t = j - 1;
			continue;
		}
		if (role_is(&a, "term"))
			t = j - 1;
		else if (role_is(&a, "definition"))
			t = entry_term(p, n, nl, j - 1);
		else if (is_cell(&a)) {
			/* A row's other cell: its first cell names it. */
			if ((t = row_head(p, n, j - 1)) == SIZE_MAX)
				return nl;
		} else if (role_is(&a, "listitem"))
			nest = 1;
		else if (landmark_or_list(&a))
			return nl;
	}
	if (nest > 0)
		return t < nl ? item_head(p, n, nl, t, i) : nl;
	if (t == nl || (t == i && e.valuelen + e.namelen > 0))
		return nl;
	if (!ofl_fmt_snapshot_parse(p[t], n[t], &a))
		return nl;
	if (a.namelen + a.valuelen == 0) {
		/*
		 * Its link, else its element in bold or code ("int"
		 * "memeql_sec" "(...)"), else its first element with a ref.
		 */
		depth = a.depth;
		first = named = nl;
		for (j = t + 1; j < nl && j <= t + TERM_SCAN; j++) {
			if (!ofl_fmt_snapshot_parse(p[j], n[j], &a) ||
			    a.depth <= depth)
				break;
			if (!ofl_fmt_snapshot_acts(&a))
				continue;
			if (interactive(&a)) {
				first = named = j;
				break;
			}
			if (named == nl && (role_is(&a, "strong") ||
			    role_is(&a, "code")))
				named = j;
			if (first == nl)
				first = j;
		}
		t = named < nl ? named : first;
	}
	return t == i ? nl : t;
}

/*
 * The head of the list item at line t that holds a list holding line i:
 * its first child, when that is an element with a ref above line i.
 */
static size_t
item_head(const char *const *p, const size_t *n, size_t nl, size_t t,
    size_t i)
{
	struct ofl_fmt_snapshot_el a;
	size_t		 depth;

	if (t + 1 >= i || !ofl_fmt_snapshot_parse(p[t], n[t], &a))
		return nl;
	depth = a.depth;
	if (!ofl_fmt_snapshot_parse(p[t + 1], n[t + 1], &a) ||
	    a.depth <= depth || !ofl_fmt_snapshot_acts(&a) || role_is(&a, "list"))
		return nl;
	return t + 1;
}

/* The term above a definition at line d, at its depth; else nl. */
static size_t
entry_term(const char *const *p, const size_t *n, size_t nl, size_t d)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j;

	if (!ofl_fmt_snapshot_parse(p[d], n[d], &e))
		return nl;
	for (j = d; (j = above(p, n, j, e.depth, 1, &a)) != SIZE_MAX &&
	    a.depth == e.depth; ) {
		if (role_is(&a, "term"))
			return j;
		if (!role_is(&a, "definition"))
			break;
	}
	return nl;
}

static int
role_is(const struct ofl_fmt_snapshot_el *e, const char *role)
{
	return strlen(role) == e->rolelen && memcmp(role, e->role,
	    e->rolelen) == 0;
}

/* Where a description list's entry cannot be above: a list, a region. */
static int
landmark_or_list(const struct ofl_fmt_snapshot_el *e)
{
	return role_is(e, "list") || role_is(e, "listitem") ||
	    role_is(e, "main") || role_is(e, "navigation") ||
	    role_is(e, "table") || role_is(e, "row");
}

/*
 * 1 if line i of p[0..nl) is an element one acts on (a link, a button,
 * a field) or a line inside one: the code or the URL of a link.
 */
int
ofl_fmt_snapshot_control(const char *const *p, const size_t *n, size_t nl,
    size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j;

	if (i >= nl || !ofl_fmt_snapshot_parse(p[i], n[i], &e))
		return 0;
	if (interactive(&e))
		return 1;
	for (j = i; j > 0; j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
		    a.depth >= e.depth)
			continue;
		/* The element that holds it, or the one above that. */
		if (interactive(&a))
			return 1;
		if (ofl_fmt_snapshot_acts(&a))
			return 0;
		e.depth = a.depth;
	}
	return 0;
}

/*
 * 1 if line i of p[0..nl) is in the term of a description list, up to
 * TERM_UP elements above it: where a name is defined ("Function: int
 * memeql_sec (...)", an option's "--since"), not where it is used.
 */
int
ofl_fmt_snapshot_in_term(const char *const *p, const size_t *n, size_t nl,
    size_t i)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 j, up = 0;

	/* A term's label ("Function:") is no name. */
	if (i >= nl || !ofl_fmt_snapshot_parse(p[i], n[i], &e) || e.text)
		return 0;
	if (role_is(&e, "term"))
		return 1;
	for (j = i; j > 0 && up < TERM_UP; j--) {
		if (!ofl_fmt_snapshot_parse(p[j - 1], n[j - 1], &a) ||
		    a.depth >= e.depth)
			continue;
		if (role_is(&a, "term"))
			return 1;
		e.depth = a.depth;
		up++;
	}
	return 0;
}

size_t
ofl_fmt_snapshot_under(const char *const *p, const size_t *n, size_t nl)
{
	struct ofl_fmt_snapshot_el e;
	size_t		 k;

	if (nl == 0 || !ofl_fmt_snapshot_parse(p[0], n[0], &e) ||
	    !role_is(&e, "heading"))
		return nl;
	for (k = 1; k < nl; k++) {
		if (!ofl_fmt_snapshot_parse(p[k], n[k], &e) ||
		    role_is(&e, "heading"))
			return nl;
		if (interactive(&e) && ofl_fmt_snapshot_acts(&e))
			return k;
	}
	return nl;
}

size_t
ofl_fmt_snapshot_field(const char *const *p, const size_t *n, size_t nl)
{
	struct ofl_fmt_snapshot_el e, a;
	size_t		 k;

	if (nl < 2 || !ofl_fmt_snapshot_parse(p[nl - 1], n[nl - 1], &e) ||
	    !role_is(&e, "button"))
		return nl;
	for (k = nl - 1; k > 0; k--) {
		if (!ofl_fmt_snapshot_parse(p[k - 1], n[k - 1], &a) ||
		    a.depth < e.depth)
			return nl;
		if (a.depth > e.depth)
			continue;
		return (role_is(&a, "textbox") || role_is(&a, "searchbox") ||
		    role_is(&a, "combobox")) && ofl_fmt_snapshot_acts(&a) ? k - 1 : nl;
	}
	return nl;
}

size_t
ofl_fmt_snapshot_ref_end(const char *p, size_t n)
{
	struct ofl_fmt_snapshot_el e;
	size_t		 at;

	if (!ofl_fmt_snapshot_parse(p, n, &e) || e.ref == NULL ||
	    e.reflen == 0)
		return 0;
	at = (size_t)(e.ref - p) + e.reflen;
	/* The bracket, or a Chrome DevTools uid's space. */
	return at < n ? at + 1 : at;
}
