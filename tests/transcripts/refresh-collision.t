# A plugin that defines what it serves (watcher: a tool per line of list.txt) starts serving a
# name another plugin serves, and asks to be rebuilt. As at start-up, its row is left out with
# a line naming both plugins, the rest of its new set is served, and a later SIGHUP is not
# refused for it (it used to refuse every refresh and every reload for as long as the name
# stayed). The plugin that served the name first keeps it, though watcher comes first in the
# INI.
setup: sed -e "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/watcher.ini" > mcph.ini && printf '\n[plugin.basic]\npath = basic.so\n' >> mcph.ini && printf 'tool alpha\n' > list.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
sh printf 'tool echo\ntool beta\n' >> list.txt
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
stderr ~plugin 'watcher' \([^)]*\): tool 'echo' is already served by plugin 'basic'; left out
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from basic"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"from basic"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"beta","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"beta"}]}}
sh printf '\n[plugin.more]\npath = threadsafe.so\nprefix = more\n' >> mcph.ini
signal HUP
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"more_overlap_mt","arguments":{"ms":1}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":"<any>"}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still basic"}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"still basic"}]}}
stderr !~reload refused
close
exit 0
