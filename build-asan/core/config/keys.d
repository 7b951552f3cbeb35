build-asan/core/config/keys.o: core/config/keys.c core/config/keys.h \
 core/config/config.h core/lib/diag.h core/config/filter.h \
 core/lib/strbuf.h core/lib/status.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h core/lib/limits.h plugin-api/mcph-json.h \
 plugin-api/plugin-api.h core/lib/log.h plugin-api/mcph-env.h \
 plugin-api/mcph-value.h
