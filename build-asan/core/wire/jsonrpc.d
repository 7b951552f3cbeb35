build-asan/core/wire/jsonrpc.o: core/wire/jsonrpc.c core/wire/jsonrpc.h \
 /usr/include/cjson/cJSON.h core/lib/status.h core/lib/utf8.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h
