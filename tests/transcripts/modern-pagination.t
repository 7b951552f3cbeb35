# Cursor pagination under 2026-07-28: the same opaque cursors, each page a cacheable result.
config: conf/many.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":"<any>","nextCursor":"bWNwaDp0OjEwMA==","resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"bWNwaDp0OjEwMA==","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"tools":"<any>","nextCursor":"bWNwaDp0OjIwMA==","resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"bWNwaDp0OjIwMA==","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":"<any>","nextCursor":"<absent>","resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"cursor":"bWNwaDpyOjEwMA==","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"resources":[{"uri":"many://r100"},{"uri":"many://r101"},{"uri":"many://r102"},{"uri":"many://r103"},{"uri":"many://r104"},{"uri":"many://r105"},{"uri":"many://r106"},{"uri":"many://r107"},{"uri":"many://r108"},{"uri":"many://r109"},{"uri":"many://r110"},{"uri":"many://r111"},{"uri":"many://r112"},{"uri":"many://r113"},{"uri":"many://r114"},{"uri":"many://r115"},{"uri":"many://r116"},{"uri":"many://r117"},{"uri":"many://r118"},{"uri":"many://r119"}],"nextCursor":"<absent>","resultType":"complete"}}
# A cursor of another list, or past the end, is refused.
> {"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{"cursor":"bWNwaDp0OjEwMA==","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"bWNwaDp0Ojk5OQ==","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32602}}
