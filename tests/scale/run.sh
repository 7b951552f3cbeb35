#!/usr/bin/env bash
# Scale-out: three mcph replicas behind nginx, driven through nginx by the official SDK
# clients (tests/scale/scale.mjs).
#
#   tests/scale/run.sh [MCPH_BINARY]          (make test-scale: tests/scale/run.sh build/mcph)
#
# nginx is Debian's (installed with apt-get when missing), run with a prefix of its own in a
# temporary folder: tests/scale/nginx.conf.in, round-robin over the replicas for sessionless
# (2026-07-28) requests, and routed on the Mcp-Session-Id prefix for legacy sessions. Each
# replica serves a copy of tests/scale/replica.ini (its own session_route, one shared
# state_key_file, OAuth on with a JWKS file of tests/scale/oauth.mjs) on a port of its choosing (--listen 127.0.0.1:0); their plugins are the ones
# beside the binary (DIR/plugins for DIR/mcph). Then:
#   - the driver's checks (see scale.mjs);
#   - every replica still running after them, nginx logged no error, each replica stops with
#     status 0 on SIGTERM, no sanitizer report in a replica's log.
# Everything started is stopped at the end, also after a failure or an interrupt. Prints
# "ok ..." / "FAIL ..." lines, then "scale: N passed, N failed"; exits 1 on a failure. The
# temporary folder (INIs, logs, nginx's access log) stays after a failure and is named.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mcph=${1:-$root/build/mcph}
if [ -x "$mcph" ] && [ ! -d "$mcph" ]; then
    mcph=$(cd "$(dirname "$mcph")" && pwd)/$(basename "$mcph")
else
    echo "scale: $mcph is not an executable; build it first (make)" >&2
    exit 2
fi
plugins=$(dirname "$mcph")/plugins
limit=${SCALE_TIMEOUT:-300}
# What a sanitizer writes when it finds something (as tests/lib/util.mjs SANITIZER_REPORT).
sanitizer='ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer'
cd "$root" || exit 2

passed=0
failed=0
ok() {
    passed=$((passed + 1))
    echo "ok $1${2:+ ($2)}"
}
fail() {
    failed=$((failed + 1))
    echo "FAIL $1${2:+: $2}"
}

# --- nginx -----------------------------------------------------------------------------------
if ! command -v nginx >/dev/null; then
    echo "scale: the test needs nginx; installing it with apt-get"
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx
fi
# Debian's package starts a system nginx on port 80; ours is a process of its own.
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$nginx" ]; then
    echo "scale: nginx is not installed and could not be" >&2
    exit 2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/mcph-scale.XXXXXX")
# nginx's workers run as nobody when it starts as root: they must reach its temporary paths.
chmod 755 "$dir"

# --- Stopping: every process started here, by its pid. ---------------------------------------
pids=()  # the replicas
nginx_pid=
driver=
# stop_pid PID SIGNAL: the signal, up to 30 s (a sanitizer build is slow), then SIGKILL; sets
# `stopped` to the exit status ("killed" after SIGKILL). Not in a subshell: wait needs the
# process to be a child of this shell.
stopped=
stop_pid() {
    local pid=$1 status=0
    kill "-$2" "$pid" 2>/dev/null || true
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        status=killed
        wait "$pid" 2>/dev/null
    else
        wait "$pid" 2>/dev/null || status=$?
    fi
    stopped=$status
}
cleanup() {
    if [ -n "$driver" ]; then
        # timeout passes the signal on to node.
        stop_pid "$driver" TERM
        driver=
    fi
    if [ -n "$nginx_pid" ]; then
        stop_pid "$nginx_pid" QUIT
        nginx_pid=
    fi
    for pid in "${pids[@]}"; do
        [ -n "$pid" ] && stop_pid "$pid" TERM
    done
    pids=()
    if [ "$failed" -eq 0 ] && [ -z "${SCALE_KEEP:-}" ]; then
        rm -rf "$dir"
    else
        echo "scale: INIs, logs and nginx's access log left in $dir"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$(date +%s)

# --- The replicas: a shared state key, one INI each. -----------------------------------------
head -c 48 /dev/urandom | base64 >"$dir/state.key"
chmod 600 "$dir/state.key"
# OAuth: the key tokens are signed with, and its JWKS for the replicas' oauth_jwks_file.
if ! node "$here/oauth.mjs" "$dir"; then
    fail "the test's OAuth signing key is written" "node tests/scale/oauth.mjs failed"
    exit 1
fi
: >"$dir/replicas"
for i in 1 2 3; do
    sed -e "s|@PLUGIN_DIR@|$plugins|" -e "s|@STATE_KEY@|$dir/state.key|" -e "s|@ROUTE@|r$i|" \
        -e "s|@JWKS@|$dir/jwks.json|" \
        "$here/replica.ini" >"$dir/r$i.ini"
    "$mcph" --listen 127.0.0.1:0 "$dir/r$i.ini" </dev/null >"$dir/r$i.log" 2>&1 &
    pids[i]=$!
done
addr=()
for i in 1 2 3; do
    # "mcph: info: listening on http://127.0.0.1:PORT/mcp"; 30 s for a sanitizer build.
    for _ in $(seq 300); do
        addr[i]=$(sed -n 's#^.*listening on http://\(127\.0\.0\.1:[0-9][0-9]*\)/mcp.*$#\1#p' \
            "$dir/r$i.log" | head -n 1)
        [ -n "${addr[$i]}" ] && break
        kill -0 "${pids[$i]}" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "${addr[$i]}" ]; then
        fail "replica r$i starts" "no 'listening on' line within 30 s; its log:"
        sed 's/^/#   /' "$dir/r$i.log"
        echo "scale: $passed passed, $failed failed"
        exit 1
    fi
    echo "r$i ${addr[$i]} ${pids[$i]} $dir/r$i.ini" >>"$dir/replicas"
