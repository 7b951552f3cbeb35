# A handler that asks the client after its call was cancelled (it did not poll cancelled())
# gets MCPH_ERR_CANCELLED at once: the client, which gave up on the call, is not sent a
# question for it (nor a cancellation of that question).
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"delay_ms":400}}}
sleep 100
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
silence 1000
# The next question is asked as usual. (Its id depends on whether the withdrawn question
# used one up: both are answered, and an answer to an id nobody waits for is ignored.)
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"~^mcph-[12]$","method":"sampling/createMessage"}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"~\"text\":\"yes\""}]}}
