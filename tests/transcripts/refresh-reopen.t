# A refresh of an instance whose .so was rebuilt meanwhile is a reopen, as a reload would
# make it: the new code runs, and a subscriber of its resources is told they may have
# changed. A SIGHUP that changes nothing sends nothing, even to subscribers of an instance
# it rebuilds (defined rows: same code, same config).
setup: sed -e "s|^plugin_dir = .*|plugin_dir = $WORK|" "$TDIR/conf/defines.ini" > mcph.ini && cp "$ROOT/build/tests/plugins/defines.so" defines.so && printf 'tool alpha\nresource defined://one\n' > items.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"defined://one"}}
< {"jsonrpc":"2.0","id":2,"result":{}}
signal HUP
stderr ~reload: defines: rebuild \(it defines what it serves\)
silence 500
sh node "$ROOT/tests/lib/plugin.mjs" "$ROOT/tests/plugins/defines.c" defines.so -DDEFINES_TAG='" v2"'
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"asked"}]}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"defined://one"}}
stderr ~reload: defines: reopen \(file changed\)
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"alpha","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"tool alpha [tool data] v2"}]}}
close
exit 0
