# expect: FAIL nothing saved as "nope" .* \(line 6\)
config: fake.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":"<save:r>"}
# r was saved, nope was not
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":<saved:nope>}}}
