# mcph: one non-recursive Makefile for the core, plugins, tests and bench.
#
#   make                 build build/mcph and every plugin into build/plugins/
#   make run             build (its output goes to stderr), then serve conf/local.ini if it
#                        exists, else conf/mcph.ini, on stdio: stdout carries only the protocol
#   make test            build, then run every test layer. It installs what the tests need
#                        with apt-get and npm when missing: Node.js and npm, the npm packages
#                        of tests/ (tests/node_modules), nginx (test-scale's load balancer),
#                        prometheus (test-http's promtool, the metrics text's parser), and
#                        a second Node.js >= 22 for the conformance suite
#                        (tests/conformance/node_modules)
#   make SANITIZE=address,undefined test    the same under ASan/UBSan
#   make plugin NAME=foo    a new plugin, plugins/foo/, from the starter; enabled in
#                        conf/local.ini (untracked; made from conf/mcph.ini the first time) or
#                        in the INI named by CONF=
#   make bench           mcph against a bare cJSON loop and the SDK server (QUICK=1: shorter)
#   make fuzz            run every libFuzzer harness for FUZZ_SECONDS (default 60) each
#   make check-format    clang-format check of core/, plugins/, plugin-api/, tests/
#   make install         build, then install into PREFIX (default /usr/local); DESTDIR=/stage
#                        stages it; make uninstall removes it again (same PREFIX, DESTDIR)
#   make test-install    install into a temporary DESTDIR, build a plugin there with
#                        pkg-config, serve it with the installed binary, uninstall
#   make clean

CC       ?= cc
BUILD    := build
SANITIZE ?=
WERROR   ?= 1

# --- Dependencies come from the system (Debian: libcjson-dev, libinih-dev, libmicrohttpd-dev,
# libseccomp-dev for the filter of confined processes; the sqlite plugin adds libsqlite3-dev,
# and the sqlite3 shell builds its sample database). ---------------------------------------
DEB_PKGS := libcjson-dev libinih-dev libmicrohttpd-dev libseccomp-dev pkg-config libsqlite3-dev \
            sqlite3 libssl-dev libcurl4-openssl-dev
PC_PKGS  := libcjson inih libmicrohttpd libseccomp sqlite3 libcrypto libcurl
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# (Not for make clean or make uninstall, which build nothing.)
ifneq ($(if $(MAKECMDGOALS),$(filter-out clean uninstall,$(MAKECMDGOALS)),all),)
ifneq ($(shell pkg-config --exists $(PC_PKGS) 2>/dev/null && command -v sqlite3 >/dev/null && echo ok),ok)
$(shell echo "mcph: the build needs $(DEB_PKGS); installing them with apt-get" >&2)
$(shell $(SUDO) apt-get update -qq >&2 && \
        DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(DEB_PKGS) >&2)
ifneq ($(shell pkg-config --exists $(PC_PKGS) 2>/dev/null && echo ok),ok)
$(error mcph: $(PC_PKGS) still not found by pkg-config; install $(DEB_PKGS) and run make again)
endif
endif
endif

