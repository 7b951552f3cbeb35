build-asan/core/lib/debounce.o: core/lib/debounce.c core/lib/debounce.h
