# Progress for requests claiming 2026-07-28: _meta.progressToken (string or integer, unchanged)
# beside the envelope gives notifications/progress with total and message, never decreasing,
# all before the result; without a valid token, none.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"tok-m"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-m","progress":1,"total":3,"message":"step 1","_meta":"<absent>"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-m","progress":2,"total":3,"message":"step 2"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-m","progress":3,"total":3,"message":"step 3"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2,"message":"step 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2,"total":2,"message":"step 2"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":{"a":1}}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}
# A legacy session's request and a modern one at once: each token on its own.
> {"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":5,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"m"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"m","progress":1,"total":1,"message":"step 1"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}
# 2024-11-05 has no progress message.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":"l"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"l","progress":1,"total":1,"message":"<absent>"}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}],"resultType":"<absent>"}}
