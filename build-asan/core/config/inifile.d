build-asan/core/config/inifile.o: core/config/inifile.c \
 core/config/inifile.h core/lib/diag.h
