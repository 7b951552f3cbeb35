# expect: FAIL schema 2026-07-28: /error/data: missing required member "requested" \(UnsupportedProtocolVersionError\) \(line 6\)
# --bug v32022: -32022 without data.requested.
config: fake.ini
args: --bug v32022
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32022}}
