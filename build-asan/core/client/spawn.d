build-asan/core/client/spawn.o: core/client/spawn.c core/client/link.h \
 core/client/client.h plugin-api/plugin-api.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h /usr/include/cjson/cJSON.h core/client/confine.h \
 plugin-api/mcph-env.h
