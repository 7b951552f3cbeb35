#!/usr/bin/env bash
# The official MCP conformance server suite against server-everything
# (@modelcontextprotocol/server-everything, pinned in tests/package.json) in its Streamable HTTP
# mode, once directly and once through mcph: mcph --listen 127.0.0.1:0 serving one url section
# of its mcp plugin (no prefix: the suite needs the exact names) that points at the same
# server-everything. server-everything is not the suite's fixture, so many scenarios fail
# directly; what is tested is that mcph in front changes nothing: every scenario (and every
# check) that passes directly passes through mcph too. compare.mjs makes the comparison;
# a difference that comes from mcph being another server is named, with its reason, in
# everything-differences.yml next to this script.
#
#   tests/conformance/everything.sh [MCPH_BINARY]
#
# MCPH_BINARY defaults to build/mcph of this tree. Environment: CONFORMANCE_SUITE (active, the
# default, as run.sh), CONFORMANCE_TIMEOUT (seconds for each of the two suite runs, default
# 60, times 3 under ASan/UBSan and 5 under TSan, or MCPH_TEST_SLOW), CONFORMANCE_RESULTS (where
# results go; default tests/conformance/results-everything: direct/ and mcph/ hold the suite's
# checks.json per scenario, with suite.log each; everything.log, mcph.log, mcph.ini,
# compare.txt). CONFORMANCE_CLI: the suite's dist/index.js (default the pinned one, which
# run.sh installs: run it, or make test-conformance, once first).
#
# Fails when a scenario or check passing directly does not pass through mcph and is not in
# the allow-list, when an allow-list entry no longer matches a difference, when a suite run
# times out, or when mcph exits early, does not stop cleanly on SIGTERM or its log holds a
# sanitizer report. server-everything and mcph are stopped on every exit.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

mcph=${1:-$root/build/mcph}
if [ -x "$mcph" ] && [ ! -d "$mcph" ]; then
    mcph=$(cd "$(dirname "$mcph")" && pwd)/$(basename "$mcph")
fi
cd "$root"
suite=${CONFORMANCE_SUITE:-active}
cli=${CONFORMANCE_CLI:-$here/node_modules/@modelcontextprotocol/conformance/dist/index.js}
results=${CONFORMANCE_RESULTS:-$here/results-everything}
allow=$here/everything-differences.yml
node=$here/node_modules/.bin/node
everything_js=$root/tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js
sanitizer='ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer'

if [ ! -x "$mcph" ] || [ -d "$mcph" ]; then
    echo "conformance-everything: $mcph is not an executable; build it first (make)" >&2
    exit 2
fi
if [ ! -x "$node" ] || [ ! -f "$cli" ]; then
    echo "conformance-everything: the pinned suite is not installed in $here/node_modules;" \
        "run tests/conformance/run.sh (or make test-conformance) once first" >&2
    exit 2
fi
if [ ! -f "$everything_js" ]; then
    echo "conformance-everything: no $everything_js; make node-deps installs it" >&2
    exit 2
fi

# Sanitizer builds are slower: every wait scales as the other tests' do.
slow=${MCPH_TEST_SLOW:-}
if [ -z "$slow" ]; then
    slow=1
    if grep -q __tsan_init "$mcph"; then
        slow=5
    elif grep -Eq '__asan_init|__ubsan_handle' "$mcph"; then
        slow=3
    fi
fi
limit=${CONFORMANCE_TIMEOUT:-$((60 * slow))}
tries=$((150 * slow)) # of 0.1 s: 15 s, scaled

