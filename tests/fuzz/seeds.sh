#!/usr/bin/env bash
# tests/fuzz/seeds.sh: regenerate the seeds derived from other tests (run it after adding a
# transcript or an INI file, then commit what changed):
#   corpus/input/T     the client lines of tests/transcripts/T.t ("> " removed; a value a
#                      transcript echoes back, <saved:NAME>, becomes "")
#   corpus/config/*    tests/transcripts/conf/*.ini and conf/*.ini
# The other seeds (schema, uritemplate, cursor, state, jwt, and input/modern-*) are hand-written.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p tests/fuzz/corpus/input tests/fuzz/corpus/config
for t in tests/transcripts/*.t; do
    # Seeds over 16 KB (modern-listen-limit) would make every mutation as long.
    [ "$(wc -c <"$t")" -le 16384 ] || continue
    sed -n 's/^> \{0,1\}//p' "$t" | sed 's/<saved:[A-Za-z0-9_]*>/""/g' \
        >"tests/fuzz/corpus/input/transcript-$(basename "$t" .t)"
done
for ini in tests/transcripts/conf/*.ini; do
    cp "$ini" "tests/fuzz/corpus/config/transcripts-$(basename "$ini")"
done
for ini in conf/*.ini; do
    cp "$ini" "tests/fuzz/corpus/config/conf-$(basename "$ini")"
done
