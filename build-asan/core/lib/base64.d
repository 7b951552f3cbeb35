build-asan/core/lib/base64.o: core/lib/base64.c core/lib/base64.h
