#!/bin/sh
# run.sh: `make bench`. Builds the bench programs into build/tests/bench/, then runs the
# driver against mcph (the default deployment, conf/mcph.ini; bench-list.ini and
# bench-spin.ini for the tools/list and CPU-bound rows), the bare cJSON loop and the official
# TypeScript SDK server, and prints one table with the target verdicts; then the gateway
# rows: server-everything and mcph, each direct and through mcph's mcp plugin
# (bench-gateway-everything.ini, bench-gateway-mcph.ini), and mcph over HTTP through a url
# section (http-hop.sh: the hop rows, stdio hop next to HTTP hop); then the isolation rows: the example
# plugin in process, isolated (bench-isolate.ini) and confined (bench-confine.ini), with the
# start-up of the last two; next to them and to the hop rows, their floor: the default
# deployment's mcph behind a bare relay (relay.c, one more process and pipe pair). Then the HTTP table (http-driver):
# mcph --listen 127.0.0.1:0 serving the default deployment, sessionless (2026-07-28) and in a
# legacy session, against the SDK's Streamable HTTP server (sdk-http-echo.mjs); and two
# more mcph columns on the example plugin alone: every request with a JWT checked
# (bench-http-jwt.ini, its key set and token made by jwt.mjs), and metrics on
# (bench-http-metrics.ini); and the floor: Debian's nginx answering the same POST with a fixed
# body (tests/bench/nginx.h), with the HTTP targets against it.
#
#   tests/bench/run.sh [MCPH]        MCPH defaults to build/mcph (built by `make`)
#   QUICK=1 tests/bench/run.sh       fewer repetitions: under a minute
#   SDK_SSE=1 tests/bench/run.sh     the HTTP table also has the SDK server with event streams
#
# Needs: build/mcph, build/plugins/example.so and mcp.so (`make`), libcjson (pkg-config), Node.js
# with tests/node_modules (`make node-deps`, installed here with npm ci when missing), and
# valgrind for the instruction counts and nginx for the HTTP floor (each installed with apt-get
# when missing; without it, its rows or column print "-").
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
MCPH=${1:-build/mcph}
OUT=build/tests/bench
CC=${CC:-cc}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
FLAGS="-std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
       -Wwrite-strings -Wformat=2 -Wvla -Werror -O2 -g -D_GNU_SOURCE"
PLUGIN_FLAGS="$FLAGS -fPIC -fvisibility=hidden -Iplugin-api -Itests/bench -shared"
START=$(date +%s)

if [ ! -x "$MCPH" ] || [ ! -f build/plugins/example.so ]; then
    echo "bench: $MCPH or build/plugins/example.so is missing: run make first" >&2
    exit 1
fi
if grep -q fsanitize build/.flags 2>/dev/null; then
    echo "bench: warning: $MCPH was built with sanitizers ($(cat build/.flags));" \
         "run make clean && make for figures that mean anything" >&2
fi
if [ ! -d tests/node_modules/@modelcontextprotocol/sdk ]; then
    echo "bench: installing the test npm packages (tests/package-lock.json)" >&2
    (cd tests && npm ci --no-audit --no-fund --loglevel=error)
fi
if ! command -v valgrind >/dev/null; then
    echo "bench: installing valgrind for the instruction counts" >&2
    $SUDO apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >&2 ||
        echo "bench: no valgrind: the instruction rows will be empty" >&2
fi
# Debian's package may start a system nginx on port 80; the bench runs one of its own.
NGINX=$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)
if [ -z "$NGINX" ]; then
    echo "bench: installing nginx for the HTTP floor" >&2
    $SUDO apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light >&2 ||
        echo "bench: no nginx: the nginx column will be empty" >&2
    NGINX=$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)
fi

