build-asan/core/lib/uritemplate.o: core/lib/uritemplate.c \
 core/lib/uritemplate.h /usr/include/cjson/cJSON.h core/lib/limits.h \
 plugin-api/mcph-json.h plugin-api/plugin-api.h core/lib/status.h
