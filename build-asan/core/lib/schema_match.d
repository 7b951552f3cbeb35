build-asan/core/lib/schema_match.o: core/lib/schema_match.c \
 core/lib/schema.h core/lib/strbuf.h core/lib/status.h \
 plugin-api/mcph-strbuf.h plugin-api/plugin-api.h \
 /usr/include/cjson/cJSON.h core/lib/limits.h plugin-api/mcph-json.h \
 plugin-api/plugin-api.h core/lib/schema_node.h
