# One plugin's share of threads full of slow calls, with more queued behind them, delays
# neither ping nor lists nor other plugins' calls, reads and gets: a plugin not declared
# thread-safe (basic: one call at a time, six 400 ms sleeps queued) and a thread-safe one
# with max_concurrent = 2 (threadsafe: six 400 ms calls, two at a time, never more).
config: conf/fairness.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
> {"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"overlap_mt","arguments":{"ms":400}}}
sleep 100
# Both shares are full now. Everything else is answered at once.
> {"jsonrpc":"2.0","id":30,"method":"ping"}
<@50 {"jsonrpc":"2.0","id":30,"result":{}}
> {"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"ex_echo","arguments":{"text":"not queued"}}}
<@50 {"jsonrpc":"2.0","id":31,"result":{"content":[{"type":"text","text":"not queued"}]}}
> {"jsonrpc":"2.0","id":32,"method":"resources/read","params":{"uri":"example://greeting/ada"}}
<@50 {"jsonrpc":"2.0","id":32,"result":{"contents":[{"uri":"example://greeting/ada","text":"~ada"}]}}
> {"jsonrpc":"2.0","id":33,"method":"prompts/get","params":{"name":"ex_review","arguments":{"code":"int x;"}}}
<@50 {"jsonrpc":"2.0","id":33,"result":"<any>"}
> {"jsonrpc":"2.0","id":34,"method":"tools/list"}
<@50 {"jsonrpc":"2.0","id":34,"result":"<any>"}
# Then every slow call is answered, the thread-safe ones never more than two at once.
<~ {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"slept 400"}]}}
<~ {"jsonrpc":"2.0","id":20,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":22,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":23,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":24,"result":{"content":[{"type":"text","text":"2"}]}}
<~ {"jsonrpc":"2.0","id":25,"result":{"content":[{"type":"text","text":"2"}]}}
close
exit 0
