# expect: ok
# No legacy session: a log message during a modern request is validated as 2026-07-28.
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"logged"}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}
