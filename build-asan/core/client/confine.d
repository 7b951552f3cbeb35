build-asan/core/client/confine.o: core/client/confine.c \
 core/client/confine.h plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 plugin-api/plugin-api.h plugin-api/mcph-env.h
