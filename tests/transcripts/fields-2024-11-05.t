# Which ABI 1.1 fields each revision gets, exactly ("<absent>" where it has none).
# Under 2024-11-05: no completions capability (completion/complete still works), no
# titles, no outputSchema or structuredContent, no _meta, no icons, no lastModified in
# annotations; content and resource annotations (audience, priority) are there.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"logging":{},"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"prompts":{"listChanged":true},"completions":"<absent>"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Tool rows: icons, _meta, title and outputSchema only where the revision has them.
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"progress","_meta":"<absent>","icons":"<absent>"},{},{},{},{},{},{"name":"annotated","title":"<absent>","icons":"<absent>","_meta":"<absent>","annotations":"<absent>"},{},{},{"name":"good_output","outputSchema":"<absent>"},{},{},{},{},{},{},{},{}]}}
# Resource rows: annotations in every revision (lastModified from 2025-06-18).
> {"jsonrpc":"2.0","id":3,"method":"resources/list"}
< {"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"features://doc","name":"doc","title":"<absent>","annotations":{"audience":["assistant"],"priority":1,"lastModified":"<absent>"},"icons":"<absent>","_meta":"<absent>"},{"uri":"basic://hello","annotations":"<absent>"}]}}
> {"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"features://items/{id}","annotations":{"audience":["user"]},"icons":"<absent>","_meta":"<absent>"},{"annotations":"<absent>"},{}]}}
> {"jsonrpc":"2.0","id":5,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":5,"result":{"prompts":[{"name":"pick","icons":"<absent>","_meta":"<absent>"},{"name":"many","icons":"<absent>","_meta":"<absent>"},{"name":"greet"}]}}
# Content annotations and _meta.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"annotated","arguments":{}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"annotated","annotations":{"audience":["user"],"priority":0.5,"lastModified":"<absent>"},"_meta":"<absent>"}],"isError":"<absent>"}}
> {"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"pick","arguments":{"fruit":"banana"}}}
< {"jsonrpc":"2.0","id":7,"result":{"messages":[{"role":"user","content":{"type":"text","text":"I pick banana","annotations":{"priority":1},"_meta":"<absent>"}}]}}
# A structured result: structuredContent from 2025-06-18; the text mirror always.
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"good_output","arguments":{}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{\"n\":42}"}],"structuredContent":"<absent>"}}
# The outputSchema is checked whether or not the client sees it.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"bad_output","arguments":{}}}
< {"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"~bad_output"}}
# completion/complete answers in every revision.
> {"jsonrpc":"2.0","id":10,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":"a"}}}
< {"jsonrpc":"2.0","id":10,"result":{"completion":{"values":["apple","apricot"],"total":2,"hasMore":false}}}
> {"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://items/{id}"},"argument":{"name":"id","value":"ban"}}}
< {"jsonrpc":"2.0","id":11,"result":{"completion":{"values":["banana"],"total":1,"hasMore":false}}}
# Subscriptions work in every revision.
> {"jsonrpc":"2.0","id":12,"method":"resources/subscribe","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":12,"result":{}}
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"features://doc"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"features://doc"}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"touched"}]}}
