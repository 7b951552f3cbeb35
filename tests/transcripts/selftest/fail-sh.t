# expect: FAIL sh: exit 3 exited with status 3 \(line 6\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
sh true
sh exit 3
