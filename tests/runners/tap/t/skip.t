#!/usr/bin/perl
# Skipped whole.
print "1..0 # SKIP nothing to do here\n";
