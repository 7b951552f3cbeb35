build-asan/core/config/config.o: core/config/config.c \
 core/config/config.h core/lib/diag.h core/config/filter.h \
 core/lib/strbuf.h core/lib/status.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h core/config/inifile.h core/config/keys.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/lib/log.h
