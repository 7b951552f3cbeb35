# expect: FAIL expected silence for 500 ms, got .*"id":1.* \(line 5\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":200}}}
# the answer arrives during the silence
silence 500
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
