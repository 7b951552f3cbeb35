# The example plugin's ABI 1.1 tour, end to end under 2025-11-25 with a client that declared
# sampling, elicitation and roots: count's progress and cancellation, completions on the
# review prompt and the greeting template, confirm/ask_model/roots asking the client, the
# note resource's update notification, annotations and _meta on content, icons on a tool.
config: conf/example.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"completions":{},"resources":{"subscribe":true}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","icons":"<absent>"},{},{},{},{},{},{},{},{"name":"count","icons":[{"src":"~^data:image/png;base64,","mimeType":"image/png","sizes":["2x2"]}],"_meta":{"example.com/category":"demo"}},{"name":"confirm"},{"name":"ask_model"},{"name":"roots"},{"name":"set_note"},{"name":"rescan"},{"name":"relay"}]}}
# count: progress 1..to, then the result.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"to":3,"delay_ms":0},"_meta":{"progressToken":"c"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":1,"total":3,"message":"counted to 1"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":2,"total":3,"message":"counted to 2"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":3,"total":3,"message":"counted to 3"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"counted to 3"}]}}
# count, cancelled after its first step: no more progress, and no answer.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{"to":100,"delay_ms":300},"_meta":{"progressToken":"k"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"k","progress":1,"total":100}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}
silence 800
# Completions.
> {"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"ja"}}}
< {"jsonrpc":"2.0","id":5,"result":{"completion":{"values":["java","javascript"],"total":2,"hasMore":false}}}
> {"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"code","value":"int"}}}
< {"jsonrpc":"2.0","id":6,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}
> {"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"example://greeting/{name}"},"argument":{"name":"name","value":"A"}}}
< {"jsonrpc":"2.0","id":7,"result":{"completion":{"values":["Ada","Alan"],"total":2,"hasMore":false}}}
# confirm asks the user (elicitation).
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"delete the draft"}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"elicitation/create","params":{"message":"Go ahead and delete the draft?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm"}},"required":["confirm"]}}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"action":"accept","content":{"confirm":true}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"confirm\":true}}"}]}}
# ask_model asks the client's model (sampling); the question is escaped into the JSON.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"Say \"hi\"\\\n\té"}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Say \"hi\"\\\n\té"}}],"maxTokens":200}}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"~\"model\":\"m\""}]}}
# roots; and a client error becomes a tool error.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"roots","arguments":{}}}
< {"jsonrpc":"2.0","id":"mcph-3","method":"roots/list"}
> {"jsonrpc":"2.0","id":"mcph-3","error":{"code":-32603,"message":"no roots today"}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"~no roots today"}],"isError":true}}
# The note: subscribed, changed, announced, read back.
> {"jsonrpc":"2.0","id":11,"method":"resources/subscribe","params":{"uri":"example://note"}}
< {"jsonrpc":"2.0","id":11,"result":{}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"set_note","arguments":{"text":"buy milk"}}}
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"example://note"}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"noted"}]}}
> {"jsonrpc":"2.0","id":13,"method":"resources/read","params":{"uri":"example://note"}}
< {"jsonrpc":"2.0","id":13,"result":{"contents":[{"uri":"example://note","mimeType":"text/plain","text":"buy milk"}]}}
# Annotations and _meta on content and on a resource.
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"embed","arguments":{}}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"resource","annotations":{"audience":["assistant"],"priority":0.8},"_meta":{"example.com/source":"readme"}},{"type":"resource","annotations":"<absent>"}]}}
> {"jsonrpc":"2.0","id":15,"method":"resources/list"}
< {"jsonrpc":"2.0","id":15,"result":{"resources":[{"uri":"example://readme","annotations":{"audience":["user","assistant"],"priority":0.5}},{"uri":"example://note","annotations":"<absent>"}]}}
