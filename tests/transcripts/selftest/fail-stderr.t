# expect: FAIL stderr does not match /no such text/ \(line 5\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
stderr ~no such text
