build-asan/core/lib/number.o: core/lib/number.c core/lib/number.h \
 /usr/include/cjson/cJSON.h core/lib/status.h
