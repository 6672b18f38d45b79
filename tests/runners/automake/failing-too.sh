#!/bin/sh
# Passes; its name holds another test's.
exit 0
