build-asan/core/served/watch.o: core/served/watch.c core/served/watch.h \
 core/config/config.h core/lib/diag.h core/config/filter.h \
 core/lib/strbuf.h core/lib/status.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h core/lib/debounce.h core/lib/limits.h \
 plugin-api/mcph-json.h plugin-api/plugin-api.h
