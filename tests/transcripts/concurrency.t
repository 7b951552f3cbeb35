# A slow tool does not hold up ping or lists; a plugin not declared thread-safe is called
# by one thread at a time, a thread-safe one by several.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":2000}}}
sleep 50
> {"jsonrpc":"2.0","id":3,"method":"ping"}
<@50 {"jsonrpc":"2.0","id":3,"result":{}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
<@50 {"jsonrpc":"2.0","id":4,"result":"<any>"}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"slept 2000"}]}}
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"overlap","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"overlap","arguments":{"ms":300}}}
<~ {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"1"}]}}
<~ {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"1"}]}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":300}}}
<~ {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"2"}]}}
# While basic is busy, another plugin's call still runs.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1000}}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1000}}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":0}}}
< {"jsonrpc":"2.0","id":11,"result":"<any>"}
< {"jsonrpc":"2.0","id":9,"result":"<any>"}
< {"jsonrpc":"2.0","id":10,"result":"<any>"}
