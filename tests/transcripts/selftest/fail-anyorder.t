# expect: FAIL no any-order match: pattern 2 .* matches no message .* \(line 6\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
<~ {"jsonrpc":"2.0","id":2,"result":{}}
<~ {"jsonrpc":"2.0","id":3,"result":{}}
