build-asan/core/served/session.o: core/served/session.c \
 core/served/session.h /usr/include/cjson/cJSON.h core/wire/jsonrpc.h \
 core/lib/log.h core/lib/limits.h plugin-api/mcph-json.h \
 plugin-api/plugin-api.h core/served/registry.h core/config/config.h \
 core/lib/diag.h core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/host/plugin.h \
 core/lib/schema.h core/lib/work.h core/wire/revision.h
