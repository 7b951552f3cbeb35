# mcph: one non-recursive Makefile for the core, plugins, tests and bench.
#
#   make                 build build/mcph and every plugin into build/plugins/
#   make run             build, then serve conf/mcph.ini on stdio
#   make test            build, then run every test layer (installs what the tests need)
#   make SANITIZE=address,undefined test    the same under ASan/UBSan
#   make fuzz            run every libFuzzer harness for FUZZ_SECONDS (default 60) each
#   make check-format    clang-format check of core/, plugins/, plugin-api/, tests/
#   make clean

CC       ?= cc
BUILD    := build
SANITIZE ?=
WERROR   ?= 1

# --- Dependencies come from the system (Debian: libcjson-dev, libinih-dev; the sqlite
# plugin adds libsqlite3-dev, and the sqlite3 shell builds its sample database). ----------
DEB_PKGS := libcjson-dev libinih-dev pkg-config libsqlite3-dev sqlite3
PC_PKGS  := libcjson inih sqlite3
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

ifneq ($(MAKECMDGOALS),clean)
ifneq ($(shell pkg-config --exists $(PC_PKGS) 2>/dev/null && command -v sqlite3 >/dev/null && echo ok),ok)
$(info mcph: the build needs $(DEB_PKGS); installing them with apt-get)
$(shell $(SUDO) apt-get update -qq >&2 && \
        DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(DEB_PKGS) >&2)
ifneq ($(shell pkg-config --exists $(PC_PKGS) 2>/dev/null && echo ok),ok)
$(error mcph: $(PC_PKGS) still not found by pkg-config; install $(DEB_PKGS) and run make again)
endif
endif
endif

DEP_CFLAGS := $(shell pkg-config --cflags libcjson inih 2>/dev/null)
DEP_LIBS   := $(shell pkg-config --libs libcjson inih 2>/dev/null)

WARN   := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wwrite-strings -Wformat=2 -Wvla
ifeq ($(WERROR),1)
WARN   += -Werror
endif
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer)
OPT      := $(if $(SANITIZE),-O1,-O2)
CFLAGS_ALL := -std=c11 $(WARN) $(OPT) -g -pthread -D_GNU_SOURCE $(SANFLAGS) $(CFLAGS)
LDFLAGS_ALL := -pthread $(SANFLAGS) $(LDFLAGS)
PLUGIN_CFLAGS := $(CFLAGS_ALL) -fPIC -fvisibility=hidden -Iplugin-api

# Rebuild everything when the flags change (a sanitizer build and a plain one share build/).
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL)
ifneq ($(shell cat $(FLAGS_STAMP) 2>/dev/null),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD) && echo '$(FLAGS_NOW)' > $(FLAGS_STAMP))
endif

# --- Core ----------------------------------------------------------------------------------
CORE_SRC  := $(wildcard core/*.c)
CORE_OBJ  := $(patsubst core/%.c,$(BUILD)/core/%.o,$(CORE_SRC))
CORE_LIB  := $(filter-out $(BUILD)/core/main.o,$(CORE_OBJ))
MCPH      := $(BUILD)/mcph

# --- Plugins: plugins/NAME/*.c -> build/plugins/NAME.so; plugins/NAME/libs adds link flags.
PLUGIN_NAMES := $(notdir $(wildcard plugins/*))
PLUGINS      := $(patsubst %,$(BUILD)/plugins/%.so,$(PLUGIN_NAMES))
TEST_PLUGINS := $(patsubst tests/plugins/%.c,$(BUILD)/tests/plugins/%.so,$(wildcard tests/plugins/*.c))
CONFORMANCE_PLUGINS := $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance/%.so,\
                         $(wildcard tests/conformance/*.c))

# --- Unit tests: tests/unit/test_MODULE.c, linked with the core objects. ------------------
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))

NODE_STAMP := tests/node_modules/.installed

# The sample database of the default deployment, made from SQL kept in conf/.
SAMPLE_DB := $(BUILD)/conf/sample.db

.PHONY: all run test test-unit test-harness test-transcripts test-interop test-plugins test-reload \
        test-edges test-hostile test-conformance check-format clean node-deps plugin fuzz
all: $(MCPH) $(PLUGINS) $(SAMPLE_DB)

$(BUILD)/core/%.o: core/%.c $(wildcard core/*.h) plugin-api/plugin-api.h $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEP_CFLAGS) -MMD -c -o $@ $<

$(MCPH): $(CORE_OBJ)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(DEP_LIBS) -ldl -lm

.SECONDEXPANSION:
$(BUILD)/plugins/%.so: $$(wildcard plugins/%/*.c) $$(wildcard plugins/%/*.h) $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $(filter %.c,$^) $(shell cat plugins/$*/libs 2>/dev/null)
	@chmod go-w $@

$(BUILD)/tests/plugins/%.so: tests/plugins/%.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

$(BUILD)/tests/conformance/%.so: tests/conformance/%.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/check.h tests/unit/fixture.h $(CORE_LIB)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEP_CFLAGS) -Icore -o $@ $< $(CORE_LIB) $(LDFLAGS_ALL) $(DEP_LIBS) -ldl -lm

$(SAMPLE_DB): conf/sample.sql
	@install -d -m 755 $(dir $@)
	rm -f $@.tmp && sqlite3 -bail $@.tmp < $< && mv $@.tmp $@

run: all
	$(MCPH) conf/mcph.ini

