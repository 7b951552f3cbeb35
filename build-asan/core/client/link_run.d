build-asan/core/client/link_run.o: core/client/link_run.c \
 core/client/link.h core/client/client.h plugin-api/plugin-api.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 /usr/include/cjson/cJSON.h plugin-api/mcph-json.h