done
ok "three replicas listening" "${addr[*]}"

# --- nginx on a free loopback port (another try if the port was taken meanwhile). ------------
free_port() {
    node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
        console.log(s.address().port); s.close(); });'
}
port=
for _ in 1 2 3; do
    port=$(free_port)
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@REPLICA1@|${addr[1]}|g" \
        -e "s|@REPLICA2@|${addr[2]}|g" -e "s|@REPLICA3@|${addr[3]}|g" \
        "$here/nginx.conf.in" >"$dir/nginx.conf"
    if ! "$nginx" -t -q -p "$dir" -e stderr -c "$dir/nginx.conf" 2>"$dir/nginx-t.log"; then
        fail "nginx accepts the configuration" "$(tr '\n' ' ' <"$dir/nginx-t.log")"
        echo "scale: $passed passed, $failed failed"
        exit 1
    fi
    "$nginx" -p "$dir" -e stderr -c "$dir/nginx.conf" -g 'daemon off;' >"$dir/nginx.log" 2>&1 &
    nginx_pid=$!
    up=
    for _ in $(seq 100); do
        kill -0 "$nginx_pid" 2>/dev/null || break
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ -n "$up" ] && break
    stop_pid "$nginx_pid" QUIT
    nginx_pid=
    port=
done
if [ -z "$port" ]; then
    fail "nginx starts" "$(tail -n 5 "$dir/nginx.log" | tr '\n' ' ')"
    echo "scale: $passed passed, $failed failed"
    exit 1
fi
url=http://127.0.0.1:$port/mcp
ok "nginx in front of them" "$url, $("$nginx" -v 2>&1 | sed 's/.*: //')"

# --- The driver. -----------------------------------------------------------------------------
timeout --kill-after=10 "$limit" node "$here/scale.mjs" "$url" "$dir" >"$dir/driver.log" 2>&1 &
driver=$!
wait "$driver"
driver_status=$?
driver=
grep -v '^scale driver: ' "$dir/driver.log"
driver_ok=$(grep -c '^ok ' "$dir/driver.log")
driver_failed=$(grep -c '^FAIL ' "$dir/driver.log")
passed=$((passed + driver_ok))
failed=$((failed + driver_failed))
if [ "$driver_status" -ne 0 ] && [ "$driver_failed" -eq 0 ]; then
    fail "scale driver" "exit status $driver_status$([ "$driver_status" -eq 124 ] && echo " (no end within ${limit} s)")"
fi

# --- Afterwards: still serving, clean stops, clean logs. -------------------------------------
for i in 1 2 3; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
        fail "replica r$i still running after the driver" "$(tail -n 3 "$dir/r$i.log" | tr '\n' ' ')"
    fi
done
stop_pid "$nginx_pid" QUIT
nginx_pid=
if [ "$stopped" != 0 ]; then
    fail "nginx logged no error" "it exited with status $stopped after SIGQUIT"
elif grep -Eq '\[(error|crit|alert|emerg)\]' "$dir/nginx.log"; then
    fail "nginx logged no error" "$(grep -E -m 3 '\[(error|crit|alert|emerg)\]' "$dir/nginx.log" |
        tr '\n' ' ')"
else
    ok "nginx logged no error" "stopped with status $stopped"
fi
stops=()
for i in 1 2 3; do
    stop_pid "${pids[$i]}" TERM
    stops[i]=$stopped
    pids[i]=
done
if [ "${stops[*]}" = "0 0 0" ]; then
    ok "every replica stops with status 0 on SIGTERM"
else
    fail "every replica stops with status 0 on SIGTERM" "r1 r2 r3: ${stops[*]}"
fi
reports=
for i in 1 2 3; do
    if grep -Eq "$sanitizer" "$dir/r$i.log"; then
        reports="$reports r$i: $(grep -E -m 2 "$sanitizer" "$dir/r$i.log" | tr '\n' ' ')"
    fi
done
if [ -n "$reports" ]; then
    fail "no sanitizer report in the replicas' logs" "$reports"
else
    ok "no sanitizer report in the replicas' logs"
fi

echo "scale: $passed passed, $failed failed in $(($(date +%s) - t0)) s"
[ "$failed" -eq 0 ]
