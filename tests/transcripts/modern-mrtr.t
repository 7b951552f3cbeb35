# MRTR (2026-07-28): a tool that asks the client is answered with an InputRequiredResult
# ("ask-1" keyed inputRequests, an opaque requestState); the client retries with a new id, the
# same params, inputResponses and the requestState echoed; the tool then gets the answer. Only
# what this request's clientCapabilities declare may be asked; mcph never sends a JSON-RPC
# request to a 2026-07-28 client. No tool of the features or example plugin asks twice in one
# call, so every round trip here has one question.
config: conf/features.ini
# Elicitation (form mode: an empty elicitation capability means form).
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"<save:elicit>","content":"<absent>","ttlMs":"<absent>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features","version":"<any>"}}}}
silence 200
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","arguments":{},"inputResponses":{"ask-1":{"action":"accept","content":{"name":"Ada"}}},"requestState":<saved:elicit>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"}],"isError":"<absent>","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
# A declined elicitation is an answer like any other.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"elicit","arguments":{},"inputResponses":{"ask-1":{"action":"decline"}},"requestState":<saved:elicit>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"action\":\"decline\"}"}],"resultType":"complete"}}
# A retry that does not answer the question (no inputResponses, or only other keys) gets the
# question again, not an error.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"elicit","arguments":{},"requestState":<saved:elicit>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create"}},"requestState":"<save:elicit>"}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"elicit","arguments":{},"inputResponses":{"ask-9":{"action":"accept","content":{"name":"Eve"}}},"requestState":<saved:elicit>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create"}}}}
# The answer alone (no requestState) is enough for a one-question tool.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"elicit","arguments":{},"inputResponses":{"ask-1":{"action":"cancel"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"{\"action\":\"cancel\"}"}],"resultType":"complete"}}
# elicitation {"form": {}} declares form mode; {"url": {}} alone does not.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}
< {"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create"}}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true,"resultType":"complete"}}
# Sampling: the plugin's params as the embedded request's params.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sample","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":9,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}},"requestState":"<save:sample>"}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"sample","arguments":{},"inputResponses":{"ask-1":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"test-model","stopReason":"endTurn"}},"requestState":<saved:sample>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"test-model\",\"stopReason\":\"endTurn\"}"}],"resultType":"complete"}}
# Roots: roots/list has no params.
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"roots","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}
< {"jsonrpc":"2.0","id":11,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"roots/list","params":"<absent>"}},"requestState":"<save:roots>"}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"roots","arguments":{},"inputResponses":{"ask-1":{"roots":[{"uri":"file:///home/ada/project","name":"project"}]}},"requestState":<saved:roots>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///home/ada/project\",\"name\":\"project\"}]}"}],"resultType":"complete"}}
# The state of another tool's call carries nothing for this one: the question comes again.
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"sample","arguments":{},"requestState":<saved:elicit>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":13,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"sampling/createMessage"}}}}
# A request that does not declare the capability: the tool reports it, nothing is asked.
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true,"resultType":"complete"}}
> {"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"sample","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"the client does not support sampling"}],"isError":true,"resultType":"complete"}}
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"roots","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"the client does not support roots"}],"isError":true,"resultType":"complete"}}
# The capabilities are the request's own, not a legacy session's: a session that declared all
# three is asked with a JSON-RPC request as before, a modern request without them is not.
> {"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":17,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":18,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true,"resultType":"complete"}}
> {"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"elicitation/create","params":{"message":"Your name?"}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"action":"accept","content":{"name":"Bob"}}}
< {"jsonrpc":"2.0","id":19,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Bob\"}}"}],"resultType":"<absent>"}}
# And a modern request that declares it gets MRTR even beside that session.
> {"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"elicit","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":20,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create"}},"requestState":"<save:beside>"}}
> {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"elicit","arguments":{},"inputResponses":{"ask-1":{"action":"accept","content":{"name":"Cy"}}},"requestState":<saved:beside>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Cy\"}}"}],"resultType":"complete"}}
