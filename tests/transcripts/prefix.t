# A prefix keeps two plugins' tools apart: collide's echo is served as c_echo.
config: conf/prefix.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"c_echo","arguments":{"text":"x"}}}
< {"jsonrpc":"2.0","id":2,"result":"<any>"}
stderr !~already served
