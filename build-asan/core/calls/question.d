build-asan/core/calls/question.o: core/calls/question.c \
 core/calls/question.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 /usr/include/cjson/cJSON.h core/host/host.h plugin-api/plugin-api.h \
 core/wire/revision.h
