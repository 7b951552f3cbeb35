# initialize without a protocolVersion is invalid params.
config: conf/basic.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"~protocolVersion"}}
> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2024-11-05"}}
