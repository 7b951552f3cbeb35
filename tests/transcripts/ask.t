# Asking the client (ABI 1.1 host->sample, elicit, roots) under 2025-06-18, with a client that
# declared sampling, elicitation and roots. mcph sends its own requests with ids "mcph-1",
# "mcph-2", ... in order; the transcript plays the client and answers them. A JSON-RPC error
# from the client becomes the tool's error; cancelling a tool call that waits for an answer
# cancels mcph's own request too.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Sampling: the plugin's params go out as they are.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"test-model","stopReason":"endTurn"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"test-model\",\"stopReason\":\"endTurn\"}"}],"isError":"<absent>"}}
# Elicitation (form mode): message and requestedSchema.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"action":"accept","content":{"name":"Ada"}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"}]}}
# A declined elicitation is an answer like any other.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-3","method":"elicitation/create","params":{"message":"Your name?"}}
> {"jsonrpc":"2.0","id":"mcph-3","result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"action\":\"decline\"}"}]}}
# Roots.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-4","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-4","result":{"roots":[{"uri":"file:///home/ada/project","name":"project"}]}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///home/ada/project\",\"name\":\"project\"}]}"}]}}
# The client answers with a JSON-RPC error: a tool error that carries it.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-5","method":"sampling/createMessage"}
> {"jsonrpc":"2.0","id":"mcph-5","error":{"code":-1,"message":"User rejected sampling request"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"~refused the sampling request: .*User rejected sampling request"}],"isError":true}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-6","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-6","error":{"code":-32601,"message":"Method not found"}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"~-32601"}],"isError":true}}
# Two tools waiting at once get their own answers, whatever order the client answers in.
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-7","method":"sampling/createMessage"}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-8","method":"elicitation/create"}
> {"jsonrpc":"2.0","id":"mcph-8","result":{"action":"cancel"}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"{\"action\":\"cancel\"}"}]}}
> {"jsonrpc":"2.0","id":"mcph-7","result":{"role":"assistant","content":{"type":"text","text":"second"},"model":"m2"}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"~\"text\":\"second\""}]}}
# An answer to nothing (an id mcph never sent, or one already answered) is ignored.
> {"jsonrpc":"2.0","id":"mcph-99","result":{"roots":[]}}
> {"jsonrpc":"2.0","id":"mcph-7","result":{"role":"assistant","content":{"type":"text","text":"again"},"model":"m2"}}
silence 200
# Cancelling the tool call while it waits: mcph cancels its own request ("mcph-9") and
# never answers the tool call; the client's late answer is ignored.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-9","method":"sampling/createMessage"}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-9","reason":"cancelled"}}
silence 300
> {"jsonrpc":"2.0","id":"mcph-9","result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}
silence 200
> {"jsonrpc":"2.0","id":11,"method":"ping"}
< {"jsonrpc":"2.0","id":11,"result":{}}
# The same for an elicitation and for roots.
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-10","method":"elicitation/create"}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12,"reason":"user left"}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-10","reason":"cancelled"}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-11","method":"roots/list"}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":13}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-11","reason":"cancelled"}}
silence 300
# Ids go on counting after cancellations.
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-12","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-12","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"{\"roots\":[]}"}]}}