# The plugin folder must not be writable by group or others (mcph refuses the plugin).
install -d -m 755 build build/tests "$OUT"
CJSON=$(pkg-config --cflags --libs libcjson)
# shellcheck disable=SC2086
{
    $CC $FLAGS -o "$OUT/driver" tests/bench/driver.c $CJSON -lm
    $CC $FLAGS -o "$OUT/http-driver" tests/bench/http-driver.c $CJSON -lm
    $CC $FLAGS -o "$OUT/bare" tests/bench/bare.c $CJSON
    $CC $FLAGS -pthread -o "$OUT/relay" tests/bench/relay.c
    $CC $PLUGIN_FLAGS -o "$OUT/bench.so" tests/bench/bench.c
    $CC $PLUGIN_FLAGS -DBENCH_VARIANT=1 -o "$OUT/bench-a.so" tests/bench/bench.c
    $CC $PLUGIN_FLAGS -DBENCH_VARIANT=2 -o "$OUT/bench-b.so" tests/bench/bench.c
    $CC $PLUGIN_FLAGS -DBENCH_LIST -o "$OUT/bench-list.so" tests/bench/bench.c
}
chmod go-w "$OUT"/*.so
rm -rf "$OUT/logs" "$OUT/audit.jsonl" "$OUT/audit.jsonl.key" "$OUT/nginx"

echo "bench: node $(node --version), @modelcontextprotocol/sdk" \
     "$(node -p "require('./tests/node_modules/@modelcontextprotocol/sdk/package.json').version")," \
     "$(valgrind --version 2>/dev/null || echo 'no valgrind'), $($CC --version | head -n 1)," \
     "$([ -n "$NGINX" ] && "$NGINX" -v 2>&1 | sed 's/.*: //' || echo 'no nginx')" >&2

VALGRIND=$(command -v valgrind || true)
EVERYTHING=tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js
# The gateway rows need the mcp plugin and server-everything (the test npm packages). Their
# INIs are named by absolute paths, so the relative commands in them are resolved from the
# INIs' folder.
GATEWAY=
if [ -f build/plugins/mcp.so ] && [ -f "$EVERYTHING" ]; then
    GATEWAY=yes
else
    echo "bench: build/plugins/mcp.so or $EVERYTHING is missing: no gateway rows" >&2
fi
# The driver reads QUICK from the environment (set, and not 0: the short run).
"$OUT/driver" --mcph "$MCPH" --conf conf/mcph.ini --list-conf tests/bench/bench-list.ini \
    --spin-conf tests/bench/bench-spin.ini --dir "$OUT" --sdk tests/bench/sdk-echo.mjs \
    --gw-isolate-conf "$ROOT/tests/bench/bench-isolate.ini" \
    --gw-confine-conf "$ROOT/tests/bench/bench-confine.ini" \
    --audit-conf "$ROOT/tests/bench/bench-audit.ini" \
    --audit-off-conf "$ROOT/tests/bench/bench-audit-off.ini" \
    --gw-relay "$OUT/relay" \
    ${VALGRIND:+--valgrind "$VALGRIND"} \
    ${GATEWAY:+--gw-everything "$EVERYTHING" --gw-everything-conf \
        "$ROOT/tests/bench/bench-gateway-everything.ini" \
        --gw-mcph-conf "$ROOT/tests/bench/bench-gateway-mcph.ini" \
        --gw-http-hop "$ROOT/tests/bench/http-hop.sh"}
# The HTTP table; SDK_SSE (set, and not 0) adds the SDK server with event-stream responses.
SSE=
case ${SDK_SSE:-0} in 0 | '') ;; *) SSE=yes ;; esac
# Two more mcph columns: a JWT checked on every request, and metrics on.
node tests/bench/jwt.mjs "$OUT"
"$OUT/http-driver" --mcph "$MCPH" --conf conf/mcph.ini --sdk tests/bench/sdk-http-echo.mjs \
    --jwt-conf tests/bench/bench-http-jwt.ini --jwt-token "$OUT/jwt.txt" \
    --metrics-conf tests/bench/bench-http-metrics.ini --dir "$OUT" ${SSE:+--sdk-sse} \
    ${NGINX:+--nginx "$NGINX"}
echo "bench: done in $(($(date +%s) - START)) s; the servers' stderr is in $OUT/logs/" >&2
