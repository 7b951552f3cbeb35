#!/usr/bin/env bash
# Run the official MCP conformance server suite (@modelcontextprotocol/conformance, pinned in
# package.json) against mcph serving tests/conformance/mcph.ini over its own Streamable HTTP
# listener: `mcph --listen 127.0.0.1:0`, the port read from its "listening on" log line.
#
#   tests/conformance/run.sh [MCPH_BINARY [SCENARIO]]
#
# MCPH_BINARY defaults to build/mcph of this tree. SCENARIO runs one scenario instead of the
# suite. Environment: CONFORMANCE_SUITE (active, the default; all; pending),
# CONFORMANCE_TIMEOUT (seconds for the whole suite, default 600), CONFORMANCE_INI (another INI
# to serve, for trying fixtures out or two-hop.ini; default tests/conformance/mcph.ini),
# CONFORMANCE_RESULTS (where results go; default tests/conformance/results). For trying
# another release of the suite (SCENARIOS.md, "The 2026-07-28 suite"): CONFORMANCE_CLI (its
# dist/index.js, installed elsewhere; default the pinned one) and CONFORMANCE_REQUIREMENTS (a
# spec revision: run the scenarios it requires, --requirements, instead of a suite).
# CONFORMANCE_UPSTREAM=1: two hops over HTTP. An upstream mcph serving tests/conformance/mcph.ini
# is started first (--listen 127.0.0.1:0, its log upstream.log in the results), and the INI
# served (default tests/conformance/two-hop-http.ini) is a template: @PORT@ becomes the
# upstream's port and a relative plugin_dir is made absolute; the copy is results/mcph.ini.
#
# Scenarios listed in expected-failures.yml may fail; any other failure, or a listed scenario
# that passes, makes the run fail. So does mcph exiting before the end, not stopping cleanly on
# SIGTERM, or a sanitizer report in its log. Results (checks.json per scenario), the suite's
# output and mcph's log are left in tests/conformance/results/ (or CONFORMANCE_RESULTS).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

# The binary: as given (relative to the caller's directory), else build/mcph of this tree.
mcph=${1:-$root/build/mcph}
if [ -x "$mcph" ] && [ ! -d "$mcph" ]; then
    mcph=$(cd "$(dirname "$mcph")" && pwd)/$(basename "$mcph")
fi
upstream_mode=${CONFORMANCE_UPSTREAM:-}
if [ -n "$upstream_mode" ]; then
    ini=${CONFORMANCE_INI:-$here/two-hop-http.ini}
else
    ini=${CONFORMANCE_INI:-$here/mcph.ini}
fi
if [ -f "$ini" ]; then
    ini=$(cd "$(dirname "$ini")" && pwd)/$(basename "$ini")
fi
cd "$root"
scenario=${2:-}
suite=${CONFORMANCE_SUITE:-active}
limit=${CONFORMANCE_TIMEOUT:-600}
baseline=$here/expected-failures.yml
cli=${CONFORMANCE_CLI:-$here/node_modules/@modelcontextprotocol/conformance/dist/index.js}
results=${CONFORMANCE_RESULTS:-$here/results}
# What a sanitizer writes when it finds something (as tests/lib/util.mjs SANITIZER_REPORT).
sanitizer='ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer'

if [ ! -x "$mcph" ] || [ -d "$mcph" ]; then
    echo "conformance: $mcph is not an executable; build it first (make)" >&2
    exit 2
fi
if [ ! -f "$ini" ]; then
    echo "conformance: no INI file $ini" >&2
    exit 2
fi

