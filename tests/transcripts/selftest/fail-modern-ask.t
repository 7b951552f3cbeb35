# expect: FAIL schema 2026-07-28: /result: an InputRequiredResult needs inputRequests or requestState \(line 6\)
# --bug emptyask: input_required with nothing to answer.
config: fake.ini
args: --bug emptyask
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}
