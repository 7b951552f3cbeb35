# Progress (ABI 1.1 host->progress) under 2025-11-25: notifications/progress carry the
# client's progressToken (string or number) unchanged, with total and message; the plugin's
# one step back (0.5 after 1) is dropped, so the values never decrease; all of them come
# before the result. Without a token, no notification at all.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# A string token.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"tok-a"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-a","progress":1,"total":3,"message":"step 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-a","progress":2,"total":3,"message":"step 2"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-a","progress":3,"total":3,"message":"step 3"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}],"isError":"<absent>"}}
# A number token stays a number.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":7}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2,"message":"step 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2,"total":2,"message":"step 2"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}
# One step: the step back to 0.5 right after it is still dropped.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":"one"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"one","progress":1,"total":1,"message":"step 1"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}
# No token: the same tool sends no notification (anything before the result fails here).
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}]}}
# _meta without a progressToken, or a token of another type, is no token.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"done"}]}}
silence 200
# Two calls at once, each with its own token: each sequence is in order (any interleaving).
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"x"}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"y"}}}
<~ {"method":"notifications/progress","params":{"progressToken":"x","progress":1}}
<~ {"method":"notifications/progress","params":{"progressToken":"x","progress":2}}
<~ {"id":7,"result":{"content":[{"type":"text","text":"done"}]}}
<~ {"method":"notifications/progress","params":{"progressToken":"y","progress":1}}
<~ {"method":"notifications/progress","params":{"progressToken":"y","progress":2}}
<~ {"id":8,"result":{"content":[{"type":"text","text":"done"}]}}
# A bad steps is refused by the input schema before the plugin runs: no progress for it.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"progress","arguments":{"steps":21},"_meta":{"progressToken":"bad"}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"~/steps"}],"isError":true}}