# --- Processes: both stopped on every exit. ------------------------------------------------
everything=
server=
stopped=
# SIGTERM, then SIGKILL after 10 s (scaled); sets `stopped` to the exit status.
stop_pid() {
    local pid=$1 what=$2
    stopped=
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq $((100 * slow))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "conformance-everything: $what did not stop within $((10 * slow)) s of SIGTERM; killed" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    stopped=0
    wait "$pid" 2>/dev/null || stopped=$?
}
stop_all() {
    local mine=
    if [ -n "$server" ]; then
        stop_pid "$server" mcph
        mine=$stopped
        server=
    fi
    if [ -n "$everything" ]; then
        stop_pid "$everything" server-everything
        everything=
    fi
    stopped=$mine
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$results"
mkdir -p "$results/direct" "$results/mcph"

# Wait (up to 15 s, scaled) until file $1 has a line matching the extended regex $2 or the
# process $3 is gone; prints the first match.
wait_line() {
    local found=
    for _ in $(seq "$tries"); do
        found=$(grep -E -m 1 "$2" "$1" || true)
        if [ -n "$found" ] || ! kill -0 "$3" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    echo "$found"
}

# --- server-everything over HTTP on a free loopback port (a few tries: the port is picked
# free, then bound by the server a moment later). -------------------------------------------
ev_log=$results/everything.log
port=
for _ in 1 2 3 4 5; do
    candidate=$("$node" -e 'const s=require("net").createServer();
        s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')
    PORT=$candidate "$node" "$everything_js" streamableHttp </dev/null >"$ev_log" 2>&1 &
    everything=$!
    if [ -n "$(wait_line "$ev_log" 'listening on port' "$everything")" ]; then
        port=$candidate
        break
    fi
    stop_pid "$everything" server-everything
    everything=
done
if [ -z "$port" ]; then
    echo "conformance-everything: server-everything did not listen on a port in 5 tries; its log:" >&2
    cat "$ev_log" >&2
    exit 1
fi
upstream=http://127.0.0.1:$port/mcp

# --- The suite, directly (results A). ------------------------------------------------------
# $1: URL, $2: results folder. Its exit status is the suite's verdict on a server that is not
# its fixture, so only a timeout counts (as compare.mjs's input is the checks.json files).
run_suite() {
    local status=0
    timeout --kill-after=10 "$limit" "$node" "$cli" server --url "$1" --suite "$suite" \
        --output-dir "$2" >"$2/suite.log" 2>&1 || status=$?
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "FAILURE the suite against $1 did not finish within $limit s (CONFORMANCE_TIMEOUT)" \
            >>"$problems"
    fi
    echo "conformance-everything: suite against $1: exit status $status"
}
problems=$results/problems.txt
: >"$problems"
echo "conformance-everything: server-everything at $upstream"
run_suite "$upstream" "$results/direct"

# --- mcph in front of it (results B). ------------------------------------------------------
ini=$results/mcph.ini
cat >"$ini" <<EOF
; Written by tests/conformance/everything.sh: server-everything at $upstream behind a url
; section; no prefix (the suite needs the exact names); plain http to loopback allowed.
[server]
name = mcph-everything
plugin_dir = $(dirname "$mcph")/plugins

[plugin.everything]
path = mcp.so
url = $upstream
allow_http = yes
allow_networks = 127.0.0.1/32
EOF
log=$results/mcph.log
"$mcph" --listen 127.0.0.1:0 "$ini" </dev/null >"$log" 2>&1 &
server=$!
# Listening, and serving the section's rows (at startup, or after a retry's reload).
url=$(wait_line "$log" 'listening on http://127\.0\.0\.1:[0-9]+/' "$server" |
    sed 's#^.*listening on \(http://127\.0\.0\.1:[0-9]*/[^ ]*\).*$#\1#')
rows=$(wait_line "$log" 'serving [1-9][0-9]* tools' "$server")
if [ -z "$url" ] || [ -z "$rows" ]; then
    echo "conformance-everything: mcph did not listen and serve server-everything's tools" \
        "within $((tries / 10)) s; its log:" >&2
    cat "$log" >&2
    exit 1
fi
echo "conformance-everything: $mcph $ini at $url"
run_suite "$url" "$results/mcph"

# --- mcph: still serving, stops cleanly, no sanitizer report. -------------------------------
if kill -0 "$server" 2>/dev/null; then
    stop_all
    if [ "$stopped" != 0 ]; then
        echo "FAILURE mcph exited with status $stopped, not 0, after SIGTERM" >>"$problems"
    fi
else
    stop_all
    echo "FAILURE mcph exited during the suite, status $stopped (its log: mcph.log)" >>"$problems"
fi
if grep -Eq "$sanitizer" "$log"; then
    echo "FAILURE a sanitizer report in mcph.log:" >>"$problems"
    grep -E -m 5 "$sanitizer" "$log" | sed 's/^/    /' >>"$problems"
fi

# --- A against B. ---------------------------------------------------------------------------
set +e
"$node" "$here/compare.mjs" "$results/direct" "$results/mcph" "$allow" "$problems" |
    tee "$results/compare.txt"
verdict=${PIPESTATUS[0]}
set -e
echo "conformance-everything: results in ${results#"$root"/}/"
exit "$verdict"
