# A plugin section may set one cache key and inherit the other from [server]; the lists keep
# the server's hints (defaults: 0 ms, private).
config: conf/modern-cache-plugin.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":"<any>","resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"basic://hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"contents":"<any>","resultType":"complete","ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"basic://files/x/y","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"contents":"<any>","resultType":"complete","ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"result":{"contents":"<any>","resultType":"complete","ttlMs":1500,"cacheScope":"private"}}
