build-asan/core/host/result_json.o: core/host/result_json.c \
 core/host/result.h plugin-api/plugin-api.h /usr/include/cjson/cJSON.h \
 core/host/result_item.h core/lib/number.h core/lib/status.h \
 core/wire/revision.h
