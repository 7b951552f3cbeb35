# SIGTERM with a call still running: after the grace period mcph cancels it, so a handler
# that polls cancelled() stops (and a plugin's child processes with it); the cancelled call
# gets no answer and mcph exits cleanly, unloading its plugins, well before it would give up.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"ms":60000}}}
sleep 200
signal TERM
stderr ~signal: shutting down
silence 4500
stderr ~shutting down; after the grace period, cancelled 1 request\(s\): 2 \(tools/call wait_cancel\)
exit 0
stderr !~exiting without unloading plugins
