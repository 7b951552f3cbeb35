# Tools, resources, templates and prompts of the basic plugin, and how plugin failures map.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi there"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi there"}],"isError":"<absent>"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hey"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fail","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"<any>"}],"isError":true}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"boom","arguments":{}}}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"~boom"}}
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"basic://hello"}}
< {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"basic://hello","mimeType":"text/plain","text":"hello world"}]}}
> {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"basic://items/42"}}
< {"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"basic://items/42","text":"item 42"}]}}
> {"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"basic://items/a%20b"}}
< {"jsonrpc":"2.0","id":8,"result":{"contents":[{"uri":"basic://items/a%20b","text":"item a b"}]}}
# {var} never spans a '/', {+var} does.
> {"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"basic://items/a/b"}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32002}}
> {"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"basic://files/docs/a/b.txt"}}
< {"jsonrpc":"2.0","id":10,"result":{"contents":[{"text":"file docs/a/b.txt"}]}}
> {"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"basic://items/missing"}}
< {"jsonrpc":"2.0","id":11,"error":{"code":-32002,"message":"~missing","data":{"uri":"basic://items/missing"}}}
> {"jsonrpc":"2.0","id":12,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada","mood":"sunny"}}}
< {"jsonrpc":"2.0","id":12,"result":{"messages":[{"role":"user","content":{"type":"text","text":"~^Greet Ada.*sunny"}}]}}
> {"jsonrpc":"2.0","id":13,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":13,"result":{"resourceTemplates":[{"uriTemplate":"basic://items/{id}","name":"item"},{"uriTemplate":"basic://files/{+path}","name":"file"}]}}
> {"jsonrpc":"2.0","id":14,"method":"resources/list"}
< {"jsonrpc":"2.0","id":14,"result":{"resources":[{"uri":"basic://hello","name":"hello"}],"nextCursor":"<absent>"}}
> {"jsonrpc":"2.0","id":15,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":15,"result":{"prompts":[{"name":"greet","arguments":[{"name":"name","required":true},{"name":"mood","required":"<absent>"}]}]}}
