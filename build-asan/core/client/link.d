build-asan/core/client/link.o: core/client/link.c core/client/link.h \
 core/client/client.h plugin-api/plugin-api.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h \
 plugin-api/mcph-json.h
