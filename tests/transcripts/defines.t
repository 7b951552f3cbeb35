# ABI 1.2: rows defined at init (define_tool/resource/template/prompt), one shared handler that
# tells them apart with call_name, config_path against the INI's folder, a multi-line plugin
# key, rows refused one by one (logged; the load goes on), define outside init refused,
# host->refresh from a handler (one list_changed for what changed), and a rebuild on SIGHUP
# for an instance that defines its rows.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/tests/plugins|" "$TDIR/conf/defines.ini" > mcph.ini && printf 'tool alpha\ntool beta\ntool bad!name\ntool alpha\nresource defined://one\ntemplate defined://t/{x}\nprompt greet\n' > items.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
stderr ~plugin 'defines' \(.*\): tool name 'bad!name' is not valid; use 1-128 of .* \(a tool defined by init; left out\)
stderr ~plugin 'defines' \(.*\): two tools are named 'alpha'; rename one \(a tool defined by init; left out\)
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"statuses"},{"name":"refresh"},{"name":"late_define"},{"name":"where"},{"name":"alpha","description":"Defined at init"},{"name":"beta"},{"name":"from_extra"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"statuses","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"tool alpha: 0\ntool beta: 0\ntool bad!name: -2\ntool alpha: -2\nresource defined://one: 0\ntemplate defined://t/{x}: 0\nprompt greet: 0\ntool from_extra: 0\nprompt extra_prompt: 0\n"}],"isError":"<absent>"}}
# One handler, many definitions: call_name says which, call_data hands back its pointer.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"beta","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"tool beta [tool data]"}]}}
> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"defined://one"}}
< {"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"defined://one","text":"read defined://one as defined://one [resource data]"}]}}
> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"defined://t/42"}}
< {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"defined://t/42","text":"read defined://t/42 as defined://t/{x} [no data]"}]}}
> {"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"ann"}}}
< {"jsonrpc":"2.0","id":7,"result":{"messages":[{"role":"user","content":{"type":"text","text":"prompt greet for ann [prompt data]"}}]}}
> {"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"extra_prompt","arguments":{}}}
< {"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Missing required argument 'who' for prompt 'extra_prompt'"}}
> {"jsonrpc":"2.0","id":9,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":9,"result":{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]},{"name":"extra_prompt"}]}}
# config_path: relative to the INI's folder; NULL for a key that is not set.
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"where","arguments":{}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"~^list=/.*/build/tests/transcripts/defines\\.[0-9]+/items\\.txt unset=\\(null\\)$"}]}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"late_define","arguments":{}}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"define_tool outside init: -7"}]}}
# host->refresh from a handler: the instance is built again from the same config; only the
# tools list changed, so only its list_changed is sent.
sh printf 'tool gamma\n' >> items.txt
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"asked"}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
silence 400
stderr ~reload: defines: rebuild \(it defines what it serves\)
> {"jsonrpc":"2.0","id":13,"method":"tools/list"}
< {"jsonrpc":"2.0","id":13,"result":{"tools":[{"name":"statuses"},{"name":"refresh"},{"name":"late_define"},{"name":"where"},{"name":"alpha"},{"name":"beta"},{"name":"gamma"},{"name":"from_extra"}]}}
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"gamma","arguments":{}}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"tool gamma [tool data]"}]}}
# A refresh that changes nothing sends nothing.
> {"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"refresh","arguments":{}}}
< {"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"asked"}]}}
silence 500
# SIGHUP with the INI unchanged still rebuilds it: a prompt removed from the list shows.
sh sed -i '/^prompt greet$/d' items.txt
signal HUP
< {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}
silence 400
> {"jsonrpc":"2.0","id":16,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":16,"result":{"prompts":[{"name":"extra_prompt"}]}}
# A rebuild whose init fails keeps the instance in service.
sh rm items.txt
signal HUP
stderr ~plugin defines: /.*/mcph\.ini:10: cannot open the list /.*/items\.txt \(vlog\)
stderr ~reload: defines: the new version failed; the one in service stays
silence 400
> {"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"gamma","arguments":{}}}
< {"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"tool gamma [tool data]"}]}}
close
exit 0
