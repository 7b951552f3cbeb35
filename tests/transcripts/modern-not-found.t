# A resource that does not exist: -32602 (with data.uri) under 2026-07-28, -32002 in a legacy
# session, on the same pipe; whether no resource or template matches the URI, or a template's
# plugin says the resource is not there.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"features://nope","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"data":{"uri":"features://nope"}}}
> {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"basic://items/missing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"~missing","data":{"uri":"basic://items/missing"}}}
> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"features://nope"}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32002,"data":{"uri":"features://nope"}}}
> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"basic://items/missing"}}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32002,"data":{"uri":"basic://items/missing"}}}
# Modern again, after the legacy session began.
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"features://nope","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"data":{"uri":"features://nope"}}}
> {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"basic://items/missing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"data":{"uri":"basic://items/missing"}}}
# Both at once, answered each in its own era.
> {"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"basic://items/missing"}}
> {"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"basic://items/missing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
<~ {"jsonrpc":"2.0","id":8,"error":{"code":-32002}}
<~ {"jsonrpc":"2.0","id":9,"error":{"code":-32602}}
