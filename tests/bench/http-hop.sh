#!/usr/bin/env bash
# http-hop.sh MCPH CONF: the "HTTP hop" chain of make bench's gateway rows. Starts a second
# mcph serving CONF on 127.0.0.1 (a free port, read from its "listening on" log line), then
# serves, on this script's stdin and stdout, an mcph whose one section is a url section of
# the mcp plugin pointed at it (prefix m, as bench-gateway-mcph.ini's stdio hop). The second
# mcph is this script's child, so the driver counts its CPU with the chain's; it is stopped
# when the front one exits. Its stderr goes to the front one's (the driver's log).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mcph=$1 conf=$2
dir=$(mktemp -d)
up=
trap '[ -z "$up" ] || kill "$up" 2>/dev/null; [ -z "$up" ] || wait "$up" 2>/dev/null; rm -rf "$dir"' EXIT
# At most 15 minutes, in case this script is killed before its trap runs.
timeout 900 "$mcph" --listen 127.0.0.1:0 "$conf" 2>"$dir/up.log" </dev/null &
up=$!
url=
for _ in $(seq 1 500); do
    url=$(sed -n 's#^.*listening on \(http://127\.0\.0\.1:[0-9][0-9]*/[^ ]*\).*$#\1#p' "$dir/up.log" |
        head -n 1)
    [ -n "$url" ] && break
    kill -0 "$up" 2>/dev/null || break
    sleep 0.02
done
if [ -z "$url" ]; then
    echo "http-hop.sh: the second mcph did not listen within 10 s:" >&2
    cat "$dir/up.log" >&2
    exit 1
fi
cat >"$dir/front.ini" <<INI
[server]
name = mcph
plugin_dir = $root/build/plugins

[plugin.m]
path = mcp.so
prefix = m
url = $url
allow_http = yes
allow_networks = 127.0.0.1/32
INI
"$mcph" "$dir/front.ini"
