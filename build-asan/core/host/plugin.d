build-asan/core/host/plugin.o: core/host/plugin.c core/host/plugin.h \
 plugin-api/plugin-api.h core/config/config.h core/lib/diag.h \
 core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/lib/log.h \
 core/lib/limits.h plugin-api/mcph-json.h core/lib/schema.h \
 /usr/include/cjson/cJSON.h core/lib/work.h core/config/keys.h \
 core/host/image.h core/host/rows.h core/host/isolate.h \
 core/client/client.h
