build-asan/core/host/isolate.o: core/host/isolate.c core/host/isolate.h \
 plugin-api/plugin-api.h core/client/client.h core/config/config.h \
 core/lib/diag.h core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/lib/limits.h \
 plugin-api/mcph-json.h core/host/plugin.h core/lib/log.h \
 core/lib/schema.h /usr/include/cjson/cJSON.h core/lib/work.h
