# A refresh rebuilds an instance from the section it was loaded with, not from the INI file
# on disk: after a reload refused its new section (the old instance stays), a refresh still
# works; an INI edit not yet reloaded is not applied by a refresh.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/defines.ini" > mcph.ini && printf 'tool alpha\n' > items.txt && printf 'tool other\n' > other.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
sh printf 'bogus = 1\n' >> mcph.ini
signal HUP
stderr ~reload: defines: the new version failed; the one in service stays
silence 300
sh printf 'tool gamma\n' >> items.txt
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"asked"}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gamma","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"tool gamma [tool data]"}]}}
# An edit of the INI, not reloaded: the refresh keeps list = items.txt.
sh sed -i -e '/^bogus/d' -e 's/^list = items.txt/list = other.txt/' mcph.ini && printf 'tool delta\n' >> items.txt
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"asked"}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"delta","arguments":{}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"tool delta [tool data]"}]}}
# The reload then applies it.
signal HUP
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"other","arguments":{}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"tool other [tool data]"}]}}
close
exit 0
