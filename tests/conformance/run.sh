#!/usr/bin/env bash
# Run the official MCP conformance server suite (@modelcontextprotocol/conformance, pinned in
# package.json) against mcph serving tests/conformance/mcph.ini, over Streamable HTTP through
# supergateway (stateful: one mcph process a session, messages relayed unchanged), bound to
# 127.0.0.1 by the loopback.mjs preload.
#
#   tests/conformance/run.sh [MCPH_BINARY [SCENARIO]]
#
# MCPH_BINARY defaults to build/mcph of this tree. SCENARIO runs one scenario instead of the
# suite. Environment: CONFORMANCE_SUITE (active, the default; all;
# pending), CONFORMANCE_TIMEOUT (seconds for the whole suite, default 600), CONFORMANCE_INI
# (another INI to serve, for trying fixtures out or two-hop.ini; default
# tests/conformance/mcph.ini), CONFORMANCE_RESULTS (where results go; default
# tests/conformance/results).
#
# Scenarios listed in expected-failures.yml may fail (they test HTTP itself); any other
# failure, or a listed scenario that passes, makes the run fail. Results (checks.json per
# scenario), the suite's output and supergateway's log are left in tests/conformance/results/
# (or CONFORMANCE_RESULTS).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

# The binary: as given (relative to the caller's directory), else build/mcph of this tree.
mcph=${1:-$root/build/mcph}
if [ -x "$mcph" ] && [ ! -d "$mcph" ]; then
    mcph=$(cd "$(dirname "$mcph")" && pwd)/$(basename "$mcph")
fi
ini=${CONFORMANCE_INI:-$here/mcph.ini}
if [ -f "$ini" ]; then
    ini=$(cd "$(dirname "$ini")" && pwd)/$(basename "$ini")
fi
cd "$root"
scenario=${2:-}
suite=${CONFORMANCE_SUITE:-active}
limit=${CONFORMANCE_TIMEOUT:-600}
baseline=$here/expected-failures.yml
results=${CONFORMANCE_RESULTS:-$here/results}

if [ ! -x "$mcph" ] || [ -d "$mcph" ]; then
    echo "conformance: $mcph is not an executable; build it first (make)" >&2
    exit 2
fi
if [ ! -f "$ini" ]; then
    echo "conformance: no INI file $ini" >&2
    exit 2
fi

# --- The pinned packages (Node >= 22 from the npm package `node`, the suite, supergateway). --
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

# --- supergateway on a loopback port. -------------------------------------------------------
work=$(mktemp -d)
gw=
hold=
cleanup() {

    if [ -n "$gw" ] && kill -0 "$gw" 2>/dev/null; then
        kill -TERM "$gw" 2>/dev/null || true # it stops its mcph children, then exits
        for _ in $(seq 100); do
            kill -0 "$gw" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$gw" 2>/dev/null || true
        wait "$gw" 2>/dev/null || true
    fi
    if [ -n "$hold" ]; then
        exec {hold}>&-
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$results"
mkdir -p "$results"

# supergateway exits when its stdin closes: give it a FIFO whose only writer is this script
# (so it also goes away if this script is killed outright).
mkfifo "$work/stdin"
exec {hold}<>"$work/stdin"

cmd="exec $(printf '%q' "$mcph") $(printf '%q' "$ini")"
LOOPBACK_PORT_FILE=$work/port "$node" --import "$here/loopback.mjs" \
    "$here/node_modules/supergateway/dist/index.js" \
    --stdio "$cmd" --outputTransport streamableHttp --stateful --port 0 \
    <"$work/stdin" >"$results/supergateway.log" 2>&1 {hold}>&- &
gw=$!

port=
for _ in $(seq 100); do # 10 s
    if ! kill -0 "$gw" 2>/dev/null; then
        echo "conformance: supergateway exited at startup; its log:" >&2
        cat "$results/supergateway.log" >&2
        exit 1
    fi
    if [ -s "$work/port" ] && (exec 3<>"/dev/tcp/127.0.0.1/$(cat "$work/port")") 2>/dev/null; then
        port=$(cat "$work/port")
        break
    fi
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "conformance: supergateway did not accept connections within 10 s; its log:" >&2
    cat "$results/supergateway.log" >&2
    exit 1
fi
url=http://127.0.0.1:$port/mcp
echo "conformance: $mcph $ini behind supergateway at $url"

# --- The suite. ----------------------------------------------------------------------------
select=(--suite "$suite")
if [ -n "$scenario" ]; then
    select=(--scenario "$scenario")
fi
set +e
timeout --kill-after=10 "$limit" "$node" \
    "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
    --url "$url" "${select[@]}" --expected-failures "$baseline" --output-dir "$results" \
    {hold}>&- >"$results/suite.log" 2>&1
status=$?
set -e
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "conformance: the suite did not finish within ${limit} s (CONFORMANCE_TIMEOUT)"
fi
# The suite's own report (its summary and baseline verdict), then the per-scenario one, whose
# last line is "conformance: N passed, N failed".
if [ -n "$scenario" ]; then
    sed 's/\x1b\[[0-9;]*m//g' "$results/suite.log"
else
    sed -n '/=== SUMMARY ===/,$p' "$results/suite.log" | sed 's/\x1b\[[0-9;]*m//g'
fi
echo
echo "conformance: suite exit status $status; results, suite.log and supergateway.log in ${results#"$root"/}/"
set +e
"$node" "$here/summarize.mjs" "$results" "$results/suite.log" "$baseline"
summary=$?
set -e
if [ "$status" -ne 0 ] || [ "$summary" -ne 0 ]; then
    exit 1
fi
