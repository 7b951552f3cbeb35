# A progressToken is a string or an integer (ProgressToken). A token of any other type is
# no token: the call runs and is answered, with no notifications/progress (echoing such a
# token would make every notification invalid for the client).
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":true}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":{"a":1}}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":null}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}
# Not an integer.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":1.5}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}]}}
