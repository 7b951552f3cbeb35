# ABI 1.4 through isolate = process: the example's ask_model names its question model_reply in
# the child; the parent (the mcp plugin relaying the child) keeps that name, so the client sees
# the same input_required as in process, and its answer under that key reaches the child.
config: conf/example-isolated.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"Why?"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"model_reply":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Why?"}}],"maxTokens":200}},"ask-1":"<absent>"},"requestState":"<save:ask_model>"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"Why?"},"inputResponses":{"model_reply":{"role":"assistant","content":{"type":"text","text":"because"},"model":"m"}},"requestState":<saved:ask_model>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"~because"}],"resultType":"complete"}}
