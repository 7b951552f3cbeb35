# Which instances a SIGHUP rebuilds though their section and file did not change: one whose
# descriptor sets MCPH_PLUGIN_REBUILD_ON_RELOAD (watcher, whose list defines nothing yet), and
# one that tried to define rows at init even if every row was refused (defines). Each then
# serves its fixed source.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/defines.ini" > mcph.ini && sed -n '/^\[plugin.watcher\]/,$p' "$TDIR/conf/watcher.ini" | sed 's/^path = watcher.so$/&\nprefix = w/' >> mcph.ini && sed -i '/^extra = /,/^    prompt extra_prompt$/d' mcph.ini && printf 'tool bad!name\n' > items.txt && : > list.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"statuses"},{"name":"refresh"},{"name":"late_define"},{"name":"where"},{"name":"w_refresh"}]}}
sh printf 'tool good\n' > items.txt
signal HUP
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
stderr ~reload: defines: rebuild \(it defines what it serves\)
stderr ~reload: watcher: rebuild \(it defines what it serves\)
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"good","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"tool good [tool data]"}]}}
close
exit 0
