# Under 2024-11-05: sampling and roots are asked (requests validated against the 2024-11-05
# schema); elicitation, which the revision lacks, is not, even when declared.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{},"roots":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"sampling/createMessage","params":{"maxTokens":10}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"role":"assistant","content":{"type":"text","text":"old"},"model":"m"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"~\"text\":\"old\""}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"roots\":[]}"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"elicit","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"the client does not support elicitation"}],"isError":true}}
silence 200
