# Progress under 2024-11-05: ProgressNotification has no "message" yet, so mcph leaves it
# out; everything else is as under later revisions.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"t24"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t24","progress":1,"total":2,"message":"<absent>"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t24","progress":2,"total":2,"message":"<absent>"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":0}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":1,"total":1,"message":"<absent>"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}
