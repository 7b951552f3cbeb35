build-asan/core/lib/status.o: core/lib/status.c core/lib/status.h \
 plugin-api/plugin-api.h
