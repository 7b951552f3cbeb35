# A change only the instance being replaced sees (its refresh comes while the new instance's
# slow init runs, after that init read the list) is not lost: the request belongs to the
# instance id, so the new instance is built again and serves the change.
setup: sed -e "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" -e 's/^list = list.txt$/&\nslow_init_ms = 800/' "$TDIR/conf/watcher.ini" > mcph.ini && printf 'tool alpha\n' > list.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
sh printf 'tool beta\n' >> list.txt
sleep 400
sh printf 'tool gamma\n' >> list.txt
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
silence 1200
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"refresh"},{"name":"alpha"},{"name":"beta"},{"name":"gamma"}]}}
close
exit 0
