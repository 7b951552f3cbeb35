#!/usr/bin/env bash
# count.sh: the pass counts of a `make test` log, per layer, so that two trees' runs can be
# compared (a restructuring must not lose a check). It runs nothing itself.
#
#   make test 2>&1 | tee test.log; tests/count.sh test.log       (or: ... | tests/count.sh -)
#   tests/count.sh -v test.log      also every summary line, under its layer
#
# A layer is recognised by the commands make echoes for it (the recipes in the Makefile) and
# by the unit tests' "test_x: N passed, N failed" lines, which make does not echo. Per layer:
#   passed, failed  summed over its summary lines: "[label:] N passed, N failed" (unit: one per
#                   binary; node suites: one per script), "# pass N" / "# fail N" (node --test),
#                   "format: N files clean", "layers: N files, ..." (N files checked);
#                   test-install has no count: its last line says "all checks passed" (1)
#   ok, FAIL        lines starting "ok" / "FAIL" or "not ok" (the checks of the suites that list
#                   theirs one by one; node --test's top-level tests too; conformance: its
#                   "PASS" lines), and an include check.sh refuses
#   sums            how many summary lines were added up
# "(make: Error)" follows a layer whose recipe make saw fail.
# test-conformance counts its scenarios ("conformance: N passed", once direct, once for each
# two-hop run, and once for server-everything compared directly and through mcph), not the
# suite's own lines per scenario and total. A layer that did not run (make
# stopped before it) is printed as "not run". Some counts move with the machine's load (a
# check inside a timed loop, as test_out's slow reader): compare them with that in mind.
set -euo pipefail

verbose=0
if [ "${1:-}" = -v ]; then
    verbose=1
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: tests/count.sh [-v] MAKE_TEST_LOG  (- for stdin)" >&2
    exit 2
fi
log=$1
[ "$log" = - ] && log=/dev/stdin

awk -v verbose="$verbose" '
BEGIN {
    n = split("test-layers test-unit test-harness test-transcripts test-interop test-plugins " \
              "test-reload test-edges test-hostile test-http test-scale test-conformance " \
              "test-gateway test-isolate test-confine test-install check-format", order, " ")
    layer = ""
}
# The commands each layer runs (Makefile), in the order make test runs them.
/^tests\/layers\//                                   { layer = "test-layers" }
/^node --test tests\/lib\// || /^node tests\/transcripts\/selftest\// { layer = "test-harness" }
/^node tests\/transcripts\/run\.mjs/                 { layer = "test-transcripts" }
/^node tests\/interop\//                             { layer = "test-interop" }
/^== tests\/shipped\//                               { layer = "test-plugins" }
/^node tests\/reload\//                              { layer = "test-reload" }
/^node tests\/edges\//                               { layer = "test-edges" }
/^node tests\/hostile\//                             { layer = "test-hostile" }
/^node tests\/http\//                                { layer = "test-http" }
/^tests\/scale\/run\.sh/                             { layer = "test-scale" }
/^(CONFORMANCE_[A-Z_]+=[^ ]+ +)*tests\/conformance\/run\.sh/ { layer = "test-conformance" }
/^node tests\/gateway\//                             { layer = "test-gateway" }
/^node tests\/isolate\//                             { layer = "test-isolate" }
/^node tests\/confine\//                             { layer = "test-confine" }
/tests\/install\/install\.sh/ && !/^install:/        { layer = "test-install" }
/^clang-format --dry-run/                            { layer = "check-format" }

function add(l, p, f, line) {
    passed[l] += p; failed[l] += f; sums[l]++; ran[l] = 1
    if (verbose) detail[l] = detail[l] "    " line "\n"
}

# The unit binaries print their summary without an echoed command; "unit: N passed" counts
# binaries, not checks.
/^test_[a-z0-9_]+: [0-9]+ passed, [0-9]+ failed$/ {
    add("test-unit", $2, $4, $0); next
}
/^unit: [0-9]+ passed, [0-9]+ failed$/ {
    binaries = $2; bin_failed = $4; ran["test-unit"] = 1; next
}
/^FAIL [^ ]*\/tests\/unit\/test_/ { bad["test-unit"]++; next }
/^tests\/unit\/test_[a-z0-9_]+\.c:[0-9]+: / { next }
# What make says of a layer that failed (the one way test-install, or a layer stopped by an
# error before its summary, shows it).
/^make: \*\*\* \[[^]]*: (test-[a-z]+|check-format)\] Error/ {
    t = $0; sub(/^[^[]*\[[^]]*: /, "", t); sub(/\].*$/, "", t)
    made[t]++; next
}
layer == "" { next }
/^# pass [0-9]+$/ { add(layer, $3, 0, $0); next }
/^# fail [0-9]+$/ { add(layer, 0, $3, $0); next }
/^format: [0-9]+ files clean$/ { add(layer, $2, 0, $0); next }
/^layers: [0-9]+ files, every include runs down or across$/ { add(layer, $2, 0, $0); next }
/^install: .*all checks passed$/ { add(layer, 1, 0, $0); next }
# The conformance suite prints a line per scenario and a total of its own checks; its
# scenarios are then listed PASS / FAIL and summed in "conformance: N passed, N failed".
layer == "test-conformance" && /^PASS / { ok[layer]++; next }
layer == "test-conformance" && /passed, [0-9]+ failed/ && !/^conformance: / { next }
/[0-9]+ passed, [0-9]+ failed/ {
    match($0, /[0-9]+ passed, [0-9]+ failed/)
    split(substr($0, RSTART, RLENGTH), w, " ")
    add(layer, w[1], w[3], $0)
    next
}
/^ok[ \t]/                 { ok[layer]++; ran[layer] = 1; next }
# An include that breaks the layer rule (tests/layers/check.sh): a failure of its own.
layer == "test-layers" && /^core\/.*: #include / { bad[layer]++; ran[layer] = 1; next }
/^(FAIL|not ok)[ \t:]/     { bad[layer]++; ran[layer] = 1; next }
{ ran[layer] = 1 }

END {
    printf "%-17s %8s %7s %6s %6s %5s\n", "layer", "passed", "failed", "ok", "FAIL", "sums"
    for (i = 1; i <= n; i++) {
        l = order[i]
        if (!(l in ran)) {
            printf "%-17s %s\n", l, "not run"
            continue
        }
        printf "%-17s %8d %7d %6d %6d %5d", l, passed[l], failed[l], ok[l], bad[l], sums[l]
        if (l in made)
            printf "   (make: Error)"
        if (l == "test-unit")
            printf "   (%d binaries, %d failed)", binaries, bin_failed
        printf "\n"
        if (verbose)
            printf "%s", detail[l]
    }
}' "$log"
