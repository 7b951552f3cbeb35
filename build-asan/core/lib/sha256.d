build-asan/core/lib/sha256.o: core/lib/sha256.c core/lib/sha256.h
