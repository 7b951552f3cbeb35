# Every example of the plugin author's guide, served from examples.ini by the real binary:
# tools/list shows each tool, and each answers. Run it with
#   node tests/transcripts/run.mjs build/mcph plugin-api/examples/examples.t
config: examples.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"starter_hello"},{"name":"stats_of"},{"name":"paint_red"},{"name":"paint_blue"},{"name":"settings"},{"name":"counter_next"},{"name":"counter_rebuild"},{"name":"ask_name"}]}}
# The first tool: plugins/example/starter/starter.c.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"starter_hello","arguments":{"name":"Ada"}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Hi, Ada! (from the starter plugin)"}]}}
# Output schema and structured results (isolated: the call goes through a child process).
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stats_of","arguments":{"numbers":[1,2,3.5]}}}
< {"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"count":3,"sum":6.5,"mean":2.1666666666666665},"content":[{"type":"text"}]}}
# Resources and templates.
> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"notes://index"}}
< {"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"notes://index","text":"notes://note/1\nnotes://note/2\nnotes://note/3\n"}]}}
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"notes://note/2"}}
< {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"notes://note/2","text":"Call Ada."}]}}
> {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"notes://note/9"}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"~no note 9"}}
# Rows defined at init.
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"paint_blue","arguments":{}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"painted it blue"}]}}
# Config keys.
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"settings","arguments":{}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"~^folder /.*/plugin-api/examples, limit 25, loud no$"}]}}
# Reload and take-over: the count goes on across a rebuild.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"counter_next","arguments":{}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"1"}]}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"counter_rebuild","arguments":{}}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"a rebuild is on its way"}]}}
stderr ~took over the counter at 1
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"counter_next","arguments":{}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"2"}]}}
# Questions to the client: this client declared no elicitation.
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"~no elicitation"}],"isError":true}}
