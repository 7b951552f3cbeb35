# End of input while a tool waits for the client's answer: no answer can come any more, so
# the question must fail at once (mcph withdraws its request and the tool reports the
# failure, as on a time-out) and mcph exit cleanly, not sit out ask_timeout_ms (60 s by
# default) first.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage"}
close
<~ {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-1"}}
<~ {"jsonrpc":"2.0","id":2,"result":{"isError":true}}
exit 0
