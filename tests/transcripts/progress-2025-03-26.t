# Progress under 2025-03-26, the revision that added ProgressNotification.message.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"t25"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t25","progress":1,"total":2,"message":"step 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t25","progress":2,"total":2,"message":"step 2"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}
# In a batch (2025-03-26 has them), progress goes out at once, on its own lines, and the
# batch's answers after.
> [{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"b"}}},{"jsonrpc":"2.0","id":4,"method":"ping"}]
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"b","progress":1,"total":2,"message":"step 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"b","progress":2,"total":2,"message":"step 2"}}
< [{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}},{"jsonrpc":"2.0","id":4,"result":{}}]
