# expect: FAIL bad stdout: stdout line is not JSON .*this is not JSON.* \(line 5\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"garbage"}}
# the junk line comes before the answer and fails this expectation
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
