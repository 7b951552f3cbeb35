# ABI 1.3 host->result_json under 2025-11-25 and 2026-07-28: the same whole result as in
# relay-2024-11-05.t reaches a client whose revision carries it all (audio, a resource link,
# annotations with lastModified, _meta of items and of the result, structuredContent), but for
# mcph's own members: the plugin's resultType and the serverInfo in its _meta are not passed
# on (a 2026-07-28 result gets mcph's own). A completion keeps the plugin's total and hasMore.
config: conf/relay.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whole"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"relayed","annotations":{"audience":["user"],"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"k":1}},{"type":"audio","data":"AAAA","mimeType":"audio/wav"},{"type":"resource_link","uri":"relay://fixed","name":"fixed"},{"type":"resource","resource":{"uri":"relay://fixed","text":"body","_meta":{"m":2}}}],"structuredContent":{"n":1},"_meta":{"trace":"t1","io.modelcontextprotocol/serverInfo":"<absent>"},"resultType":"<absent>","isError":"<absent>"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"badwhole"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"result_json said -2"}]}}
> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"relay://fixed"}}
< {"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"relay://fixed","mimeType":"text/plain","text":"fixed body","_meta":{"a":1}},{"uri":"relay://fixed#2","mimeType":"application/octet-stream","blob":"AAAA"}]}}
> {"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"relayed"}}
< {"jsonrpc":"2.0","id":5,"result":{"description":"relayed prompt","messages":[{"role":"user","content":{"type":"text","text":"q"}},{"role":"assistant","content":{"type":"audio","data":"AAAAAA==","mimeType":"audio/mpeg"}}]}}
> {"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"relay://item/{id}"},"argument":{"name":"id","value":""}}}
< {"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["7","8"],"total":40,"hasMore":true}}}
# A 2026-07-28 request: the plugin's _meta with mcph's serverInfo, and mcph's resultType.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whole","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"relayed"},{"type":"audio"},{"type":"resource_link"},{"type":"resource"}],"structuredContent":{"n":1},"_meta":{"trace":"t1","io.modelcontextprotocol/serverInfo":{"name":"mcph-relay"}}}}
