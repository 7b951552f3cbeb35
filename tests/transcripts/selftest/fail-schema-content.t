# expect: FAIL schema 2025-11-25: /result/content/0: matches none of .*closest is TextContent; /result/content/0: missing required member "text" \(TextContent\) \(line 5\)
# Before initialize, messages are checked against 2025-11-25; the text item lacks "text".
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"badschema"}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
