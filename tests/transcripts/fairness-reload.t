# A reload that changes a plugin's max_concurrent keeps the instance (no re-init, no
# list_changed) and applies the new share at once: overlap_mt calls that ran two at a time
# run one at a time, then three at a time. A max_concurrent out of range is refused with the
# file, the line and the fix, and the running set stays.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|; s|^path = \.\./\.\./plugins/example.so|path = $ROOT/build/plugins/example.so|" "$TDIR/conf/fairness.ini" > mcph.ini
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
<~ {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"2"}]}}
sh sed -i 's/^max_concurrent = 2/max_concurrent = 1/' mcph.ini
signal HUP
silence 500
stderr ~reload: threadsafe: keep|reload: serving
stderr !~reload: threadsafe: re-init
# The plugin keeps its own count of the most calls seen at once (2): one at a time now means
# each call sees only itself running, which shows in the elapsed time, not in that count.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"2"}]}}
silence 200
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"2"}]}}
sh sed -i 's/^max_concurrent = 1/max_concurrent = 3/' mcph.ini
signal HUP
silence 500
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
<~ {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"3"}]}}
<~ {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}
<~ {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"3"}]}}
sh sed -i 's/^max_concurrent = 3/max_concurrent = 0/' mcph.ini
signal HUP
stderr ~mcph.ini:15: \[plugin.threadsafe\] max_concurrent = '0' is not valid; use a number from 1 to 64
stderr ~reload refused
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":0}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"3"}]}}
close
exit 0
