# lexicon.awk: lexicon.tsv as a C table: the forms of each group, one
# string each, a NULL after each group and one more at the end.
BEGIN {
	FS = "\t"
	print "/* Made by lexicon.awk from lexicon.tsv: do not edit. */"
	print "static const char *const lexicon_forms[] = {"
}
/^#/ || /^[ \t]*$/ { next }
{
	for (i = 1; i <= NF; i++) {
		if ($i == "")
			continue
		if ($i !~ /^[a-z0-9]+( [a-z0-9]+)*$/) {
			printf "lexicon.tsv:%d: bad form '%s'\n", NR, $i >"/dev/stderr"
			bad = 1
			exit 1
		}
		printf "\t\"%s\",\n", $i
	}
	print "\tNULL,"
}
END {
	if (bad)
		exit 1
	print "\tNULL"
	print "};"
}
