# MRTR with the example plugin's tools that ask the client: confirm (elicitation), ask_model
# (sampling; ABI 1.4: its question goes under the name it gave it, model_reply, not ask-1) and
# roots; and each refused without the capability.
config: conf/example.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"delete the draft"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"elicitation/create","params":{"message":"Go ahead and delete the draft?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm"}},"required":["confirm"]}}}},"requestState":"<save:confirm>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-example","title":"Example host"}}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"delete the draft"},"inputResponses":{"ask-1":{"action":"accept","content":{"confirm":true}}},"requestState":<saved:confirm>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"confirm\":true}}"}],"isError":"<absent>","resultType":"complete"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"Why \"42\"?"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"model_reply":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Why \"42\"?"}}],"maxTokens":200}}},"requestState":"<save:ask_model>"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"Why \"42\"?"},"inputResponses":{"model_reply":{"role":"assistant","content":{"type":"text","text":"because"},"model":"m"}},"requestState":<saved:ask_model>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"~because"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}
< {"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"ask-1":{"method":"roots/list"}},"requestState":"<save:roots>"}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"roots","arguments":{},"inputResponses":{"ask-1":{"roots":[]}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"{\"roots\":[]}"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"this client does not support elicitation"}],"isError":true,"resultType":"complete"}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"this client does not support sampling"}],"isError":true,"resultType":"complete"}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"roots","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"this client does not support roots"}],"isError":true,"resultType":"complete"}}
# ABI 1.4: an answer under the question's name counts on a first call too (a client may answer
# ahead); one under ask-1, the key it would have had unnamed, is not its answer.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"x"},"inputResponses":{"model_reply":{"role":"assistant","content":{"type":"text","text":"ahead"},"model":"m"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"~ahead"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"x"},"inputResponses":{"ask-1":{"role":"assistant","content":{"type":"text","text":"ahead"},"model":"m"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":11,"result":{"resultType":"input_required","inputRequests":{"model_reply":{"method":"sampling/createMessage"},"ask-1":"<absent>"}}}
