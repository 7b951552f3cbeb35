# ask_name (ask.c) with a client that answers: a legacy session gets elicitation/create.
config: examples.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"elicitation/create","params":{"message":"Your name?"}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"action":"accept","content":{"name":"Grace"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the client answered {\"action\":\"accept\",\"content\":{\"name\":\"Grace\"}}"}]}}
