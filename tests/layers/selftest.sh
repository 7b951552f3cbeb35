#!/usr/bin/env bash
# check.sh must fail when it should: on a copy of core/ with an include planted that runs up a
# layer, one into plugins/, and one without its layer; and pass on the copy untouched.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

plant() { # name, file under core/, the line to add
    rm -rf "$TMP/core" && cp -r "$ROOT/core" "$TMP/core"
    printf '%s\n' "$3" >>"$TMP/core/$2"
    if out=$("$HERE/check.sh" "$TMP" 2>&1); then
        echo "FAIL layers: $1 ($3 in core/$2) was not reported"
        fail=1
    elif ! grep -q "core/$2:" <<<"$out"; then
        echo "FAIL layers: $1 reported, but not at core/$2: $out"
        fail=1
    else
        echo "ok layers: $1 is reported ($(grep "core/$2:" <<<"$out" | head -1))"
    fi
}

plant "an include up a layer" lib/status.c '#include "protocol/dispatch.h"'
plant "an include from core into plugins/" host/plugin.c '#include "../../plugins/mcp/mcp.h"'
plant "an include without its layer" wire/out.c '#include "registry.h"'
rm -rf "$TMP/core" && cp -r "$ROOT/core" "$TMP/core"
if "$HERE/check.sh" "$TMP" >/dev/null; then
    echo "ok layers: the tree as it is passes"
else
    echo "FAIL layers: the tree as it is does not pass"
    fail=1
fi
exit $fail
