# The legacy session: what is allowed before initialize, negotiation, initialized, ping.
config: conf/basic.ini
# A ping before initialize is answered.
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
# Anything else before initialize is refused.
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"~initialize"}}
# Notifications before initialize get no answer.
> {"jsonrpc":"2.0","method":"notifications/initialized"}
silence 200
> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"logging":{}},"serverInfo":{"name":"mcph-test","version":"~^[0-9]+\\.[0-9]+\\.[0-9]+$"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
silence 100
# A second initialize is refused.
> {"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"~already"}}
> {"jsonrpc":"2.0","id":"five","method":"ping"}
< {"jsonrpc":"2.0","id":"five","result":{}}
close
exit 0
