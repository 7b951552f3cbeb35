# ABI 1.3 host->client_log: a relayed log message (any JSON value as data) reaches the client
# as notifications/message only when the level it chose admits it, exactly as the core's own
# log lines: nothing before logging/setLevel, nothing below the level; the logger is the
# plugin's, or the instance id when it gives none. It is never written to stderr. Bad JSON is
# refused (-2). Under 2026-07-28 a request's own logLevel admits what its handler relays.
config: conf/relay.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{"level":7,"data":"before setLevel"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
> {"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}
< {"jsonrpc":"2.0","id":3,"result":{}}
# info (1) is below warning: nothing.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log","arguments":{"level":1,"data":{"quiet":true}}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
# error (4) from the child's own logger, with an object as data.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"log","arguments":{"level":4,"logger":"child-db","data":{"code":17,"detail":["a","b"]}}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"child-db","data":{"code":17,"detail":["a","b"]}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
# warning (3) with no logger: the instance id.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"log","arguments":{"level":3,"data":"plain words"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"relay","data":"plain words"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
# The plugin's data is JSON text: text that is not JSON is refused whatever the level.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"log","arguments":{"level":7,"raw":"{oops"}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"client_log said -2"}]}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"log","arguments":{"level":7,"raw":"[1, 2.5]"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"emergency","logger":"relay","data":[1,2.5]}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
# A 2026-07-28 request that asked for info: its handler's message goes out before the result.
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"log","arguments":{"level":1,"data":{"modern":1}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"relay","data":{"modern":1}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"client_log said 0"}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"log","arguments":{"level":7,"data":"unasked"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"client_log said 0"}]}}
stderr !~plain words|child-db|before setLevel
