# A client that declared none of sampling, elicitation or roots is never asked: each tool
# that needs one reports a tool error saying the client does not support it, at once, and no
# request goes to the client.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"sampling":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
<@500 {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the client does not support sampling"}],"isError":true}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
<@500 {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"roots","arguments":{}}}
<@500 {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"the client does not support roots"}],"isError":true}}
silence 200
