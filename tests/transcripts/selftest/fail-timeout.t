# expect: FAIL no message within \d+ ms \(waiting for .*\) \(line 5\)
# The answer comes after 400 ms; the line wants it within 100 ms.
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":400}}}
<@100 {"jsonrpc":"2.0","id":1,"result":"<any>"}
