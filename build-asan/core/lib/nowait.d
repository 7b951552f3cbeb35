build-asan/core/lib/nowait.o: core/lib/nowait.c core/lib/nowait.h
