# Progress stops with the request: once the client cancelled a call, the operation is no
# longer in progress for it (clients drop the token when they cancel, and the SDKs report a
# notification for an unknown token as an error), so mcph sends no more
# notifications/progress for it, even from a plugin that ignores the cancellation and goes
# on reporting.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":4,"delay_ms":300},"_meta":{"progressToken":"p"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":4}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
silence 1200
> {"jsonrpc":"2.0","id":3,"method":"ping"}
< {"jsonrpc":"2.0","id":3,"result":{}}
