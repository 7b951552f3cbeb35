# expect: ok
# Both eras on one pipe: a 2024-11-05 session, then requests claiming 2026-07-28. Each answer
# is validated as the revision its request claimed (titles and resultType would break
# 2024-11-05), the acknowledgement and tagged notifications as 2026-07-28, and the log
# message sent during a modern request... as 2024-11-05 here, since a legacy session exists.
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","title":"<absent>"},"<any>"],"nextCursor":"2","resultType":"<absent>"}}
> {"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","supportedVersions":"<any>","capabilities":"<any>","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"echo","title":"Echo","annotations":{"readOnlyHint":true}},{"name":"add","outputSchema":"<any>"}],"nextCursor":"2","resultType":"complete"}}
> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"toolsListChanged":true}}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"notify","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"sent"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create"}},"requestState":"<save:state>"}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{"q":{"action":"accept","content":{"name":"Ada"}}},"requestState":<saved:state>,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"~Ada"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"log","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"logged"}}
< {"jsonrpc":"2.0","id":8,"result":{"resultType":"complete"}}
> {"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32022,"data":{"requested":"2099-01-01"}}}
# the legacy session is unaffected
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"media","arguments":{}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"image"},{"type":"text"},{"type":"text"},{"type":"resource"}],"resultType":"<absent>"}}
close
< {"jsonrpc":"2.0","id":"L","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
exit 0
