# Cancellation (notifications/cancelled, ABI 1.1 host->cancelled): a cancelled request is
# never answered; a handler polling cancelled() sees it; a request still queued behind a busy
# plugin that is not thread-safe never reaches the plugin; ids are matched exactly.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Without a cancellation the tool waits its time out.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":100}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"not cancelled"}]}}
# Cancelled while running: no response, ever; the server goes on answering.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"changed my mind"}}
silence 500
> {"jsonrpc":"2.0","id":4,"method":"ping"}
<@100 {"jsonrpc":"2.0","id":4,"result":{}}
# The handlers really stop: four cancelled waits would otherwise hold all four workers for
# 5 s, and the call after them would wait that long.
> {"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
> {"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
> {"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
> {"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":40}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":43}}
> {"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":0}}}
<@300 {"jsonrpc":"2.0","id":44,"result":{"content":[{"type":"text","text":"not cancelled"}]}}
silence 200
# A string id; the cancellation names it as a string.
> {"jsonrpc":"2.0","id":"w-5","method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w-5"}}
silence 300
# Ids are matched exactly: "6" is not 6, so this call is not cancelled.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":400}}}
sleep 50
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"6"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"not cancelled"}]}}
# Cancelling something unknown, or already answered, is ignored.
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}
silence 200
# A request whose id is still in flight is refused with -32600; the first one is unharmed
# and can still be cancelled.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":5000}}}
sleep 50
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":10}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"~in flight"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}
silence 300
# Queued, then cancelled: basic is not thread-safe, so its second sleep waits for the first.
# Cancelled while queued, it never runs: the echo behind it is answered as soon as the first
# sleep ends, not 600 ms later.
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600}}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600}}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}
<@650 {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"slept 600"}]}}
<@800 {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"after"}]}}
silence 800
> {"jsonrpc":"2.0","id":11,"method":"ping"}
< {"jsonrpc":"2.0","id":11,"result":{}}
# Once the cancelled request is over its id is free again.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":0}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"not cancelled"}]}}
