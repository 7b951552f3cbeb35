# The same questions of a 2025-11-25 client are asked as the plugin wrote them.
config: conf/hostile.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}},"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"message":"Tags","schema":"{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"x\",\"y\"]},\"minItems\":1}}}"}}}
< {"jsonrpc":"2.0","id":"mcph-1","method":"elicitation/create","params":{"message":"Tags","requestedSchema":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["x","y"]},"minItems":1}}}}}
> {"jsonrpc":"2.0","id":"mcph-1","result":{"action":"accept","content":{"tags":["x"]}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"~tags"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"message":"Pick","schema":"{\"type\":\"object\",\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"properties\":{\"color\":{\"type\":\"string\",\"title\":\"Colour\",\"oneOf\":[{\"const\":\"r\",\"title\":\"Red\"},{\"const\":\"g\",\"title\":\"Green\"}],\"default\":\"r\"},\"name\":{\"type\":\"string\",\"title\":\"Name\",\"default\":\"Ada\",\"minLength\":1},\"size\":{\"type\":\"integer\",\"minimum\":1,\"default\":3},\"ok\":{\"type\":\"boolean\",\"default\":true},\"legacy\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"enumNames\":[\"A\",\"B\"],\"default\":\"a\"}},\"required\":[\"name\"]}"}}}
< {"jsonrpc":"2.0","id":"mcph-2","method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"color":{"type":"string","title":"Colour","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"r"},"name":{"type":"string","title":"Name","default":"Ada","minLength":1},"size":{"type":"integer","minimum":1,"default":3},"ok":{"type":"boolean","default":true},"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"a"}},"required":["name"]}}}
> {"jsonrpc":"2.0","id":"mcph-2","result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"~decline"}]}}
close
exit 0
