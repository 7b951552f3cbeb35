# subscriptions/listen: the acknowledgement comes first, tagged with the listen id (same JSON
# type) and listing what mcph honours; then no response while it is open; resources/updated
# for its URIs, tagged; notifications/cancelled ends it silently; at EOF each open listen gets
# its result. A legacy subscription on the same pipe gets its own untagged notification.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["features://doc"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["features://doc"]}}}
silence 200
# The update is sent while the tool runs, so before its result.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"touched"}],"resultType":"complete"}}
# A URI it did not ask for: nothing.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apple"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"touched"}],"resultType":"complete"}}
# A second listener with a string id and every kind of notification; false flags are dropped.
> {"jsonrpc":"2.0","id":"listen:2","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":false,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["features://doc","features://items/apple"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"notifications":{"toolsListChanged":"<absent>","promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["features://doc","features://items/apple"]}}}
# One stamped copy per listener that asked.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"features://doc"}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"touched"}]}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apple"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"uri":"features://items/apple"}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"touched"}]}}
# A legacy session subscribes to the same URI: its copy is untagged, the listeners' tagged.
> {"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":6,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":7,"result":{}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"features://doc"}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"uri":"features://doc"}}
<~ {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":"<absent>","uri":"features://doc"}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"touched"}],"resultType":"<absent>"}}
> {"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":9,"result":{}}
# Cancelling listen 1 (a plain notifications/cancelled) ends it with nothing sent.
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
silence 200
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"touched"}]}}
# An id that is a number 1 and a string "1" are different listeners; listen 1's id is free again.
> {"jsonrpc":"2.0","id":"1","method":"subscriptions/listen","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"1"},"notifications":{}}}
> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":"<absent>"}}}
# Cancelling with the claim in the notification's _meta works too.
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
# A listen whose id is still open is refused; so are filters that are not SubscriptionFilters.
> {"jsonrpc":"2.0","id":"listen:2","method":"subscriptions/listen","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":"listen:2","error":{"code":-32600}}
> {"jsonrpc":"2.0","id":11,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":12,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":"yes"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":12,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":13,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":14,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[7]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":14,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":15,"method":"subscriptions/listen","params":{"notifications":[],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32602}}
# The refused ones were not registered: only listen:2 hears of an update.
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2"},"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"touched"}]}}
# End of input: every listen still open ("listen:2" and "1") gets its result, the cancelled
# ones (1) nothing.
close
<~ {"jsonrpc":"2.0","id":"listen:2","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"listen:2","io.modelcontextprotocol/serverInfo":{"name":"mcph-features","version":"<any>"}}}}
<~ {"jsonrpc":"2.0","id":"1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"1","io.modelcontextprotocol/serverInfo":{"name":"mcph-features","version":"<any>"}}}}
exit 0
