build-asan/core/client/rows.o: core/client/rows.c core/client/link.h \
 core/client/client.h plugin-api/plugin-api.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h
