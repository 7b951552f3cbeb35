build-asan/core/host/result.o: core/host/result.c core/host/result.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h \
 core/host/result_item.h core/lib/base64.h core/lib/limits.h \
 plugin-api/mcph-json.h core/lib/number.h core/wire/revision.h \
 core/lib/status.h core/lib/strbuf.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h
