build-asan/core/client/serve.o: core/client/serve.c core/client/link.h \
 core/client/client.h plugin-api/plugin-api.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h
