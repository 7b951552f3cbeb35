# A request claiming 2026-07-28 needs no initialize; one without the claim on a pipe where no
# initialize happened is -32602 (except ping and initialize); notifications before either are
# ignored. After modern requests a legacy initialize still works.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"~initialize"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602}}
# Half an envelope is no claim: only the protocolVersion key makes one.
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"~initialize"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":"2026-07-28"}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"~initialize"}}
# server/discover and subscriptions/listen without the claim, before initialize: no session.
> {"jsonrpc":"2.0","id":5,"method":"server/discover"}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":6,"method":"ping"}
< {"jsonrpc":"2.0","id":6,"result":{}}
> {"jsonrpc":"2.0","id":7,"method":"no/such"}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32601}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features","version":"<any>"}}}}
# Modern requests leave no session behind.
> {"jsonrpc":"2.0","id":9,"method":"tools/list"}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32602}}
# Both kinds of id work, and ids are the client's business: the same id again after the answer.
> {"jsonrpc":"2.0","id":"s-1","method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":"s-1","result":{"prompts":"<any>","resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":"s-1","method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":"s-1","result":{"prompts":"<any>","resultType":"complete"}}
# A claimed notification that is not cancelled is ignored, as is a legacy one before initialize.
> {"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
silence 200
> {"jsonrpc":"2.0","id":10,"method":"tools/list"}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32602}}
# A legacy initialize after all that.
> {"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":11,"result":{"protocolVersion":"2025-03-26"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"legacy"}],"resultType":"<absent>"}}
# Batches are a 2025-03-26 thing: a claimed request inside one is refused, the rest answered.
> [{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}},{"jsonrpc":"2.0","id":14,"method":"ping"}]
< [{"jsonrpc":"2.0","id":13,"error":{"code":-32600}},{"jsonrpc":"2.0","id":14,"result":{}}]
