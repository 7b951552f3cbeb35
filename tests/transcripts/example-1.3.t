# The example plugin's ABI 1.3 tour: relay answers with a whole CallToolResult given as JSON
# (result_json; a 2024-11-05 client gets no structuredContent) and sends a log message to the
# client first (client_log, after logging/setLevel); the note set before a rescan is still
# there after it (MCPH_PLUGIN_TAKE_OVER: the rebuilt instance copies it from its predecessor).
config: conf/example.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}
< {"jsonrpc":"2.0","id":2,"result":{}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"relay","arguments":{"log":"relaying","result":"{\"content\":[{\"type\":\"text\",\"text\":\"from elsewhere\"}],\"structuredContent\":{\"n\":1},\"isError\":true}"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"example","data":"relaying"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"from elsewhere"}],"structuredContent":{"n":1},"isError":true}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"relay","arguments":{"result":"[1,2]"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"result is not a CallToolResult in JSON"}],"isError":true}}
> {"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"error"}}
< {"jsonrpc":"2.0","id":8,"result":{}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"set_note","arguments":{"text":"kept across a rebuild"}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"noted"}]}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"rescan","arguments":{}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"rescan requested"}]}}
silence 400
> {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"example://note"}}
< {"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"example://note","text":"kept across a rebuild"}]}}
close
exit 0
