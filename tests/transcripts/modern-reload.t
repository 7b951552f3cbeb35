# list_changed after a SIGHUP reload, both eras on one pipe: the initialized legacy session
# gets its untagged notification for each list that changed; each open listen gets a copy
# tagged with its subscriptionId for each changed list it asked for, and nothing else; a
# cancelled listen gets nothing. A reload that changes no list sends nothing at all.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/modern-reload.ini" > mcph.ini
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":"A","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"A"},"notifications":{"toolsListChanged":true}}}
> {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true,"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"promptsListChanged":true,"resourcesListChanged":true}}}
> {"jsonrpc":"2.0","id":"C","method":"subscriptions/listen","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"C"},"notifications":{}}}
> {"jsonrpc":"2.0","id":"D","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"D"},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"D"}}
# Reload 1: basic goes, so tools, resources (and templates) and prompts all change.
sh sed -i '/^\[plugin\.basic\]/,$d' mcph.ini
signal HUP
<~ {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":"<absent>"}
<~ {"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":"<absent>"}
<~ {"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":"<absent>"}
<~ {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"A"}}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
<~ {"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
silence 500
stderr ~reload: basic: drop
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"progress"},{"name":"wait_cancel"},{"name":"touch"},{"name":"sample"},{"name":"elicit"},{"name":"roots"},{"name":"annotated"},{"name":"bad_output"},{"name":"no_output"},{"name":"good_output"},{"name":"strict"},{"name":"log"}],"resultType":"complete"}}
# Reload 2: a prefix renames the features plugin's tools and prompts; its resources keep their
# URIs, so only the tools and prompts lists changed.
sh sed -i 's/^path = features.so$/&\nprefix = f/' mcph.ini
signal HUP
<~ {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":"<absent>"}
<~ {"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":"<absent>"}
<~ {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"A"}}}
<~ {"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
silence 500
> {"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"prompts":[{"name":"f_pick"},{"name":"f_many"}],"resultType":"complete"}}
# Reload 3: nothing changed, nothing sent.
signal HUP
silence 800
stderr ~0 dropped, 0 loaded, 0 failed
# End of input: the three open listens get their results.
close
<~ {"jsonrpc":"2.0","id":"A","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"A"}}}
<~ {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
<~ {"jsonrpc":"2.0","id":"C","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"C"}}}
exit 0
