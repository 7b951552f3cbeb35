build-asan/core/lib/diag.o: core/lib/diag.c core/lib/diag.h \
 core/lib/strbuf.h core/lib/status.h plugin-api/mcph-strbuf.h \
 plugin-api/plugin-api.h
