#!/usr/bin/env bash
# links.sh must fail when it should: on a copy of README.md and docs/ with a link planted to a
# file that does not exist, and one to a heading that does not; and pass on the copy untouched.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

copy() {
    rm -rf "$TMP"/* && cp "$ROOT/README.md" "$TMP/" && cp -r "$ROOT/docs" "$TMP/docs"
    # The targets outside README.md and docs/ are linked to, so they must be there too.
    for d in man plugin-api tests; do ln -s "$ROOT/$d" "$TMP/$d"; done
}

plant() { # name, file, the line to add
    copy
    printf '\n%s\n' "$3" >>"$TMP/$2"
    if out=$("$HERE/links.sh" "$TMP" 2>&1); then
        echo "FAIL docs: $1 ($3 in $2) was not reported"
        fail=1
    elif ! grep -q "^$2:" <<<"$out"; then
        echo "FAIL docs: $1 reported, but not in $2: $out"
        fail=1
    else
        echo "ok docs: $1 is reported ($(grep "^$2:" <<<"$out" | head -1))"
    fi
}

plant "a link to a missing file" README.md '[gone](docs/no-such-file.md)'
plant "a link to a missing heading" docs/http.md '[gone](internals.md#no-such-heading)'
copy
if "$HERE/links.sh" "$TMP" >/dev/null; then
    echo "ok docs: the documents as they are pass"
else
    echo "FAIL docs: the documents as they are do not pass"
    fail=1
fi
exit $fail
