build-asan/core/wire/out.o: core/wire/out.c core/wire/out.h \
 core/lib/strbuf.h core/lib/status.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h core/wire/jsonrpc.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/lib/utf8.h
