# expect: FAIL at end: unexpected message .*"id":2.* \(line 5\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
