# Under 2025-11-25 elicitation has modes: a client declaring only "url" cannot take the
# form-mode question a plugin asks, so it is not asked. Sampling and roots are unaffected.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"the client does not support sampling"}],"isError":true}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"roots":[{"uri":"file:///srv","name":"srv"}]}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"~file:///srv"}]}}
silence 200
