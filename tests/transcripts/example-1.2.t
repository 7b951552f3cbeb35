# The example plugin's ABI 1.2 tour: tools defined from a multi-line key and served by one
# handler through call_name (under a prefix, which call_name leaves out), a refused row
# logged while the rest serve, a resource for a path-valued key resolved against the INI's
# folder, and rescan (host->refresh): the notes file grew, so resources/list_changed, and the
# listed size follows.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/plugins|" "$TDIR/conf/example-1.2.ini" > mcph.ini && printf 'first\n' > notes.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
stderr ~tool name 'bad name' is not valid.*\(a tool defined by init; left out\)
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ex_hello","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello there."}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ex_motto","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Small core, plugins for the rest."}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ex_bad name","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Unknown tool: ex_bad name"}}
> {"jsonrpc":"2.0","id":5,"method":"resources/list"}
< {"jsonrpc":"2.0","id":5,"result":{"resources":[{"uri":"example://readme"},{"uri":"example://note"},{"uri":"example://notes-file","size":6,"description":"~^/.*/example-1\\.2\\.[0-9]+/notes\\.txt$"}]}}
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"example://notes-file"}}
< {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"example://notes-file","mimeType":"text/plain","text":"first\n"}]}}
sh printf 'second line\n' >> notes.txt
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ex_rescan","arguments":{}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"rescan requested"}]}}
< {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
silence 400
> {"jsonrpc":"2.0","id":8,"method":"resources/list"}
< {"jsonrpc":"2.0","id":8,"result":{"resources":[{"uri":"example://readme"},{"uri":"example://note"},{"uri":"example://notes-file","size":18}]}}
# Numbers keep every digit on their way through mcph (cJSON alone would print 0.3).
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ex_add","arguments":{"a":0.1,"b":0.2}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"0.30000000000000004"}],"structuredContent":{"sum":0.30000000000000004}}}
close
exit 0
