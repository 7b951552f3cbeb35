# Bad input of every kind is answered and the next request still is.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> this is not json
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{}}
> {"jsonrpc":"2.0","id":3,"method":"ping"} trailing
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> {"jsonrpc":"2.0","id":4,"method":"no/such/method"}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"~no/such/method"}}
> {"jsonrpc":"2.0","method":"notifications/no-such-thing"}
> {"id":5,"method":"ping"}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32600}}
> {"jsonrpc":"2.0","id":{"x":1},"method":"ping"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600}}
> {"jsonrpc":"2.0","id":6,"method":42}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32600}}
> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1,2]}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602}}
> 42
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600}}
> [{"jsonrpc":"2.0","id":8,"method":"ping"}]
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~batch"}}
> [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~nested"}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"~name"}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope"}}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"~nope"}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":"x"}}
< {"jsonrpc":"2.0","id":11,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"nothing://here"}}
< {"jsonrpc":"2.0","id":12,"error":{"code":-32002,"data":{"uri":"nothing://here"}}}
> {"jsonrpc":"2.0","id":13,"method":"resources/read","params":{}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":14,"method":"prompts/get","params":{"name":"greet"}}
< {"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"~name"}}
> {"jsonrpc":"2.0","id":15,"method":"prompts/get","params":{"name":"greet","arguments":{"name":5}}}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":16,"method":"prompts/get","params":{"name":"nope"}}
< {"jsonrpc":"2.0","id":16,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"cursor":"not-a-cursor"}}
< {"jsonrpc":"2.0","id":17,"error":{"code":-32602,"message":"~[Cc]ursor"}}
# A cursor of another list is not valid here (base64 of mcph:p:0).
> {"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"cursor":"bWNwaDpwOjA="}}
< {"jsonrpc":"2.0","id":18,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":19,"method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":19,"error":{"code":-32600}}
# A response from the client that answers nothing is ignored.
> {"jsonrpc":"2.0","id":99,"result":{}}
silence 200
> {"jsonrpc":"2.0","id":20,"method":"ping"}
< {"jsonrpc":"2.0","id":20,"result":{}}
# A string with U+0000 cannot reach a plugin intact: refused, not cut short.
> {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\u0000b"}}}
< {"jsonrpc":"2.0","id":21,"error":{"code":-32602,"message":"~U\\+0000"}}
> {"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\u0000b"}}}
< {"jsonrpc":"2.0","id":22,"result":{"content":[{"type":"text","text":"a\\u0000b"}]}}
