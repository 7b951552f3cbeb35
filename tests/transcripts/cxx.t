# A plugin in C++ (tests/plugins/cxx.cc) is loaded, listed and called like a C one.
config: conf/cxx.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"cxx_join","outputSchema":{"required":["joined"]},"annotations":{"readOnlyHint":true}}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cxx_join","arguments":{"words":["a","b","c"],"times":"2"}}}
< {"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"joined":"a+b+c+a+b+c"},"isError":"<absent>"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cxx_join","arguments":{"words":["a"],"times":"9"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"~from 1 to 3"}],"isError":true}}
stderr ~cxx
