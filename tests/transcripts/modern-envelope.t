# Envelope problems of a request claiming 2026-07-28: -32602 with data.envelope {key, problem}
# for a malformed envelope, -32022 with data {supported: every revision, requested} for a
# version mcph does not serve per request. A malformed claim is never served as legacy.
config: conf/basic.ini
# protocolVersion is not a string.
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"~^Invalid _meta envelope for protocol revision 2026-07-28","data":{"envelope":{"key":"io.modelcontextprotocol/protocolVersion","problem":"<any>"}}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/protocolVersion"}}}}
# clientCapabilities missing, or not an object.
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/clientCapabilities","problem":"<any>"}}}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/clientCapabilities"}}}}
> {"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/clientCapabilities"}}}}
# logLevel that is not a spec level ("warn" is only an INI nicety).
> {"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"verbose"}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/logLevel","problem":"<any>"}}}}
> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warn"}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/logLevel"}}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":3}}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/logLevel"}}}}
# Versions mcph does not serve per request: a future one, a legacy one, an empty string.
> {"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32022,"message":"<any>","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}
> {"jsonrpc":"2.0","id":10,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32022,"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2025-11-25"}}}
> {"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"error":{"code":-32022,"data":{"requested":""}}}
# The version is checked before the rest of the envelope.
> {"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}
< {"jsonrpc":"2.0","id":12,"error":{"code":-32022,"data":{"requested":"2099-01-01"}}}
# An unknown method outranks a bad envelope.
> {"jsonrpc":"2.0","id":13,"method":"no/such","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32601}}
# A good envelope, but params themselves wrong: the method's own -32602.
> {"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"~uri","data":"<absent>"}}
# Notifications with a bad claim are dropped silently, like any notification.
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}
silence 200
# None of this made a session, and a legacy one still serves the same pipe.
> {"jsonrpc":"2.0","id":15,"method":"tools/list"}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":16,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":16,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# The same envelope errors inside a legacy session.
> {"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
< {"jsonrpc":"2.0","id":17,"error":{"code":-32602,"data":{"envelope":{"key":"io.modelcontextprotocol/clientCapabilities"}}}}
> {"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":18,"error":{"code":-32022,"data":{"requested":"2024-11-05"}}}
> {"jsonrpc":"2.0","id":19,"method":"tools/list"}
< {"jsonrpc":"2.0","id":19,"result":{"tools":"<any>","resultType":"<absent>"}}
