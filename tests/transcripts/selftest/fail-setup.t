# expect: FAIL setup: sh: false exited with status 1 \(line 2\)
setup: false
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
