# A sticky folder others may write to (as /tmp) is fine when what is in it is mcph's user's
# or root's: nobody else can rename or replace it.
setup: mkdir -p open/inner && cp "$ROOT/build/tests/plugins/basic.so" open/inner/ && chmod 1777 open && printf '[server]\nplugin_dir = open/inner\n[plugin.basic]\n' > x.ini
config: $WORK/x.ini
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
stderr ~serving \d+ tools
