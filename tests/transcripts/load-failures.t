# Every kind of plugin failure is reported with the plugin, its path and the fix; the good
# plugins are served.
config: conf/failures.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
stderr ~plugin 'abi_major' \(.*abi_major\.so\): built for plugin ABI 2\.5, this mcph has ABI 1\.5; rebuild
stderr ~plugin 'abi_minor' \(.*\): built for plugin ABI 1\.6, newer than this mcph's ABI 1\.5
stderr ~plugin 'short_descriptor' \(.*\): descriptor is 8 bytes
stderr ~plugin 'bad_schema' \(.*\): input_schema of '.*' is not valid JSON
stderr ~plugin 'schema_not_object' \(.*\): input_schema of '.*' must be a JSON Schema object
stderr ~plugin 'dup_names' \(.*\): two tools are named 'same'
stderr ~plugin 'bad_name' \(.*\): tool name 'bad name!' is not valid
stderr ~plugin init_fail: init failed on purpose
stderr ~plugin 'init_fail' \(.*\): init failed
stderr ~plugin 'no_entry' \(.*\): no mcph_plugin_entry\(\)
stderr ~failures\.ini:14: \[plugin\.config_required\] needs 'token'
stderr ~plugin 'missing' \(.*does-not-exist\.so\): cannot open
stderr ~plugin 'collide' \(.*\): tool 'echo' is already served by plugin 'basic'
stderr !~does-not-exist-either
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo"},{"name":"sleep"},{"name":"overlap"},{"name":"greet"},{"name":"fail"},{"name":"boom"},{"name":"shout"}]}}
# A plugin that writes to stdout cannot corrupt the protocol stream.
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shout"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"shouted"}]}}
stderr ~garbage from init
