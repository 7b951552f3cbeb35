# Per-section filters on the example plugin: tools/list, resources/list, templates/list and
# prompts/list serve exactly the rows the filters keep (with the prefix; the filters see the
# plugin's own names, table rows and rows defined at init alike); a dropped tool cannot be
# called. A refresh (the rescan tool) rebuilds the instance with the same filters. A SIGHUP
# that changes one filter re-inits the instance and sends list_changed for that list alone,
# then the new list; removing a filter serves every row again.
setup: sed "s|^plugin_dir = .*|plugin_dir = $ROOT/build/plugins|" "$TDIR/conf/filters.ini" > mcph.ini && printf 'a note\n' > notes.txt
config: $WORK/mcph.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ex_echo"},{"name":"ex_embed"},{"name":"ex_count"},{"name":"ex_rescan"},{"name":"ex_sh1"}]}}
> {"jsonrpc":"2.0","id":3,"method":"resources/list"}
< {"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"example://readme"},{"uri":"example://notes-file","size":7}]}}
> {"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"example://greeting/{name}"}]}}
> {"jsonrpc":"2.0","id":5,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":5,"result":{"prompts":[]}}
# What a filter drops is not served at all.
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ex_greet","arguments":{"name":"a"}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: ex_greet"}}
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ex_sh2","arguments":{}}}
< {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: ex_sh2"}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ex_sh1","arguments":{}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"one"}]}}
# A refresh rebuilds the instance from the section it was loaded with, filters included: only
# the notes file's size changed, so only the resources list did.
sh printf 'more\n' >> notes.txt
> {"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"ex_rescan","arguments":{}}}
< {"jsonrpc":"2.0","id":20,"result":{"content":[{"type":"text","text":"rescan requested"}]}}
< {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
silence 300
> {"jsonrpc":"2.0","id":21,"method":"resources/list"}
< {"jsonrpc":"2.0","id":21,"result":{"resources":[{"uri":"example://readme"},{"uri":"example://notes-file","size":12}]}}
> {"jsonrpc":"2.0","id":22,"method":"tools/list"}
< {"jsonrpc":"2.0","id":22,"result":{"tools":[{"name":"ex_echo"},{"name":"ex_embed"},{"name":"ex_count"},{"name":"ex_rescan"},{"name":"ex_sh1"}]}}
# Another tools filter: only the tools list changed.
sh sed -i 's/^tools = .*/tools = a* sh* zz/' mcph.ini
signal HUP
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
silence 300
stderr ~reload: example: re-init \(section changed\)
> {"jsonrpc":"2.0","id":9,"method":"tools/list"}
< {"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"ex_add"},{"name":"ex_audio"},{"name":"ex_ask_model"},{"name":"ex_sh1"},{"name":"ex_sh2"},{"name":"ex_zz"}]}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ex_sh2","arguments":{}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"two"}]}}
# No prompts filter any more, and a resources filter that keeps the note instead: both
# lists changed.
sh sed -i -e '/^prompts = /d' -e 's|^resources = .*|resources = example://note|' mcph.ini
signal HUP
<~ {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
<~ {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}
silence 300
> {"jsonrpc":"2.0","id":11,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":11,"result":{"prompts":[{"name":"ex_review"}]}}
> {"jsonrpc":"2.0","id":12,"method":"resources/list"}
< {"jsonrpc":"2.0","id":12,"result":{"resources":[{"uri":"example://note"}]}}
> {"jsonrpc":"2.0","id":13,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":13,"result":{"resourceTemplates":[]}}
> {"jsonrpc":"2.0","id":14,"method":"tools/list"}
< {"jsonrpc":"2.0","id":14,"result":{"tools":[{"name":"ex_add"},{"name":"ex_audio"},{"name":"ex_ask_model"},{"name":"ex_sh1"},{"name":"ex_sh2"},{"name":"ex_zz"}]}}
close
exit 0
