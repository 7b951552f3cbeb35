# End of input finishes the calls in flight, answers them, and exits 0.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":500}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}
close
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"slept 500"}]}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"last"}]}}
exit 0
