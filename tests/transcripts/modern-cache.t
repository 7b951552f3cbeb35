# Cache hints from the INI: [server] cache_ttl_ms/cache_scope on the lists and server/discover,
# a plugin section's own on reads of that plugin's resources (templates included); calls,
# prompts and completions have none; a legacy session on the same pipe gets none at all.
config: conf/modern-cache.ini
> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"tools":"<any>","resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":3,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"resources":"<any>","resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":4,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":"<any>","resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"result":{"prompts":"<any>","resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
# The features plugin's override, on a resource and on a template.
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"features://doc"}],"resultType":"complete","ttlMs":5000,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"features://items/kiwi","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"features://items/kiwi","text":"item kiwi"}],"resultType":"complete","ttlMs":5000,"cacheScope":"private"}}
# basic has none: the server's.
> {"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"basic://hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":8,"result":{"contents":[{"uri":"basic://hello","text":"hello world"}],"resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"basic://items/7","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"result":{"contents":[{"uri":"basic://items/7"}],"resultType":"complete","ttlMs":60000,"cacheScope":"public"}}
# Not cacheable.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":"<any>","resultType":"complete","ttlMs":"<absent>","cacheScope":"<absent>"}}
> {"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"pick","arguments":{"fruit":"fig"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"result":{"messages":"<any>","resultType":"complete","ttlMs":"<absent>","cacheScope":"<absent>"}}
> {"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":12,"result":{"completion":"<any>","resultType":"complete","ttlMs":"<absent>","cacheScope":"<absent>"}}
# A legacy session beside it: no 2026-07-28 member anywhere.
> {"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":13,"result":{"protocolVersion":"2025-11-25","ttlMs":"<absent>","cacheScope":"<absent>"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":14,"method":"tools/list"}
< {"jsonrpc":"2.0","id":14,"result":{"tools":"<any>","resultType":"<absent>","ttlMs":"<absent>","cacheScope":"<absent>","_meta":"<absent>"}}
> {"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":15,"result":{"contents":[{"uri":"features://doc"}],"resultType":"<absent>","ttlMs":"<absent>","cacheScope":"<absent>","_meta":"<absent>"}}
# And the modern view is unchanged by it.
> {"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":16,"result":{"contents":[{"uri":"features://doc"}],"resultType":"complete","ttlMs":5000,"cacheScope":"private"}}
