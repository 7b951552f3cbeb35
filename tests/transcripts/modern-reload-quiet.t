# No list_changed at all after a reload that changes every list, on a pipe with no listener
# and no initialized legacy session: only modern requests, a cancelled listen, and an
# initialize never followed by notifications/initialized. The lists did change.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/modern-reload.ini" > mcph.ini
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L","reason":"done"}}
sh sed -i '/^\[plugin\.basic\]/,$d' mcph.ini
signal HUP
silence 1000
stderr ~reload: basic: drop
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"~echo"}}
# A legacy session that never sent notifications/initialized gets nothing either.
> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18"}}
sh printf '\n[plugin.basic]\npath = basic.so\n' >> mcph.ini
signal HUP
silence 1000
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"back"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"back"}]}}
