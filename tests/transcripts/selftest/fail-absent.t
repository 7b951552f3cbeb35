# expect: FAIL mismatch: /result/tools/0/title: must be absent, got "Echo" \(line 8\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
# under 2025-06-18 the fake server does send Tool.title, so <absent> must fail
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","title":"<absent>"},"<any>"]}}
