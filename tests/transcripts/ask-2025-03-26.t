# Under 2025-03-26 there is no elicitation: a client declaring it anyway is not asked, and
# the tool reports that the client does not support it. Sampling and roots, which the
# revision has, work; their requests are validated against the 2025-03-26 schema.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true}}
silence 200
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"ok\"},\"model\":\"m\"}"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"roots":[{"uri":"file:///tmp"}]}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///tmp\"}]}"}]}}
# 2025-03-26 has batches: the client may answer inside one (a batch of responses gets no
# reply), and a call in a batch may ask the client before the batch is answered.
> [{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots","arguments":{}}},{"jsonrpc":"2.0","id":6,"method":"ping"}]
< {"jsonrpc":"2.0","id":"mcph-3","method":"roots/list"}
> [{"jsonrpc":"2.0","id":"mcph-3","result":{"roots":[{"uri":"file:///batch"}]}}]
< [{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///batch\"}]}"}]}},{"jsonrpc":"2.0","id":6,"result":{}}]
silence 200
