build-asan/core/served/notify.o: core/served/notify.c \
 core/served/notify.h core/served/registry.h core/config/config.h \
 core/lib/diag.h core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/host/plugin.h \
 plugin-api/plugin-api.h core/lib/log.h core/lib/limits.h \
 plugin-api/mcph-json.h core/lib/schema.h /usr/include/cjson/cJSON.h \
 core/lib/work.h core/served/server.h core/served/inflight.h \
 core/wire/jsonrpc.h core/wire/out.h core/wire/peer.h \
 core/served/session.h core/served/subs.h core/served/decorate.h
