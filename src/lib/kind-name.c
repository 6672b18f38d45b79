/*
 * kind-name.c: the names of the kinds of content ("log", "json", ...),
 * which the IDs' reference lines, the listing and the store use.  The
 * names sit below the formats that detect the kinds, so that the base
 * can read a reference line without the formats.
 */
#include "config.h"

#include <strings.h>

#include "ofl.h"
#include "banned.h"

static const char *kind_names[OFL_KIND_COUNT] = {
	"text",
	"log",
	"json",
	"ndjson",
	"csv",
	"tsv",
	"markdown",
	"html",
	"diff",
	"binary",
	"archive",
	"compressed",
	"empty",
	"table",
	"snapshot"
};

const char *
ofl_kind_name(enum ofl_kind kind)
{
	if ((int)kind < 0 || kind >= OFL_KIND_COUNT)
		return "unknown";
	return kind_names[kind];
}

int
ofl_kind_from_name(const char *name)
{
	static const struct {
		const char	*name;
		int		 kind;
	} aliases[] = {
		{ "txt", OFL_KIND_TEXT },
		{ "jsonl", OFL_KIND_NDJSON },
		{ "md", OFL_KIND_MARKDOWN },
		{ "patch", OFL_KIND_DIFF },
	};
	size_t	i;

	if (name == NULL)
		return -1;
	for (i = 0; i < OFL_KIND_COUNT; i++) {
		if (strcasecmp(name, kind_names[i]) == 0)
			return (int)i;
	}
	for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcasecmp(name, aliases[i].name) == 0)
			return aliases[i].kind;
	}
	return -1;
}
