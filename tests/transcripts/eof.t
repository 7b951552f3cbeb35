# End of input cancels the calls in flight at once: nobody is left to read their answers, and
# an MCP client that closes stdin expects the server to exit. A call that ignores
# cancellation finishes without an answer; a call still queued never runs; mcph says which
# requests it cancelled and exits 0.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":500}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}
sleep 100
close
stderr ~end of input; cancelled 2 request\(s\): (2 \(tools/call sleep\), 3 \(tools/call echo\)|3 \(tools/call echo\), 2 \(tools/call sleep\))
exit 0
stderr !~abandoned
