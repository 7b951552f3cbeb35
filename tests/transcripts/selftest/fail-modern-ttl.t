# expect: FAIL schema 2026-07-28: /result: missing required member "ttlMs" \(ListToolsResult\) \(line 6\)
# --bug nottl: a cacheable 2026-07-28 result without ttlMs. The pattern itself matches.
config: fake.ini
args: --bug nottl
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":"<any>"}}
