build-asan/core/calls/mrtr.o: core/calls/mrtr.c core/calls/mrtr.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/served/registry.h core/config/config.h core/lib/diag.h \
 core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/host/plugin.h \
 core/lib/log.h core/lib/schema.h /usr/include/cjson/cJSON.h \
 core/lib/work.h core/lib/base64.h core/lib/sha256.h \
 core/served/decorate.h
