#!/bin/sh
# A hard error (99).
echo "hard.sh: no fixture"
exit 99
