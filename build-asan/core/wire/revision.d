build-asan/core/wire/revision.o: core/wire/revision.c \
 core/wire/revision.h
