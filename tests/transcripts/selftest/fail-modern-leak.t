# expect: FAIL schema 2025-06-18: /result: unknown member "resultType" \(not defined by 2025-06-18 ListToolsResult\) \(line 11\)
# --bug leak: resultType in a legacy answer. The modern answer before it is fine.
config: fake.ini
args: --bug leak
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
# line 11 below
< {"jsonrpc":"2.0","id":3,"result":{"tools":"<any>"}}
