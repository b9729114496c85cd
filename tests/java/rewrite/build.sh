#!/bin/sh
# Rebuilds the committed corpus (tests/corpus/rewrite) from these sources.
set -e
cd "$(dirname "$0")"
rm -rf ../../corpus/rewrite
python3 gen_big.py
javac --release 17 -g -d ../../corpus/rewrite rw/*.java
