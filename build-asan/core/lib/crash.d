build-asan/core/lib/crash.o: core/lib/crash.c core/lib/crash.h \
 /usr/include/cjson/cJSON.h core/lib/nowait.h core/lib/status.h
