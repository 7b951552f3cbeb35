# Cursor pagination on every list: 250 tools, 120 resources and 60 prompts in pages of 100.
config: conf/many.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":"<any>","nextCursor":"bWNwaDp0OjEwMA=="}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"bWNwaDp0OjEwMA=="}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":"<any>","nextCursor":"bWNwaDp0OjIwMA=="}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"bWNwaDp0OjIwMA=="}}
< {"jsonrpc":"2.0","id":4,"result":{"tools":"<any>","nextCursor":"<absent>"}}
> {"jsonrpc":"2.0","id":5,"method":"resources/list"}
< {"jsonrpc":"2.0","id":5,"result":{"resources":"<any>","nextCursor":"bWNwaDpyOjEwMA=="}}
> {"jsonrpc":"2.0","id":6,"method":"resources/list","params":{"cursor":"bWNwaDpyOjEwMA=="}}
< {"jsonrpc":"2.0","id":6,"result":{"resources":[{"uri":"many://r100"},{"uri":"many://r101"},{"uri":"many://r102"},{"uri":"many://r103"},{"uri":"many://r104"},{"uri":"many://r105"},{"uri":"many://r106"},{"uri":"many://r107"},{"uri":"many://r108"},{"uri":"many://r109"},{"uri":"many://r110"},{"uri":"many://r111"},{"uri":"many://r112"},{"uri":"many://r113"},{"uri":"many://r114"},{"uri":"many://r115"},{"uri":"many://r116"},{"uri":"many://r117"},{"uri":"many://r118"},{"uri":"many://r119"}],"nextCursor":"<absent>"}}
> {"jsonrpc":"2.0","id":7,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":7,"result":{"prompts":"<any>","nextCursor":"<absent>"}}
# A cursor past the end of the list is refused (base64 of mcph:t:999).
> {"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"bWNwaDp0Ojk5OQ=="}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":9,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":9,"result":{"resourceTemplates":[]}}
