# SIGTERM ends the server cleanly.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
signal TERM
exit 0
stderr ~shutting down
