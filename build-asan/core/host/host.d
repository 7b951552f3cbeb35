build-asan/core/host/host.o: core/host/host.c core/host/host.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h core/lib/limits.h \
 plugin-api/mcph-json.h core/lib/number.h core/lib/log.h \
 core/host/plugin.h core/config/config.h core/lib/diag.h \
 core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/lib/schema.h \
 core/lib/work.h core/host/result.h core/lib/utf8.h core/lib/version.h
