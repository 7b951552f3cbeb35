build-asan/core/transport/httpmsg.o: core/transport/httpmsg.c \
 core/transport/httpmsg.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 /usr/include/cjson/cJSON.h core/lib/base64.h core/wire/jsonrpc.h \
 plugin-api/mcph-json.h core/protocol/modern.h core/served/server.h \
 core/config/config.h core/lib/diag.h core/config/filter.h \
 core/served/inflight.h core/lib/log.h core/lib/limits.h \
 plugin-api/plugin-api.h core/wire/out.h core/wire/peer.h \
 core/served/registry.h core/host/plugin.h core/lib/schema.h \
 core/lib/work.h core/served/session.h core/served/subs.h
