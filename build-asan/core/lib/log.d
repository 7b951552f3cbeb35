build-asan/core/lib/log.o: core/lib/log.c core/lib/log.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/lib/nowait.h core/lib/status.h
