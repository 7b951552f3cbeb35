build-asan/core/served/inflight.o: core/served/inflight.c \
 core/served/inflight.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 /usr/include/cjson/cJSON.h core/wire/jsonrpc.h
