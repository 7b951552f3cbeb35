# Methods 2026-07-28 removed (initialize, ping, logging/setLevel, resources/subscribe,
# resources/unsubscribe) and unknown ones: -32601 to a request claiming it, with or without a
# legacy session on the pipe; a claimed initialize negotiates nothing. Notification methods
# sent as requests are -32601 too under the claim.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"~2026-07-28"}}
> {"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":6,"method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":7,"method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":8,"method":"tasks/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":9,"method":"roots/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32601}}
# The claimed initialize negotiated nothing: no session, ping still allowed without a claim.
> {"jsonrpc":"2.0","id":10,"method":"tools/list"}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":11,"method":"ping"}
< {"jsonrpc":"2.0","id":11,"result":{}}
# The same with a legacy session on the pipe.
> {"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":12,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":13,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":14,"method":"logging/setLevel","params":{"level":"debug","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":14,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":15,"method":"resources/subscribe","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":16,"method":"resources/unsubscribe","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":16,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":17,"error":{"code":-32601}}
# Without the claim they are the legacy session's methods, as before.
> {"jsonrpc":"2.0","id":18,"method":"ping"}
< {"jsonrpc":"2.0","id":18,"result":{}}
> {"jsonrpc":"2.0","id":19,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":19,"result":{}}
> {"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"emergency"}}
< {"jsonrpc":"2.0","id":20,"result":{}}
# The subscription made by the legacy session is its own: the update is untagged.
> {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://doc","_meta":"<absent>"}}
< {"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"touched"}],"resultType":"complete"}}
