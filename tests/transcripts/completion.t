# Completions (completion/complete, ABI 1.1 `complete` handlers) under 2025-11-25: prompt
# arguments and template variables, filtered by what the user typed; at most 100 values an
# answer, with the real total and hasMore; a prompt without a handler completes to nothing;
# the client's context reaches the handler; unknown targets are -32602.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"completions":{}}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# A prompt argument.
> {"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":"ap"}}}
< {"jsonrpc":"2.0","id":2,"result":{"completion":{"values":["apple","apricot"],"total":2,"hasMore":false}}}
> {"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":""}}}
< {"jsonrpc":"2.0","id":3,"result":{"completion":{"values":["apple","apricot","banana"],"total":3,"hasMore":false}}}
> {"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":"cherry"}}}
< {"jsonrpc":"2.0","id":4,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}
# A template variable.
> {"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://items/{id}"},"argument":{"name":"id","value":"b"}}}
< {"jsonrpc":"2.0","id":5,"result":{"completion":{"values":["banana"],"total":1,"hasMore":false}}}
> {"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://items/{id}"},"argument":{"name":"id","value":"apr"}}}
< {"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["apricot"],"total":1,"hasMore":false}}}
# 150 candidates: the first 100 are sent, total says 150, hasMore is true.
> {"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"n","value":""}}}
< {"jsonrpc":"2.0","id":7,"result":{"completion":{"values":["v000","v001","v002","v003","v004","v005","v006","v007","v008","v009","v010","v011","v012","v013","v014","v015","v016","v017","v018","v019","v020","v021","v022","v023","v024","v025","v026","v027","v028","v029","v030","v031","v032","v033","v034","v035","v036","v037","v038","v039","v040","v041","v042","v043","v044","v045","v046","v047","v048","v049","v050","v051","v052","v053","v054","v055","v056","v057","v058","v059","v060","v061","v062","v063","v064","v065","v066","v067","v068","v069","v070","v071","v072","v073","v074","v075","v076","v077","v078","v079","v080","v081","v082","v083","v084","v085","v086","v087","v088","v089","v090","v091","v092","v093","v094","v095","v096","v097","v098","v099"],"total":150,"hasMore":true}}}
> {"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"n","value":"v14"}}}
< {"jsonrpc":"2.0","id":8,"result":{"completion":{"values":["v140","v141","v142","v143","v144","v145","v146","v147","v148","v149"],"total":10,"hasMore":false}}}
# The context (2025-06-18 and newer) is handed to the handler: "size" offers it back as JSON.
> {"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"size","value":""},"context":{"arguments":{"fruit":"apple"}}}}
< {"jsonrpc":"2.0","id":9,"result":{"completion":{"values":["small","large","{\"fruit\":\"apple\"}"],"total":3,"hasMore":false}}}
> {"jsonrpc":"2.0","id":10,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"size","value":"s"}}}
< {"jsonrpc":"2.0","id":10,"result":{"completion":{"values":["small","large"],"total":2,"hasMore":false}}}
# An argument the handler does not complete.
> {"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"colour","value":"r"}}}
< {"jsonrpc":"2.0","id":11,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}
# basic's greet prompt has no completion handler: an empty completion, not an error.
> {"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}}}
< {"jsonrpc":"2.0","id":12,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}
# ... and neither have basic's templates.
> {"jsonrpc":"2.0","id":13,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"basic://items/{id}"},"argument":{"name":"id","value":""}}}
< {"jsonrpc":"2.0","id":13,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}
# Unknown targets and malformed requests.
> {"jsonrpc":"2.0","id":14,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}}
< {"jsonrpc":"2.0","id":14,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":15,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://nothing/{x}"},"argument":{"name":"x","value":""}}}
< {"jsonrpc":"2.0","id":15,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":16,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"features://items/apple"},"argument":{"name":"id","value":""}}}
< {"jsonrpc":"2.0","id":16,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":17,"method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"touch"},"argument":{"name":"uri","value":""}}}
< {"jsonrpc":"2.0","id":17,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":18,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"}}}
< {"jsonrpc":"2.0","id":18,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":19,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"fruit","value":5}}}
< {"jsonrpc":"2.0","id":19,"error":{"code":-32602}}
> {"jsonrpc":"2.0","id":20,"method":"completion/complete","params":{"argument":{"name":"fruit","value":""}}}
< {"jsonrpc":"2.0","id":20,"error":{"code":-32602}}
# The completed value is then used as usual.
> {"jsonrpc":"2.0","id":21,"method":"prompts/get","params":{"name":"pick","arguments":{"fruit":"apricot"}}}
< {"jsonrpc":"2.0","id":21,"result":{"messages":[{"role":"user","content":{"type":"text","text":"I pick apricot","annotations":{"priority":1}}}]}}
> {"jsonrpc":"2.0","id":22,"method":"resources/read","params":{"uri":"features://items/banana"}}
< {"jsonrpc":"2.0","id":22,"result":{"contents":[{"uri":"features://items/banana","mimeType":"text/plain","text":"item banana"}]}}
