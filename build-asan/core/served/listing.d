build-asan/core/served/listing.o: core/served/listing.c \
 core/served/listing.h core/served/server.h core/config/config.h \
 core/lib/diag.h core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/served/inflight.h \
 /usr/include/cjson/cJSON.h core/wire/jsonrpc.h core/lib/log.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/wire/out.h core/wire/peer.h core/served/registry.h \
 core/host/plugin.h core/lib/schema.h core/lib/work.h \
 core/served/session.h core/served/subs.h core/client/confine.h \
 core/host/rows.h
