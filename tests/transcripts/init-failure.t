# A plugin whose init fails for a reason outside the INI is left out; the start-up summary
# counts and names it, and the others are served.
config: conf/init-failure.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
stderr ~plugin init_fail: init failed on purpose
stderr ~init-failure\.ini:7: plugin 'init_fail' \(.*\): init failed \(status -1\)
stderr ~warning: serving \d+ tools, .* from 2 plugins \(.*init-failure\.ini\); 1 left out, their init failed: init_fail
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo"},{"name":"sleep"},{"name":"overlap"},{"name":"greet"},{"name":"fail"},{"name":"boom"},{"name":"shout"}]}}
# A plugin that writes to stdout cannot corrupt the protocol stream.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shout"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"shouted"}]}}
stderr ~garbage from init
