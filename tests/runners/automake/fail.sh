#!/bin/sh
# Fails.
echo "fail.sh: expected 3, got 4"
exit 1
