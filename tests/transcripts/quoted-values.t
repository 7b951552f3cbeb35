# A ';' after a space inside quotes stays in the value: the exec plugin gets the whole
# description (it used to get 'stamp "UTC' and refuse an open quote).
config: conf/quoted.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"stamp","description":"~^UTC ; ISO 8601\n"}]}}
