# ABI 1.5 host->instructions: [server] instructions, then each plugin's paragraph headed by its
# section, in INI order, in the initialize result and in server/discover; a plugin with none
# (quiet) adds nothing; an isolated plugin's paragraph comes up from its child as it is. A
# text past MCPH_MAX_INSTRUCTIONS is refused, a second call replaces the first, and the call
# is refused outside init. A rebuild serves the new instance's text; a plugin dropped takes
# its paragraph with it.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/instructions.ini" > mcph.ini && printf 'Words of a.\n' > a.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","instructions":"Server words.\nSecond line.\n\n[plugin.a]\nWords of a.\n\n[plugin.iso]\nIsolated words,\non two lines."}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","instructions":"Server words.\nSecond line.\n\n[plugin.a]\nWords of a.\n\n[plugin.iso]\nIsolated words,\non two lines."}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a_probe","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"too_long -8 draft 0 final 0 handler -7"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"i_probe","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"too_long -8 draft 0 final 0 handler -7"}]}}
# A rebuild (the plugin is rebuilt on every reload) reads its new text; iso is dropped.
sh printf 'New words of a.\n' > a.txt && sed -i '/^\[plugin\.iso\]/,$d' mcph.ini
signal HUP
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
silence 300
stderr ~reload: iso: drop
> {"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","instructions":"Server words.\nSecond line.\n\n[plugin.a]\nNew words of a."}}
# A refresh (host->refresh) rebuilds a alone: the new instance's text is served.
sh printf 'Refreshed words of a.\n' > a.txt
> {"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"a_refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":51,"result":{"content":[{"type":"text","text":"asked"}]}}
sleep 800
stderr ~0 dropped, 1 loaded, 0 failed
> {"jsonrpc":"2.0","id":52,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":52,"result":{"resultType":"complete","instructions":"Server words.\nSecond line.\n\n[plugin.a]\nRefreshed words of a."}}
# [server] instructions go: the plugins' paragraphs stay.
sh sed -i '/^instructions = /,/^ *Second line\.$/d' mcph.ini
signal HUP
silence 500
> {"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","instructions":"[plugin.a]\nRefreshed words of a."}}
# No paragraph at all: no instructions.
sh printf '' > a.txt
signal HUP
silence 500
> {"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","instructions":"<absent>"}}
close
exit 0
