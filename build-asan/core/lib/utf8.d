build-asan/core/lib/utf8.o: core/lib/utf8.c core/lib/utf8.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h
