# ABI 1.3: the descriptor's subscribe() hears when a URI it serves (a resource, or a template
# match) gains its first follower or loses its last, whoever follows it (the legacy session's
# resources/subscribe, a 2026-07-28 listen's resourceSubscriptions); and MCPH_PLUGIN_TAKE_OVER:
# a SIGHUP, then a refresh, build the relay anew in the same mapping, taking over its child
# (host->predecessor during init only), the old instance shut down after; each new instance
# hears the URIs still followed that it serves; the session's end tells the last one. A plugin
# built with the 1.2 header (abi12) loads, is rebuilt as a fresh copy, and is never called
# through a subscribe its descriptor does not have.
config: conf/relay.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"generation 1, took over no, same mapping no, predecessor outside init NULL"}]}}
> {"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"relay://fixed"}}
< {"jsonrpc":"2.0","id":3,"result":{}}
> {"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"relay://item/7"}}
< {"jsonrpc":"2.0","id":4,"result":{}}
# Twice is once.
> {"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"relay://fixed"}}
< {"jsonrpc":"2.0","id":5,"result":{}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"heard"}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"[+relay://fixed +relay://item/7]"}]}}
> {"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{"uri":"relay://fixed"}}
< {"jsonrpc":"2.0","id":7,"result":{}}
# A listen: item/7 is followed already (by the session), item/8 is new; abi12's URI is not
# the relay's.
> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["relay://item/7","relay://item/8","abi12://doc"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"heard"}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"[+relay://fixed +relay://item/7 -relay://fixed +relay://item/8]"}]}}
# The listen ends: item/8 loses its last follower, item/7 keeps the session.
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"heard"}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"[+relay://fixed +relay://item/7 -relay://fixed +relay://item/8 -relay://item/8]"}]}}
> {"jsonrpc":"2.0","id":10,"method":"resources/subscribe","params":{"uri":"abi12://doc"}}
< {"jsonrpc":"2.0","id":10,"result":{}}
# SIGHUP: both rebuild (they ask to on every reload); no list changed, so nothing is sent.
signal HUP
silence 500
stderr ~plugin relay: generation 1 shut down; the child has 1 user\(s\)
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"status"}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"generation 2, took over yes, same mapping yes, predecessor outside init NULL"}]}}
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"heard"}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"[+relay://item/7]"}]}}
# A refresh the plugin asks for does the same.
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"rebuild"}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"asked"}]}}
silence 600
stderr ~plugin relay: generation 2 shut down; the child has 1 user\(s\)
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"status"}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"generation 3, took over yes, same mapping yes, predecessor outside init NULL"}]}}
> {"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"heard"}}
< {"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"[+relay://item/7]"}]}}
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"ping"}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"pong"}]}}
# The session ends with the input: the relay hears item/7 go, then shuts down (the child's
# last user).
close
exit 0
stderr ~generation 3 heard -relay://item/7
stderr ~plugin relay: generation 3 shut down; the child has 0 user\(s\)
stderr !~abi12: subscribe was called
