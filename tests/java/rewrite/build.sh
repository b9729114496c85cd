#!/bin/sh
# Rebuilds the committed corpus (tests/corpus/rewrite) from these sources.
set -e
cd "$(dirname "$0")"
rm -rf ../../corpus/rewrite
javac --release 17 -g -d ../../corpus/rewrite rw/*.java
