# Plugin logs (host->log) reach a client that set a level with logging/setLevel, as
# notifications/message with the plugin as logger; lines below the level do not; a level
# that is not one of the spec's names is -32602 and changes nothing.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Before any setLevel nothing is sent.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{"level":"emergency","text":"unheard"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"logged"}]}}
> {"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}
< {"jsonrpc":"2.0","id":3,"result":{}}
# At the level: sent while the tool runs, so before its result.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log","arguments":{"level":"info","text":"hello from features"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"~features","data":"hello from features"}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"logged"}]}}
# Above it.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"log","arguments":{"level":"critical","text":"on fire"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","logger":"~features","data":"on fire"}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"logged"}]}}
# Below it: nothing.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","text":"too quiet"}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"logged"}]}}
# Bad levels: -32602, and the level stays info.
> {"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"verbose"}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"warn"}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":3}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{}}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"log","arguments":{"level":"notice","text":"still info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"notice","logger":"~features","data":"still info"}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"logged"}]}}
# Raising the level silences what is now below it.
> {"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"error"}}
< {"jsonrpc":"2.0","id":12,"result":{}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"log","arguments":{"level":"warning","text":"not now"}}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"logged"}]}}
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"log","arguments":{"level":"error","text":"now"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"~features","data":"now"}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"logged"}]}}
# Lowering it to debug lets everything through.
> {"jsonrpc":"2.0","id":15,"method":"logging/setLevel","params":{"level":"debug"}}
< {"jsonrpc":"2.0","id":15,"result":{}}
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","text":"quiet"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"~features","data":"quiet"}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"logged"}]}}
silence 200
