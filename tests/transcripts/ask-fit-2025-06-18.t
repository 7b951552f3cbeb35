# A plugin asks what only 2025-11-25 defines (titled and multi-select elicitation fields,
# defaults, $schema, sampling with tools or _meta) of a 2025-06-18 client: what has an
# equivalent is rewritten (a titled choice becomes enum + enumNames), what only annotates is
# dropped, and what cannot be said (a multi-select, tools) is not asked: the plugin gets
# MCPH_ERR_UNSUPPORTED (-9). Every request is validated against the 2025-06-18 schema, with
# no member it does not define.
config: conf/hostile.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{},"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"message":"Pick","schema":"{\"type\":\"object\",\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"properties\":{\"color\":{\"type\":\"string\",\"title\":\"Colour\",\"oneOf\":[{\"const\":\"r\",\"title\":\"Red\"},{\"const\":\"g\",\"title\":\"Green\"}],\"default\":\"r\"},\"name\":{\"type\":\"string\",\"title\":\"Name\",\"default\":\"Ada\",\"minLength\":1},\"size\":{\"type\":\"integer\",\"minimum\":1,\"default\":3},\"ok\":{\"type\":\"boolean\",\"default\":true},\"legacy\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"enumNames\":[\"A\",\"B\"],\"default\":\"a\"}},\"required\":[\"name\"]}"}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object","$schema":"<absent>","properties":{"color":{"type":"string","title":"Colour","enum":["r","g"],"enumNames":["Red","Green"],"oneOf":"<absent>","default":"<absent>"},"name":{"type":"string","title":"Name","minLength":1,"default":"<absent>"},"size":{"type":"integer","minimum":1,"default":"<absent>"},"ok":{"type":"boolean","default":true},"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"<absent>"}},"required":["name"]}}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"action":"accept","content":{"name":"Grace","color":"g"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Grace\",\"color\":\"g\"}}"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"message":"Tags","schema":"{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"x\",\"y\"]},\"minItems\":1}}}"}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"status -9"}]}}
stderr ~plugin 'hostile' \(ask\): elicitation/create not asked: field 'tags' is of type 'array' \(a multi-select\)
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{"sample":"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":10,\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"status -9"}]}}
stderr ~sampling/createMessage not asked: sampling with tools, which 2025-06-18 does not define
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{"sample":"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":10,\"_meta\":{\"x\":1}}"}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"sampling/createMessage","params":{"maxTokens":10,"_meta":"<absent>"}}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m"}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"~\"yo\""}]}}
close
exit 0
