# A reload that replaces a plugin instance (its section changed: re-init) may serve new
# contents under the same URIs, so mcph sends resources/updated for them: to the legacy
# session for the URIs it subscribed to (untagged), and to each open listen for the URIs in
# its resourceSubscriptions (tagged), whether or not a legacy session subscribed to them.
setup: sed -e "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" -e '/^\[plugin\.basic\]/,$d' "$TDIR/conf/modern-reload.ini" > mcph.ini
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["features://doc"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"resourceSubscriptions":["features://doc"]}}}
# Re-init features (a cache key changes its section, not its lists): no legacy session yet.
sh printf 'cache_ttl_ms = 1000\n' >> mcph.ini
signal HUP
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"uri":"features://doc"}}
silence 500
stderr ~reload: features: re-init
# With a legacy session subscribed to the same URI: one copy each.
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":2,"result":{}}
sh sed -i 's/^cache_ttl_ms = 1000$/cache_ttl_ms = 2000/' mcph.ini
signal HUP
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"uri":"features://doc"}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":"<absent>","uri":"features://doc"}}
silence 500
close
< {"jsonrpc":"2.0","id":"L","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
exit 0
