build-asan/core/lib/work.o: core/lib/work.c core/lib/work.h \
 core/lib/crash.h /usr/include/cjson/cJSON.h core/lib/limits.h \
 plugin-api/mcph-json.h plugin-api/plugin-api.h core/lib/status.h \
 core/lib/work_ring.h
