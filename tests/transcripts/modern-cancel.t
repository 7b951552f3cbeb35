# Cancelling a request that claims 2026-07-28: notifications/cancelled with its id, carrying
# the claim in its _meta or not; no response ever comes, the handler sees the cancellation
# (its workers are free again at once), progress stops; unknown ids are ignored.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":100},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"not cancelled"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}
silence 500
> {"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c3","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
silence 500
# Four cancelled waits would hold all four workers for 5 s if the handlers did not stop.
> {"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":40}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":43,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":0},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
<@400 {"jsonrpc":"2.0","id":44,"result":{"content":[{"type":"text","text":"not cancelled"}],"resultType":"complete"}}
# Progress stops with the request.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{"steps":4,"delay_ms":300},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":4}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
silence 1200
# Unknown and finished ids are ignored; the ids are compared exactly ("1" is not 1).
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":300},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"6"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"not cancelled"}],"resultType":"complete"}}
# A modern call cancelled beside a legacy session's: each by its own id.
> {"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":400}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"not cancelled"}],"resultType":"<absent>"}}
silence 300
