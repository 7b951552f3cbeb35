# expect: ok
# Exercises every line kind against the fake server; must pass.
config: fake.ini
args: --exit-code 0

stderr ~started as fake-selftest
> {"jsonrpc":"2.0","id":0,"method":"ping"}
<@2000 {"jsonrpc":"2.0","id":0,"result":{}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","serverInfo":{"name":"fake-selftest","version":"~^\\d+\\.\\d+"},"capabilities":"<any>","instructions":"<absent>"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
silence 100
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","title":"<absent>","annotations":"<absent>"},{"name":"add","outputSchema":"<absent>"}],"nextCursor":"2"}}
# two requests answered in any order
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
<~ {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"<save:slow>"}]}}
<~ {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}
# a value saved in a group, sent back as JSON
> {"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"echo","arguments":{"text":<saved:slow>}}}
< {"jsonrpc":"2.0","id":"g","result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"media","arguments":{}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"image","data":"<any>","mimeType":"image/png"},{"type":"text","text":"~audio"},{"type":"text","text":"~resource link"},{"type":"resource","resource":{"uri":"example://hello","text":"hi","mimeType":"text/plain"}}]}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"notify","arguments":{}}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"notified"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"sent"}],"isError":"<absent>"}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fail"}}
< {"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":"<any>"}}
# malformed JSON: parse error with id null (allowed by the validator only for -32700)
> {"jsonrpc":"2.0","id":8,"method":
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"<any>"}}
> {"jsonrpc":"2.0","id":"s","method":"no/such"}
< {"jsonrpc":"2.0","id":"s","error":{"code":-32601}}
sleep 50
close
exit 0
stderr ~EOF, exiting
stderr !~Traceback|panic
