# expect: FAIL mismatch: /result/protocolVersion: expected "2025-03-26", got "2025-11-25" \(line 7\)
# The server answers an unknown version with its latest; this pattern wants the wrong one.
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}

# line 7 below
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}
