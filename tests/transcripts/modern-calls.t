# Lists, calls, reads, prompts and completions claiming 2026-07-28, with no initialize: every
# result has resultType "complete" and _meta serverInfo; the four lists and resources/read
# (cacheable) carry ttlMs and cacheScope (defaults 0 and private), the others do not. Errors
# are the same JSON-RPC errors as in legacy sessions.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"progress"},{"name":"wait_cancel"},{"name":"touch"},{"name":"sample"},{"name":"elicit"},{"name":"roots"},{"name":"annotated","title":"Annotated","icons":"<any>","_meta":{"example.com/tool":true}},{"name":"bad_output","outputSchema":"<any>"},{"name":"no_output"},{"name":"good_output"},{"name":"strict"},{"name":"log"},{"name":"echo","annotations":{"readOnlyHint":true}},{"name":"sleep"},{"name":"overlap"},{"name":"greet"},{"name":"fail"},{"name":"boom"}],"nextCursor":"<absent>","resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features","version":"<any>","title":"<absent>"}}}}
> {"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"features://doc","title":"Features doc","annotations":"<any>","icons":"<any>","_meta":{"example.com/doc":1}},{"uri":"basic://hello","size":11}],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[{"uriTemplate":"features://items/{id}"},{"uriTemplate":"basic://items/{id}"},{"uriTemplate":"basic://files/{+path}"}],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":4,"result":{"prompts":[{"name":"pick","icons":"<any>"},{"name":"many"},{"name":"greet"}],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
# Calls: plain, annotated content with _meta, structured output, a tool error, invalid
# arguments (a tool error too), a plugin failure, a broken outputSchema, an unknown tool.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hi"}],"isError":"<absent>","resultType":"complete","ttlMs":"<absent>","cacheScope":"<absent>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"annotated","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"annotated","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"k":"v"}}],"resultType":"complete"}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"good_output","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"n\":42}"}],"structuredContent":{"n":42},"resultType":"complete"}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fail","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":"<any>","isError":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"strict","arguments":{"count":0,"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"~^Invalid arguments for tool 'strict': /count"}],"isError":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"boom","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":10,"error":{"code":-32603}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"bad_output","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":11,"error":{"code":-32603,"message":"~outputSchema"}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"~nope"}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":13,"error":{"code":-32602}}
# Reads: a resource and two templates, each with the cache hints.
> {"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"uri":"features://doc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":14,"result":{"contents":[{"uri":"features://doc","mimeType":"text/plain","text":"the features doc"}],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"features://items/apple","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":15,"result":{"contents":[{"uri":"features://items/apple","text":"item apple"}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"basic://files/a/b.txt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":16,"result":{"contents":[{"uri":"basic://files/a/b.txt"}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}}
# Prompts.
> {"jsonrpc":"2.0","id":17,"method":"prompts/get","params":{"name":"pick","arguments":{"fruit":"apple"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":17,"result":{"messages":[{"role":"user","content":{"type":"text","text":"I pick apple","annotations":{"priority":1}}}],"resultType":"complete","ttlMs":"<absent>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":18,"method":"prompts/get","params":{"name":"pick","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":18,"error":{"code":-32602,"message":"~fruit"}}
> {"jsonrpc":"2.0","id":19,"method":"prompts/get","params":{"name":"nope","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":19,"error":{"code":-32602}}
# Completions: a prompt argument, a template variable, a prompt with no completion handler.
> {"jsonrpc":"2.0","id":20,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":20,"result":{"completion":{"values":["apple","apricot"],"total":2,"hasMore":false},"resultType":"complete","ttlMs":"<absent>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":21,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://items/{id}"},"argument":{"name":"id","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":21,"result":{"completion":{"values":"<any>"},"resultType":"complete"}}
> {"jsonrpc":"2.0","id":22,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":22,"result":{"completion":{"values":[],"total":0,"hasMore":false},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcph-features"}}}}
> {"jsonrpc":"2.0","id":23,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":23,"error":{"code":-32602}}
# Several modern requests at once are answered independently.
> {"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
> {"jsonrpc":"2.0","id":25,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
<@200 {"jsonrpc":"2.0","id":25,"result":{"tools":"<any>","resultType":"complete"}}
< {"jsonrpc":"2.0","id":24,"result":{"content":"<any>","resultType":"complete"}}
