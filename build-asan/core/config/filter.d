build-asan/core/config/filter.o: core/config/filter.c \
 core/config/filter.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h core/lib/limits.h \
 plugin-api/mcph-json.h plugin-api/plugin-api.h