# --- The pinned packages (Node >= 22 from the npm package `node`, the suite). ---------------
stamp=$here/node_modules/.installed
if [ ! -e "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ] ||
    [ "$here/package.json" -nt "$stamp" ]; then
    if ! command -v npm >/dev/null; then
        echo "conformance: npm is needed to install the suite; installing nodejs and npm with apt-get"
        sudo=$([ "$(id -u)" = 0 ] || echo sudo)
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm
    fi
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$stamp"
fi
node=$here/node_modules/.bin/node
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
    echo "conformance: $node is Node $major; the suite needs Node >= 22" >&2
    exit 2
fi

# --- mcph on a loopback port. ---------------------------------------------------------------
server=
log=$results/mcph.log
# Stop a process of ours: SIGTERM (calls get a grace period, streams end), then SIGKILL after
# 30 s (a sanitizer build is slow). Sets `stopped` to its exit status.
stopped=
stop_pid() {
    local pid=$1 what=$2
    stopped=
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "conformance: $what did not stop within 30 s of SIGTERM; killed" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    stopped=0
    wait "$pid" 2>/dev/null || stopped=$?
}
stop_mcph() {
    stopped=
    if [ -z "$server" ]; then
        return
    fi
    stop_pid "$server" mcph
    server=
}
# The upstream of CONFORMANCE_UPSTREAM (after the mcph in front of it).
upstream=
upstream_log=$results/upstream.log
upstream_stopped=
stop_all() {
    stop_mcph
    if [ -n "$upstream" ]; then
        local front=$stopped
        stop_pid "$upstream" "the upstream mcph"
        upstream_stopped=$stopped
        upstream=
        stopped=$front
    fi
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$results"
mkdir -p "$results"

# The URL an mcph logs ("mcph: info: listening on http://127.0.0.1:PORT/mcp") in its log $1,
# waiting up to 30 s while the process $2 runs (a sanitizer build loads its plugins slowly and,
# two hops away, starts the inner mcph).
listening_url() {
    local found=
    for _ in $(seq 300); do
        found=$(sed -n 's#^.*listening on \(http://127\.0\.0\.1:[0-9][0-9]*/[^ ]*\).*$#\1#p' "$1" |
            head -n 1)
        if [ -n "$found" ] || ! kill -0 "$2" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    echo "$found"
}

if [ -n "$upstream_mode" ]; then
    "$mcph" --listen 127.0.0.1:0 "$here/mcph.ini" </dev/null >"$upstream_log" 2>&1 &
    upstream=$!
    upstream_url=$(listening_url "$upstream_log" "$upstream")
    if [ -z "$upstream_url" ]; then
        echo "conformance: the upstream mcph did not log its URL within 30 s; its log:" >&2
        cat "$upstream_log" >&2
        exit 1
    fi
    port=${upstream_url#http://127.0.0.1:}
    port=${port%%/*}
    template=$ini
    ini=$results/mcph.ini
    sed -e "s#@PORT@#$port#g" \
        -e "s#^\(plugin_dir *= *\)\([^/ ][^ ]*\)#\1$(dirname "$template")/\2#" \
        "$template" >"$ini"
    echo "conformance: upstream $mcph $here/mcph.ini at $upstream_url"
fi

"$mcph" --listen 127.0.0.1:0 "$ini" </dev/null >"$log" 2>&1 &
server=$!

url=$(listening_url "$log" "$server")
if [ -z "$url" ]; then
    if kill -0 "$server" 2>/dev/null; then
        echo "conformance: mcph did not log its URL within 30 s; its log:" >&2
    else
        echo "conformance: mcph exited at startup; its log:" >&2
    fi
    cat "$log" >&2
    exit 1
fi
echo "conformance: $mcph $ini at $url"

# --- The suite. ----------------------------------------------------------------------------
select=(--suite "$suite")
if [ -n "$scenario" ]; then
    select=(--scenario "$scenario")
elif [ -n "${CONFORMANCE_REQUIREMENTS:-}" ]; then
    select=(--requirements "$CONFORMANCE_REQUIREMENTS")
fi
set +e
timeout --kill-after=10 "$limit" "$node" "$cli" server \
    --url "$url" "${select[@]}" --expected-failures "$baseline" --output-dir "$results" \
    >"$results/suite.log" 2>&1
status=$?
set -e
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "conformance: the suite did not finish within ${limit} s (CONFORMANCE_TIMEOUT)"
fi

# --- mcph: still serving, stops cleanly, no sanitizer report (summarize.mjs's mcph-process
# row: one line a problem in mcph-problems.txt). ---------------------------------------------
problems=$results/mcph-problems.txt
: >"$problems"
if kill -0 "$server" 2>/dev/null; then
    stop_mcph
    if [ "$stopped" != 0 ]; then
        echo "FAILURE mcph exited with status $stopped, not 0, after SIGTERM" >>"$problems"
    fi
else
    stop_mcph
    echo "FAILURE mcph exited during the suite, status $stopped (its log: mcph.log)" >>"$problems"
fi
if [ -n "$upstream_mode" ]; then
    if [ -z "$upstream" ]; then
        echo "FAILURE the upstream mcph was not running at the end" >>"$problems"
    elif ! kill -0 "$upstream" 2>/dev/null; then
        stop_all
        echo "FAILURE the upstream mcph exited during the suite, status $upstream_stopped (its log: upstream.log)" >>"$problems"
    else
        stop_all
        if [ "$upstream_stopped" != 0 ]; then
            echo "FAILURE the upstream mcph exited with status $upstream_stopped, not 0, after SIGTERM" >>"$problems"
        fi
    fi
fi
for f in "$log" ${upstream_mode:+"$upstream_log"}; do
    if grep -Eq "$sanitizer" "$f"; then
        echo "FAILURE a sanitizer report in $(basename "$f"):" >>"$problems"
        grep -E -m 5 "$sanitizer" "$f" | sed 's/^/    /' >>"$problems"
    fi
done

# The suite's own report (its summary and baseline verdict), then the per-scenario one, whose
# last line is "conformance: N passed, N failed".
if [ -n "$scenario" ]; then
    sed 's/\x1b\[[0-9;]*m//g' "$results/suite.log"
else
    sed -n '/=== SUMMARY ===/,$p' "$results/suite.log" | sed 's/\x1b\[[0-9;]*m//g'
fi
echo
echo "conformance: suite exit status $status; results, suite.log and mcph.log in ${results#"$root"/}/"
set +e
"$node" "$here/summarize.mjs" "$results" "$results/suite.log" "$baseline" "$problems"
summary=$?
set -e
if [ "$status" -ne 0 ] || [ "$summary" -ne 0 ]; then
    exit 1
fi
