# server/discover (2026-07-28) is answered on any pipe, before or without initialize, and does
# not commit the pipe to an era: the probe of a dual-era client (server/discover, then
# initialize on the same pipe when it falls back) works, and requests claiming 2026-07-28 are
# still served statelessly beside the legacy session that follows.
config: conf/example.ini
# The probe exactly as the official TS client v2 sends it.
> {"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe","version":"2.4.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":"server-discover-probe-1","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"prompts":{"listChanged":true},"completions":{}},"instructions":"Use the example tools.\n\n[plugin.example]\ngreet says hello with the configured greeting; count runs long and can be cancelled; confirm and ask_model ask the user or the model first.","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-example","title":"Example host","version":"<any>"}},"serverInfo":"<absent>","protocolVersion":"<absent>"}}
# Asking again is fine (nothing was committed).
> {"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","supportedVersions":"<any>","ttlMs":0,"cacheScope":"private"}}
# A modern request before any initialize: served.
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":"<any>","resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-example"}}}}
# The fallback: a legacy initialize on the same pipe negotiates as usual.
> {"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":4,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"mcph-example","title":"Example host"},"instructions":"Use the example tools.\n\n[plugin.example]\ngreet says hello with the configured greeting; count runs long and can be cancelled; confirm and ask_model ask the user or the model first.","resultType":"<absent>","_meta":"<absent>","ttlMs":"<absent>"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Legacy answers carry nothing of 2026-07-28 (the schema check would also catch it).
> {"jsonrpc":"2.0","id":5,"method":"tools/list"}
< {"jsonrpc":"2.0","id":5,"result":{"tools":"<any>","resultType":"<absent>","ttlMs":"<absent>","cacheScope":"<absent>","_meta":"<absent>"}}
> {"jsonrpc":"2.0","id":6,"method":"ping"}
< {"jsonrpc":"2.0","id":6,"result":{}}
# Without the claim, the 2026-07-28 methods do not exist in a legacy session.
> {"jsonrpc":"2.0","id":7,"method":"server/discover"}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":8,"method":"server/discover","params":{}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32601}}
# With it, both are served beside the legacy session, each request on its own.
> {"jsonrpc":"2.0","id":10,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":10,"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":"<any>","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"modern"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"modern"}],"resultType":"complete","ttlMs":"<absent>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-example","version":"<any>"}}}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"legacy"}],"resultType":"<absent>","_meta":"<absent>"}}
# The session is still the one negotiated: a second initialize is refused as before.
> {"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32600}}
