# expect: FAIL schema 2024-11-05: /result/tools/0: unknown member "title" \(not defined by 2024-11-05 Tool\); /result/tools/0: unknown member "outputSchema" .*\(\+\d+ more\) \(line 8\)
# --bug title: Tool.title and outputSchema under 2024-11-05. The pattern itself matches.
config: fake.ini
args: --bug title
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":"<any>"}}
