# ABI 1.3 host->result_json under 2024-11-05: a whole result relayed by a plugin is kept to what
# the revision carries, as the sinks' results are: audio and resource links become the sinks'
# text stand-ins, lastModified and every _meta go, structuredContent goes (the text item is its
# mirror), and mcph's own members (resultType) are not passed on. A result of the wrong shape
# adds nothing. Resource contents, prompts and completions are relayed the same way.
config: conf/relay.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whole"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"relayed","annotations":{"audience":["user"],"lastModified":"<absent>"},"_meta":"<absent>"},{"type":"text","text":"[audio/wav audio, 3 bytes: this client's protocol revision cannot carry audio]"},{"type":"text","text":"[resource link] fixed: relay://fixed"},{"type":"resource","resource":{"uri":"relay://fixed","text":"body","_meta":"<absent>"}}],"structuredContent":"<absent>","_meta":"<absent>","resultType":"<absent>","isError":"<absent>"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"badwhole"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"result_json said -2"}]}}
# Contents: the URI read and the resource's mimeType where the plugin gave none; no _meta.
> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"relay://fixed"}}
< {"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"relay://fixed","mimeType":"text/plain","text":"fixed body","_meta":"<absent>"},{"uri":"relay://fixed#2","mimeType":"application/octet-stream","blob":"AAAA"}]}}
> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"relay://item/42"}}
< {"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"relay://item/42","text":"item 42"}]}}
> {"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"relayed"}}
< {"jsonrpc":"2.0","id":6,"result":{"description":"relayed prompt","messages":[{"role":"user","content":{"type":"text","text":"q"}},{"role":"assistant","content":{"type":"text","text":"[audio/mpeg audio, 4 bytes: this client's protocol revision cannot carry audio]"}}]}}
