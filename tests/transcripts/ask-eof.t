# End of input while a tool waits for the client's answer: no answer can come any more, so
# the question must fail at once (mcph withdraws its request) and mcph exit cleanly, not sit
# out ask_timeout_ms (60 s by default) first. The call is cancelled by the end of input, so
# it gets no answer.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage"}
close
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcph-1"}}
stderr ~end of input; cancelled 1 request\(s\): 2 \(tools/call sample\)
exit 0