DEP_CFLAGS := $(shell pkg-config --cflags libcjson inih libmicrohttpd libseccomp libcrypto libcurl 2>/dev/null)
# libmicrohttpd is opened when mcph listens (core/transport/http_mhd.c), not linked: a stdio server maps
# none of it, nor the TLS libraries it brings.
# libcrypto and libcurl (OAuth's signatures and JWKS fetches) are opened the same way, only
# when OAuth is configured (core/lib/jwt_lib.c).
DEP_LIBS   := $(shell pkg-config --libs libcjson inih libseccomp 2>/dev/null)

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
CORE_SRC  := $(wildcard core/*.c core/*/*.c)
CORE_HDR  := $(wildcard core/*/*.h)
CORE_OBJ  := $(patsubst core/%.c,$(BUILD)/core/%.o,$(CORE_SRC))
# The MCP client engine (core/client/) serves isolated plugins (core/host/isolate.c) and the mcp
# plugin: built once, as position-independent code with hidden symbols, and linked into both
# mcph and mcp.so (which still exports its entry point alone).
# The relay (core/client/remote*.c, mcph --remote) runs in a process of its own: mcph links it,
# mcp.so does not.
CLIENT_OBJ := $(patsubst core/%.c,$(BUILD)/core/%.o,\
                $(filter-out core/client/remote%.c,$(wildcard core/client/*.c)))
CORE_LIB  := $(filter-out $(BUILD)/core/main.o,$(CORE_OBJ))
MCPH      := $(BUILD)/mcph

# --- Plugins: plugins/NAME/*.c -> build/plugins/NAME.so; plugins/NAME/libs adds link flags.
PLUGIN_NAMES := $(notdir $(wildcard plugins/*))
PLUGINS      := $(patsubst %,$(BUILD)/plugins/%.so,$(PLUGIN_NAMES))
TEST_PLUGINS := $(patsubst tests/plugins/%.c,$(BUILD)/tests/plugins/%.so,$(wildcard tests/plugins/*.c))
# A plugin in C++ (tests/plugins/*.cc): the ABI headers compile as C++17 and mcph serves it.
TEST_PLUGINS += $(patsubst tests/plugins/%.cc,$(BUILD)/tests/plugins/%.so,$(wildcard tests/plugins/*.cc))
CONFORMANCE_PLUGINS := $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance/%.so,\
                         $(wildcard tests/conformance/*.c))

# --- The guide's examples (plugin-api/examples/*.c, and the starter make plugin copies), each
# a plugin built and served by plugin-api/examples/examples.t in test-transcripts.
EXAMPLE_PLUGINS := $(patsubst plugin-api/examples/%.c,$(BUILD)/plugin-api/examples/%.so,\
                     $(wildcard plugin-api/examples/*.c)) $(BUILD)/plugin-api/examples/starter.so

# --- Unit tests: tests/unit/test_MODULE.c, linked with the core objects. ------------------
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))

NODE_STAMP := tests/node_modules/.installed

# The sample database of the default deployment, made from SQL kept in conf/.
SAMPLE_DB := $(BUILD)/conf/sample.db

.PHONY: all run test test-trust test-layers test-unit test-harness test-transcripts test-interop test-plugins test-reload \
        test-http test-scale \
        test-edges test-hostile test-conformance test-gateway test-remote test-isolate test-confine test-install \
        test-docs check-format clean node-deps plugin promtool-dep \
        fuzz install uninstall
all: $(MCPH) $(PLUGINS) $(SAMPLE_DB)

$(BUILD)/core/%.o: core/%.c $(CORE_HDR) $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) -Icore -Iplugin-api $(DEP_CFLAGS) -MMD -c -o $@ $<

$(BUILD)/core/client/%.o: core/client/%.c $(CORE_HDR) $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -Icore $(DEP_CFLAGS) -MMD -c -o $@ $<

$(MCPH): $(CORE_OBJ)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(DEP_LIBS) -ldl -lm

.SECONDEXPANSION:
$(BUILD)/plugins/%.so: $$(wildcard plugins/%/*.c) $$(wildcard plugins/%/*.h) $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) $(DEP_CFLAGS) -shared -o $@ $(filter %.c,$^) $(shell cat plugins/$*/libs 2>/dev/null)
	@chmod go-w $@