# make plugin NAME=foo [CONF=conf/mcph.ini]: a new plugin in plugins/foo/ from the example's
# starter (one tool, foo_hello), enabled as [plugin.foo] in CONF, and built. A running mcph
# serves it after a SIGHUP, or at once in watch mode.
CONF    ?= conf/mcph.ini
STARTER := plugins/example/starter/starter.c
plugin:
	@case "$(NAME)" in ''|*[!a-z0-9_]*|[!a-z]*) \
	    echo "mcph: usage: make plugin NAME=foo (NAME: a lowercase C identifier, a-z 0-9 _)" >&2; \
	    exit 2;; esac
	@test ! -e plugins/$(NAME) || { \
	    echo "mcph: plugins/$(NAME) exists already; choose another NAME" >&2; exit 2; }
	@test -f $(CONF) || { echo "mcph: no INI file $(CONF); set CONF=path/to/mcph.ini" >&2; exit 2; }
	@install -d -m 755 plugins/$(NAME)
	sed -e 's/starter/$(NAME)/g' -e "s/STARTER/$$(echo $(NAME) | tr a-z A-Z)/g" \
	    $(STARTER) > plugins/$(NAME)/$(NAME).c
	@grep -q '^\[plugin\.$(NAME)\]' $(CONF) || \
	    printf '\n[plugin.%s]\npath = %s.so\n' $(NAME) $(NAME) >> $(CONF)
	@$(MAKE) --no-print-directory $(BUILD)/plugins/$(NAME).so
	@echo "mcph: plugins/$(NAME)/$(NAME).c built and enabled as [plugin.$(NAME)] in $(CONF);"
	@echo "      a running mcph serves its tool $(NAME)_hello after kill -HUP, or at once with --watch"

# Node.js and the npm packages of the interop tests (pinned in tests/package-lock.json).
node-deps: $(NODE_STAMP)
$(NODE_STAMP): tests/package.json tests/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || { \
	    echo "mcph: the tests need Node.js and npm; installing them with apt-get"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs npm; }
	cd tests && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

test: test-unit test-harness test-transcripts test-interop test-plugins test-reload test-edges \
      test-hostile test-conformance check-format

test-unit: $(UNIT_BIN) $(TEST_PLUGINS) $(PLUGINS)
	@pass=0; fail=0; for t in $(UNIT_BIN); do \
	    if $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAIL $$t"; fi; \
	done; echo "unit: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]

# The test tools themselves: the schema validator and the transcript runner must fail
# when they should.
test-harness: $(NODE_STAMP)
	node --test tests/lib/
	node tests/transcripts/selftest/check.mjs

test-transcripts: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/transcripts/run.mjs $(MCPH)

test-interop: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/interop/sdk-v1.mjs $(MCPH) tests/interop/example.ini
		node tests/interop/sdk-v1-features.mjs $(MCPH) tests/interop/features.ini
	node tests/interop/sdk-v2.mjs $(MCPH) tests/interop/modern.ini

# The shipped plugins through the real binary and the official SDK client, hostile input
# included: tests/shipped/NAME.mjs for each.
SHIPPED_TESTS := $(wildcard tests/shipped/*.mjs)
test-plugins: $(MCPH) $(PLUGINS) $(SAMPLE_DB) $(NODE_STAMP)
	@fail=0; for t in $(SHIPPED_TESTS); do \
	    echo "== $$t"; node $$t $(MCPH) || fail=$$((fail+1)); \
	done; echo "shipped plugins: $(words $(SHIPPED_TESTS)) suites, $$fail failed"; [ $$fail -eq 0 ]

# The official conformance server suite over supergateway on 127.0.0.1 (run.sh installs the
# pinned suite, supergateway and Node >= 22 into tests/conformance/node_modules).
test-conformance: $(MCPH) $(CONFORMANCE_PLUGINS)
	tests/conformance/run.sh $(MCPH)

# The pool at its edges: a client that stops reading, end of input then SIGTERM, the thread
# limit.
test-edges: $(MCPH) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/edges/edges.mjs $(MCPH)

# Hostile input through the real binary: malformed and abusive messages, a client that stops
# reading or never finishes the handshake, end of input with calls running.
test-hostile: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/hostile/hostile.mjs $(MCPH)

# libFuzzer harnesses (tests/fuzz/), built with clang, ASan and UBSan into build/fuzz/; each
# runs FUZZ_SECONDS and any crash, leak, time-out or out-of-memory fails.
FUZZ_SECONDS ?= 60
fuzz: $(PLUGINS) $(TEST_PLUGINS)
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# SIGHUP and watch-mode reloads end to end, make plugin then a reload, then 200 reloads under
# load.
test-reload: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/reload/reload.mjs $(MCPH)
	node tests/reload/scaffold.mjs $(MCPH)
	node tests/reload/soak.mjs $(MCPH)

FORMAT_FILES := $(wildcard core/*.[ch] plugin-api/*.h plugins/*/*.[ch] plugins/*/*/*.[ch] tests/unit/*.[ch] \
                                tests/plugins/*.c tests/conformance/*.c tests/bench/*.c tests/fuzz/*.c)
check-format:
	@command -v clang-format >/dev/null || { echo "mcph: installing clang-format"; \
	    $(SUDO) apt-get install -y -qq clang-format; }
	clang-format --dry-run --Werror $(FORMAT_FILES)
	@echo "format: $(words $(FORMAT_FILES)) files clean"


clean:
	rm -rf $(BUILD)

-include $(CORE_OBJ:.o=.d)

# mcph against the bare cJSON loop and the official SDK server (tests/bench/README.md).
#   make bench           the full table, about a minute on two cores
#   make bench QUICK=1   the same rows with fewer repetitions, about 20 s
QUICK ?=
.PHONY: bench
bench: $(MCPH) $(PLUGINS) $(NODE_STAMP)
	QUICK=$(QUICK) tests/bench/run.sh $(MCPH)
