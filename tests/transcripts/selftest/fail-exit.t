# expect: FAIL expected exit status 0, got status 3 \(line 5\)
config: fake.ini
args: --exit-code 3
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