$(BUILD)/plugins/mcp.so: $(wildcard plugins/mcp/*.c) $(wildcard plugins/mcp/*.h) $(CLIENT_OBJ) \
                         $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -Icore $(DEP_CFLAGS) -shared -o $@ $(filter %.c,$^) $(CLIENT_OBJ) \
	    $(shell cat plugins/mcp/libs)
	@chmod go-w $@

$(BUILD)/tests/plugins/%.so: tests/plugins/%.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

# g++ is Debian's (installed when missing); C++17 without designated initialisers, so the
# headers' C++ path is the one checked.
CXXFLAGS_PLUGIN := -std=c++17 -Wall -Wextra -Wpedantic $(if $(filter 1,$(WERROR)),-Werror) $(OPT) -g \
                   -fPIC -fvisibility=hidden $(SANFLAGS) -Iplugin-api $(CXXFLAGS)
$(BUILD)/tests/plugins/%.so: tests/plugins/%.cc $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@command -v $(CXX) >/dev/null || { echo "mcph: the C++ test plugin needs g++; installing it"; \
	    $(SUDO) apt-get install -y -qq g++; }
	@install -d -m 755 $(dir $@)
	$(CXX) $(CXXFLAGS_PLUGIN) -shared -o $@ $< $(LDFLAGS_ALL)
	@chmod go-w $@

$(BUILD)/plugin-api/examples/%.so: plugin-api/examples/%.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

$(BUILD)/plugin-api/examples/starter.so: plugins/example/starter/starter.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

$(BUILD)/tests/conformance/%.so: tests/conformance/%.c $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared -o $@ $<
	@chmod go-w $@

$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/check.h tests/unit/fixture.h $(wildcard plugin-api/*.h) \
                       $(CORE_LIB)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEP_CFLAGS) -Icore -Iplugin-api -o $@ $< $(CORE_LIB) $(LDFLAGS_ALL) $(DEP_LIBS) -ldl -lm

# test_jwt signs its tokens with libcrypto itself.
$(BUILD)/tests/unit/test_jwt: DEP_LIBS += $(shell pkg-config --libs libcrypto 2>/dev/null)

# A plugin's pure parts (tests/unit/test_files_*.c), linked with that plugin's own sources
# rather than the core's objects.
FILES_UNIT_SRC := plugins/files/path.c plugins/files/util.c
$(BUILD)/tests/unit/test_files_%: tests/unit/test_files_%.c tests/unit/check.h $(FILES_UNIT_SRC) \
                                  plugins/files/files.h $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iplugins/files -Iplugin-api -o $@ $< $(FILES_UNIT_SRC) $(LDFLAGS_ALL)

# The exec plugin's command grammar: its spec.c is included whole by the test (its parser is
# static), with path.c for the kinds' names; no core object is needed.
EXEC_UNIT_SRC := plugins/exec/spec.c plugins/exec/path.c plugins/exec/exec.h
$(BUILD)/tests/unit/test_exec: tests/unit/test_exec.c tests/unit/check.h $(EXEC_UNIT_SRC) \
                               $(wildcard plugin-api/*.h) $(FLAGS_STAMP)
	@install -d -m 755 $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iplugins/exec -Iplugin-api -o $@ $< plugins/exec/path.c $(LDFLAGS_ALL)

$(SAMPLE_DB): conf/sample.sql
	@install -d -m 755 $(dir $@)
	rm -f $@.tmp && sqlite3 -bail $@.tmp < $< && mv $@.tmp $@

# The INI make run serves: conf/local.ini (what make plugin adds to) when there is one.
RUN_CONF ?= $(if $(wildcard conf/local.ini),conf/local.ini,conf/mcph.ini)
# stdout is the protocol stream: the build's lines go to stderr, and no command is echoed.
run:
	@$(MAKE) --no-print-directory all >&2
	@echo "mcph: serving $(RUN_CONF) on stdio" >&2
	@exec $(MCPH) $(RUN_CONF)

# make plugin NAME=foo [CONF=conf/local.ini]: a new plugin in plugins/foo/ from the example's
# starter (one tool, foo_hello), enabled as [plugin.foo] in CONF (isolated, and confined to
# reading plugins/foo), and built. A running mcph serves it after a SIGHUP, or at once in
# watch mode. The default CONF, conf/local.ini, is untracked (conf/.gitignore): the first
# make plugin copies it from conf/mcph.ini, which stays as shipped; make run serves it from
# then on.
CONF    ?= conf/local.ini
STARTER := plugins/example/starter/starter.c
plugin:
	@case "$(NAME)" in ''|*[!a-z0-9_]*|[!a-z]*) \
	    echo "mcph: usage: make plugin NAME=foo (NAME: a lowercase C identifier, a-z 0-9 _)" >&2; \
	    exit 2;; esac
	@test ! -e plugins/$(NAME) || { \
	    echo "mcph: plugins/$(NAME) exists already; choose another NAME" >&2; exit 2; }
	@test -f $(CONF) || test "$(CONF)" != conf/local.ini || { \
	    { echo '; conf/local.ini: conf/mcph.ini plus the plugins make plugin added; untracked.'; \
	      echo '; make run serves this file while it exists.'; cat conf/mcph.ini; } > $(CONF) && \
	    echo "mcph: made $(CONF) from conf/mcph.ini (untracked; make run serves it)" >&2; }
	@test -f $(CONF) || { echo "mcph: no INI file $(CONF); set CONF=path/to/mcph.ini" >&2; exit 2; }
	@install -d -m 755 plugins/$(NAME)
	sed -e 's/starter/$(NAME)/g' -e "s/STARTER/$$(echo $(NAME) | tr a-z A-Z)/g" \
	    $(STARTER) > plugins/$(NAME)/$(NAME).c
	@grep -q '^\[plugin\.$(NAME)\]' $(CONF) || \
	    printf '\n[plugin.%s]\npath = %s.so\n%s\n%s\n%s\n%s\n' $(NAME) $(NAME) \
	        '; a crash in a plugin being written costs its calls, not the session (no for speed)' \
	        'isolate = process' \
	        '; confined: it reads its own folder, nothing else (grant: read write exec network)' \
	        "read = $$(realpath -m --relative-to=$$(dirname $(CONF)) plugins/$(NAME))" >> $(CONF)
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

test: test-layers test-unit test-harness test-transcripts test-interop test-plugins test-reload test-edges \
      test-hostile test-http test-scale test-conformance test-gateway test-remote test-isolate test-confine \
      test-trust test-install test-docs check-format

# The core's layers (docs/internals.md): no include runs up a layer or into plugins/; the
# check is seen to fail on includes planted in a copy of core/.
test-layers:
	tests/layers/selftest.sh
	tests/layers/check.sh

test-unit: $(UNIT_BIN) $(TEST_PLUGINS) $(PLUGINS)
	@pass=0; fail=0; for t in $(UNIT_BIN); do \
	    if $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAIL $$t"; fi; \
	done; echo "unit: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]

# The test tools themselves: the schema validator and the transcript runner must fail
# when they should.
test-harness: $(NODE_STAMP)
	node --test tests/lib/
	node tests/transcripts/selftest/check.mjs

test-transcripts: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(EXAMPLE_PLUGINS) $(NODE_STAMP)
	node tests/transcripts/run.mjs $(MCPH)
	node tests/transcripts/run.mjs $(MCPH) plugin-api/examples/*.t
	node plugin-api/examples/guide.mjs

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

# The official conformance server suite against mcph --listen on 127.0.0.1 (run.sh installs the
# pinned suite and Node >= 22 into tests/conformance/node_modules); then the
# same suite two hops away: mcph serving, through its mcp plugin, an mcph serving the fixture
# on stdio, and an mcph serving the fixture over HTTP (a url section, two-hop-http.ini). Last,
# the suite against server-everything over HTTP, directly and through a url section: the same
# results (everything.sh; what differs and why in everything-differences.yml).
test-conformance: $(MCPH) $(CONFORMANCE_PLUGINS) $(BUILD)/plugins/mcp.so $(NODE_STAMP)
	tests/conformance/run.sh $(MCPH)
	CONFORMANCE_INI=tests/conformance/two-hop.ini \
	    CONFORMANCE_RESULTS=tests/conformance/results-two-hop tests/conformance/run.sh $(MCPH)
	CONFORMANCE_UPSTREAM=1 CONFORMANCE_RESULTS=tests/conformance/results-two-hop-http \
	    tests/conformance/run.sh $(MCPH)
	tests/conformance/everything.sh $(MCPH)

# The mcp plugin with external MCP servers behind it (server-everything, -filesystem and
# -memory from tests/node_modules, and tests/gateway/fake-server.mjs): results against the
# same server direct, with the SDK v1 and v2 clients; crashes, restarts, start-up failures,
# reloads and a reload storm; no server left behind; a server that stops reading or asks too
# much (stuck.mjs); hostile rows and stderr (rows.mjs); what one upstream message may cost
# once parsed (memory.mjs); two 2026-07-28 requests making the same call each answering their
# own parked request, in process and isolated (origin.mjs); a relayed result still converted
# and checked for the client's revision and the tool's outputSchema (convert.mjs); a server's
# log line read by a waiting call is still heard by every client that asked (lend.mjs);
# call_timeout_ms of an mcp section
# (timeout.mjs); idle_stop_s: an idle server stopped, started again by a call (idle.mjs); ten
# servers started through launchers, confined or not, leave no process after SIGKILL, the end
# of input, SIGTERM or a reload that removes them (launchers.mjs).
test-gateway: $(MCPH) $(PLUGINS) $(NODE_STAMP)
	node tests/gateway/gateway.mjs $(MCPH)
	node tests/gateway/stuck.mjs $(MCPH)
	node tests/gateway/rows.mjs $(MCPH)
	node tests/gateway/memory.mjs $(MCPH)
	node tests/gateway/origin.mjs $(MCPH)
	node tests/gateway/passthru.mjs $(MCPH)
	node tests/gateway/convert.mjs $(MCPH)
	node tests/gateway/lend.mjs $(MCPH)
	node tests/gateway/timeout.mjs $(MCPH)
	node tests/gateway/idle.mjs $(MCPH)
	node tests/gateway/launchers.mjs $(MCPH)

# Remote upstreams: url sections of the mcp plugin (the relay, mcph --remote SECTION) in front of
# servers over Streamable HTTP on loopback. The relay driven directly in front of an upstream
# mcph --listen: both eras, credentials, settings faults and the SSRF guard's refusal (exit 78),
# the upstream gone (exit 1) (relay.mjs); server-everything's HTTP mode against the same server
# direct (everything.mjs); an upstream mcph killed mid-call and started again on its port, one
# down at start (restart.mjs); the SSRF guard's refusals, redirects and names included, in a
# network namespace of the test's own, each with its control (ssrf.mjs); TLS through nginx
# with a test CA made by openssl (tls.mjs; nginx installed when missing); token_file,
# token_env and headers_file sent, a refused token a configuration error, no token printed,
# the client's own never passed on (credentials.mjs).
REMOTE_TESTS := relay everything restart ssrf tls credentials
test-remote: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(CONFORMANCE_PLUGINS) $(NODE_STAMP)
	@command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { \
	    echo "mcph: the TLS test needs nginx; installing it with apt-get"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nginx; }
	@fail=0; for t in $(REMOTE_TESTS); do echo "== node tests/remote/$$t.mjs $(MCPH)"; \
	    node tests/remote/$$t.mjs $(MCPH) || fail=$$((fail+1)); \
	done; echo "remote: $(words $(REMOTE_TESTS)) suites, $$fail failed"; [ $$fail -eq 0 ]

# isolate = process: tests/plugins/fault.c crashing in a child every way it can (a NULL store,
# abort, exit, stack overflow, a loop past call_timeout_ms, an allocation past max_memory, in
# init and in shutdown) while calls to other plugins go on; down after five crashes in a row,
# SIGKILL of mcph, progress, cancellation and logs through a child; a stopped child sent a
# 1 MiB call (stuck.mjs); then 200 crashes (60 under a sanitizer) and reloads in a soak.
test-isolate: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/isolate/isolate.mjs $(MCPH)
	node tests/isolate/stuck.mjs $(MCPH)
	node tests/isolate/soak.mjs $(MCPH)

# Confinement attacked from inside, in a network namespace of the test's own: tests/plugins/
# attack.c isolated and tests/confine/attacker.mjs behind the mcp plugin, confined, try to read,
# write, list, execute, connect, signal, trace, mount and raise their limits past their grants;
# each attempt is refused with the error the child sees, logged, and the section serves on, while
# the same attempt from an unconfined section (or with network = yes) succeeds. Then again as on a
# kernel without Landlock (MCPH_LANDLOCK_ABI=0): what is not refused must be named at start-up.
test-confine: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/confine/confine.mjs $(MCPH)
	node tests/confine/confine.mjs $(MCPH) --landlock-abi=0

# Trust (docs/trust.md): definitions pinned by a lock file and drift refused with its diff
# (pin.mjs), the audit log's lines and their HMAC chain checked by mcph --verify-audit against
# removed, changed and reordered lines (audit.mjs), and trace context from the official SDK
# client into a plugin, an isolated child, a proxied server and the audit log (trace.mjs).
TRUST_TESTS := $(sort $(wildcard tests/trust/*.mjs))
test-trust: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	@set -e; for t in $(TRUST_TESTS); do echo "node $$t $(MCPH)"; node $$t $(MCPH); done

# Streamable HTTP (mcph --listen on 127.0.0.1): the official SDK clients over it, sessions and
# their streams, and bad HTTP input of every kind (methods, headers, media types, sizes,
# slowloris, streams dropped mid-call, bearer tokens, Host and Origin); OAuth against a real
# authorization server (oauth2-mock-server) and its JWKS URL (oauth.mjs); rate limits per
# principal and per tool, answered 429 or -32000, and reloaded (ratelimit.mjs); tool sets per
# credential and requestState bound to its principal (access.mjs); metrics and health
# (metrics.mjs: every count against the calls made, the text checked by promtool).
test-http: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(CONFORMANCE_PLUGINS) $(NODE_STAMP) promtool-dep
	node tests/http/clients.mjs $(MCPH)
	node tests/http/hostile.mjs $(MCPH)
	node tests/http/oauth.mjs $(MCPH)
	node tests/http/oauth-access.mjs $(MCPH)
	node tests/http/ratelimit.mjs $(MCPH)
	node tests/http/access.mjs $(MCPH)
	node tests/http/metrics.mjs $(MCPH)

# promtool (Debian's prometheus package), the parser tests/http/metrics.mjs checks the metrics
# text with; installed with apt-get when missing.
promtool-dep:
	@command -v promtool >/dev/null || { \
	    echo "mcph: the metrics test needs promtool; installing prometheus with apt-get"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends prometheus; }

# Scale-out: three replicas sharing a state key behind nginx (Debian's, round-robin; installed
# when missing), the v2 client in 2026-07-28 mode through it, and a legacy client with session
# affinity on Mcp-Session-Id.
test-scale: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	tests/scale/run.sh $(MCPH)

# The pool at its edges: a client that stops reading, end of input then SIGTERM, the thread
# limit.
test-edges: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/edges/edges.mjs $(MCPH)

# Hostile input through the real binary: malformed and abusive messages, a client that stops
# reading or never finishes the handshake, end of input with calls running; what one message
# may cost once parsed (tests/hostile/memory.mjs).
test-hostile: $(MCPH) $(PLUGINS) $(TEST_PLUGINS) $(NODE_STAMP)
	node tests/hostile/hostile.mjs $(MCPH)
	node tests/hostile/memory.mjs $(MCPH)

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

# --- Install: make install [PREFIX=/usr/local] [DESTDIR=/staging/root] ---------------------
# Installed paths are $(PREFIX)/...; files land in $(DESTDIR)$(PREFIX)/..., and DESTDIR is
# never written into an installed file. The example INI finds the plugins, the headers and its
# data by paths relative to its own folder, so it serves as installed, staged or moved.
PREFIX          ?= /usr/local
DESTDIR         ?=
INSTALL_BIN     := $(PREFIX)/bin
INSTALL_INCLUDE := $(PREFIX)/include/mcph
INSTALL_LIB     := $(PREFIX)/lib/mcph
INSTALL_PLUGINS := $(INSTALL_LIB)/plugins
INSTALL_PC      := $(PREFIX)/lib/pkgconfig
INSTALL_SHARE   := $(PREFIX)/share/mcph
INSTALL_MAN     := $(PREFIX)/share/man
INSTALL_HEADERS := $(wildcard plugin-api/*.h)
INSTALL_PROMPTS := $(wildcard conf/prompts/*.md)
# From the headers ('.define': a '#' would start a comment here in make before 4.3).
MCPH_VERSION    := $(shell sed -n 's/^.define MCPH_VERSION "\(.*\)"/\1/p' core/lib/version.h)
MCPH_ABI        := $(shell sed -n 's/^.define MCPH_ABI_MAJOR \([0-9]*\)$$/\1/p' \
                     plugin-api/plugin-api.h).$(shell sed -n \
                     's/^.define MCPH_ABI_MINOR \([0-9]*\)$$/\1/p' plugin-api/plugin-api.h)

# The example INI is conf/mcph.ini with its paths into the tree pointed at the installed
# layout: share/mcph/ holds it, its sample database and prompts; the plugins are in
# ../../lib/mcph/plugins and the headers the files plugin serves in ../../include/mcph.
INI_SED := -e '1s|.*|; mcph.ini: an example deployment that make install puts in share/mcph/.|' \
           -e '2s|.*|; Paths are relative to this folder; a copy elsewhere needs them absolute.|' \
           -e 's|^plugin_dir = .*|plugin_dir = ../../lib/mcph/plugins ; the installed plugins|' \
           -e 's|^root = .*|root = ../../include/mcph ; the folder served: the ABI headers|' \
           -e 's|^database = \.\./build/conf/|database = |' \
           -e 's|reads the plugin author.s guide|reads the plugin ABI headers|' \
           -e 's|conf/prompts|prompts/|g' -e 's|under conf/|beside the INI|' \
           -e 's|; conf/: commands|; this folder: commands|'

# Generated files go straight to their place: after `make`, `sudo make install` writes nothing
# in build/ (which root would then own).
INI_INSTALLED := $(DESTDIR)$(INSTALL_SHARE)/mcph.ini
PC_INSTALLED  := $(DESTDIR)$(INSTALL_PC)/mcph-plugin.pc
install: all
	@case "$(PREFIX)" in /*) ;; *) \
	    echo "mcph: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 2;; esac
	@if sed $(INI_SED) conf/mcph.ini | grep -n '\.\./build\|\.\./plugin-api'; then \
	    echo "mcph: conf/mcph.ini has a path into the tree that INI_SED does not map" >&2; exit 1; fi
	install -d -m 755 $(DESTDIR)$(INSTALL_BIN) $(DESTDIR)$(INSTALL_INCLUDE) \
	    $(DESTDIR)$(INSTALL_PLUGINS) $(DESTDIR)$(INSTALL_PC) $(DESTDIR)$(INSTALL_SHARE)/prompts \
	    $(DESTDIR)$(INSTALL_MAN)/man1 $(DESTDIR)$(INSTALL_MAN)/man5 \
	    $(DESTDIR)$(INSTALL_MAN)/man7
	install -m 755 $(MCPH) $(DESTDIR)$(INSTALL_BIN)/mcph
	install -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INSTALL_INCLUDE)/
	install -m 755 $(PLUGINS) $(DESTDIR)$(INSTALL_PLUGINS)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(MCPH_VERSION)|' -e 's|@ABI@|$(MCPH_ABI)|' \
	    mcph-plugin.pc.in > $(PC_INSTALLED)
	sed $(INI_SED) conf/mcph.ini > $(INI_INSTALLED)
	chmod 644 $(PC_INSTALLED) $(INI_INSTALLED)
	install -m 644 $(SAMPLE_DB) $(DESTDIR)$(INSTALL_SHARE)/
	install -m 644 $(INSTALL_PROMPTS) $(DESTDIR)$(INSTALL_SHARE)/prompts/
	install -m 644 man/mcph.1 $(DESTDIR)$(INSTALL_MAN)/man1/
	install -m 644 man/mcph.ini.5 $(DESTDIR)$(INSTALL_MAN)/man5/
	install -m 644 man/mcph-plugin.7 $(DESTDIR)$(INSTALL_MAN)/man7/

# Removes the files install puts there (the lists come from the tree, not from build/), then
# the folders of mcph's own that are left empty.
uninstall:
	rm -f $(DESTDIR)$(INSTALL_BIN)/mcph $(PC_INSTALLED) $(INI_INSTALLED) \
	    $(patsubst plugin-api/%,$(DESTDIR)$(INSTALL_INCLUDE)/%,$(INSTALL_HEADERS)) \
	    $(patsubst %,$(DESTDIR)$(INSTALL_PLUGINS)/%.so,$(PLUGIN_NAMES)) \
	    $(DESTDIR)$(INSTALL_SHARE)/$(notdir $(SAMPLE_DB)) \
	    $(patsubst conf/%,$(DESTDIR)$(INSTALL_SHARE)/%,$(INSTALL_PROMPTS)) \
	    $(DESTDIR)$(INSTALL_MAN)/man1/mcph.1 $(DESTDIR)$(INSTALL_MAN)/man5/mcph.ini.5 \
	    $(DESTDIR)$(INSTALL_MAN)/man7/mcph-plugin.7
	@for dir in $(DESTDIR)$(INSTALL_PLUGINS) $(DESTDIR)$(INSTALL_LIB) $(DESTDIR)$(INSTALL_INCLUDE) \
	        $(DESTDIR)$(INSTALL_SHARE)/prompts $(DESTDIR)$(INSTALL_SHARE); do \
	    [ ! -d $$dir ] || rmdir $$dir 2>/dev/null || echo "mcph: $$dir is not empty; left in place"; \
	done

# make install into a temporary DESTDIR, a plugin built outside the tree with pkg-config and
# served by the installed binary, the example INI served, the man pages rendered, then make
# uninstall leaving nothing behind.
test-install: all
	MAKE="$(MAKE)" tests/install/install.sh

# Every relative link of README.md and docs/ resolves; the check is seen to fail on links
# planted in a copy.
test-docs:
	tests/docs/selftest.sh
	tests/docs/links.sh

FORMAT_FILES := $(wildcard core/*.[ch] core/*/*.[ch] plugin-api/*.h plugin-api/examples/*.c plugins/*/*.[ch] plugins/*/*/*.[ch] tests/unit/*.[ch] \
                                tests/plugins/*.c tests/plugins/*.cc tests/conformance/*.c tests/bench/*.[ch] tests/fuzz/*.c)
check-format:
	@command -v clang-format >/dev/null || { echo "mcph: installing clang-format"; \
	    $(SUDO) apt-get install -y -qq clang-format; }
	clang-format --dry-run --Werror $(FORMAT_FILES)
	@echo "format: $(words $(FORMAT_FILES)) files clean"


clean:
	rm -rf $(BUILD)

-include $(CORE_OBJ:.o=.d)

# mcph against the bare cJSON loop and the official SDK server, over HTTP against nginx too,
# and its hops against a bare relay (tests/bench/README.md).
#   make bench           the full table, about three minutes on two cores
#   make bench QUICK=1   the same rows with fewer repetitions, about 80 s
QUICK ?=
.PHONY: bench
bench: $(MCPH) $(PLUGINS) $(NODE_STAMP)
	QUICK=$(QUICK) tests/bench/run.sh $(MCPH)
