# Resource subscriptions (resources/subscribe, ABI 1.1 host->resource_updated): a plugin's
# update reaches the client only for a URI it subscribed to, and only until it unsubscribes.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"resources":{"subscribe":true,"listChanged":true}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Not subscribed yet: nothing but the tool's result.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"touched"}]}}
> {"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":3,"result":{}}
# The update is sent while the tool runs, so before its result.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"touched"}]}}
# Subscribing twice is harmless: still one notification an update.
> {"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":5,"result":{}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"touched"}]}}
# Another URI, not subscribed: nothing.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apple"}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"touched"}]}}
# A URI served by a template can be subscribed to; URIs are compared exactly.
> {"jsonrpc":"2.0","id":8,"method":"resources/subscribe","params":{"uri":"features://items/apple"}}
< {"jsonrpc":"2.0","id":8,"result":{}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apple"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://items/apple"}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"touched"}]}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apricot"}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"touched"}]}}
# Unsubscribed: nothing after.
> {"jsonrpc":"2.0","id":11,"method":"resources/unsubscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":11,"result":{}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"touched"}]}}
silence 200
# The other subscription is still there.
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://items/apple"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://items/apple"}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"touched"}]}}
# Unsubscribing from something never subscribed is not an error.
> {"jsonrpc":"2.0","id":14,"method":"resources/unsubscribe","params":{"uri":"features://never"}}
< {"jsonrpc":"2.0","id":14,"result":{}}
# A URI nothing serves cannot be subscribed to: -32002 with the URI.
> {"jsonrpc":"2.0","id":15,"method":"resources/subscribe","params":{"uri":"features://nothing"}}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32002,"data":{"uri":"features://nothing"}}}
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://nothing"}}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"touched"}]}}
> {"jsonrpc":"2.0","id":17,"method":"resources/subscribe","params":{}}
< {"jsonrpc":"2.0","id":17,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":18,"method":"resources/unsubscribe","params":{"uri":5}}
< {"jsonrpc":"2.0","id":18,"error":{"code":-32602}}
silence 200
