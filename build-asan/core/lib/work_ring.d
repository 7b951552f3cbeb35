build-asan/core/lib/work_ring.o: core/lib/work_ring.c core/lib/work.h \
 core/lib/limits.h plugin-api/mcph-json.h plugin-api/plugin-api.h \
 core/lib/work_ring.h
