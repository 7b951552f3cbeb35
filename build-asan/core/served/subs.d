build-asan/core/served/subs.o: core/served/subs.c core/served/subs.h \
 /usr/include/cjson/cJSON.h core/lib/limits.h plugin-api/mcph-json.h \
 plugin-api/plugin-api.h core/lib/status.h
