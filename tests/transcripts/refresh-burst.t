# A plugin that asks for a rebuild every 20 ms without pause is still rebuilt (at the latest
# 1 s after its first request, not never), and the server keeps answering meanwhile.
setup: sed -e "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" -e 's/^list = list.txt$/&\nspam_ms = 20/' "$TDIR/conf/watcher.ini" > mcph.ini && printf 'tool alpha\n' > list.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
sh printf 'tool beta\n' >> list.txt
<@2500 {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
<@200 {"jsonrpc":"2.0","id":2,"result":{}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"beta","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"beta"}]}}
close
exit 0
