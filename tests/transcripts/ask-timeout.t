# A client that never answers: after [server] ask_timeout_ms (300 ms here) the tool gets a
# time-out, which it reports as a tool error, and mcph cancels its request with the reason
# "timed out". An answer arriving after that is ignored.
config: conf/features-ask-timeout.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage"}
silence 100
<@1000 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-1","reason":"timed out"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the client did not answer the sampling request in time"}],"isError":true}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"role":"assistant","content":{"type":"text","text":"too late"},"model":"m"}}
silence 200
# Every kind of question times out the same way.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"elicitation/create"}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-2","reason":"timed out"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"~in time"}],"isError":true}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-3","method":"roots/list"}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-3","reason":"timed out"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"~in time"}],"isError":true}}
# An answer within the time is taken.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-4","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-4","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"roots\":[]}"}]}}
