# expect: ok
# A signal ends the fake server with status 0; the 2025-06-18 view has titles.
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"2"}}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"fail"},{"name":"media"}],"nextCursor":"4"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}}
signal TERM
exit 0
stderr ~SIGTERM
