# Per-request logging (2026-07-28): _meta "io.modelcontextprotocol/logLevel" makes the plugin's
# log lines during that request's handler go out as notifications/message at or above that
# level, before the result; without it, none, even when a legacy session on the same pipe set
# logging/setLevel; that session's level governs only its own requests.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log","arguments":{"level":"warning","text":"hello modern"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"~features","data":"hello modern","_meta":"<absent>"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"logged"}],"resultType":"complete"}}
# At the level, and below it.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{"level":"info","text":"at info"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"at info"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"logged"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","text":"too quiet"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"logged"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","text":"debug now"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"debug now"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"logged"}]}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"log","arguments":{"level":"alert","text":"not enough"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"emergency"}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"logged"}]}}
# Without the key: nothing, whatever the level.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"log","arguments":{"level":"emergency","text":"unheard"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"logged"}]}}
# An invalid level: -32602, and the tool does not run.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"log","arguments":{"level":"emergency","text":"never"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/logLevel"}}}}
silence 200
# A legacy session that asks for everything.
> {"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":8,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}
< {"jsonrpc":"2.0","id":9,"result":{}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","text":"legacy hears"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"legacy hears"}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"logged"}]}}
# A modern request without the key still gets none...
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"log","arguments":{"level":"emergency","text":"still unheard"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"logged"}],"resultType":"complete"}}
# ...and one with it gets its own level, not the session's.
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"log","arguments":{"level":"warning","text":"below error"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"logged"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"log","arguments":{"level":"critical","text":"above error"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":"above error"}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"logged"}],"resultType":"complete"}}
