#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS]: build every libFuzzer harness (tests/fuzz/fuzz_*.c) with clang,
# ASan and UBSan into build/fuzz/, replay the committed reproducers, then fuzz each harness for
# SECONDS (default 60). One summary line per harness; exits 1 when a reproducer in regress/
# crashes or a harness finds a crash, leak, time-out or out-of-memory. See tests/fuzz/README.md.
#
# Environment: FUZZ_ONLY="input schema" runs only those harnesses; FUZZ_JOBS (default 2) is the
# number of parallel compiles; FUZZ_ALLOW_BAD_UTF8=1 turns the input harness's UTF-8 oracle
# off (see the README).
set -euo pipefail
cd "$(dirname "$0")/../.."

SECONDS_EACH=${1:-60}
case "$SECONDS_EACH" in '' | *[!0-9]*)
    echo "usage: tests/fuzz/run.sh [SECONDS]" >&2
    exit 2
    ;;
esac

OUT=build/fuzz
FUZZ_DIR=tests/fuzz
JOBS=${FUZZ_JOBS:-2}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
# The plugins the input harness serves (fuzz_input.c's INI names the same ones).
FUZZ_PLUGINS="plugins/example tests/plugins/basic.c tests/plugins/features.c tests/plugins/threadsafe.c"

# --- The toolchain: clang with the libFuzzer runtime (Debian: clang, libclang-rt-dev). ---------
fuzz_toolchain_ok() {
    command -v clang >/dev/null || return 1
    local probe
    probe=$(mktemp -d)
    printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
        >"$probe/p.c"
    clang -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1
    local rc=$?
    rm -rf "$probe"
    return $rc
}
if ! fuzz_toolchain_ok; then
    echo "fuzz: installing clang and the libFuzzer runtime with apt-get"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-dev
    fuzz_toolchain_ok || { echo "fuzz: clang cannot link a libFuzzer harness" >&2; exit 1; }
fi
for pc in libcjson inih libseccomp; do
    pkg-config --exists "$pc" || { echo "fuzz: pkg-config finds no $pc; run make first" >&2; exit 1; }
done

# --- Build. ---------------------------------------------------------------------------------------
WARN="-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings \
-Wformat=2 -Wvla"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
read -r -a DEP_CFLAGS <<<"$(pkg-config --cflags libcjson inih libmicrohttpd libseccomp)"
read -r -a DEP_LIBS <<<"$(pkg-config --libs libcjson inih libseccomp)"
CFLAGS="-fsanitize=fuzzer-no-link $SAN -g -O1 -std=c11 -D_GNU_SOURCE -pthread $WARN"
FLAGS_NOW="clang $CFLAGS ${DEP_CFLAGS[*]}"
mkdir -p "$OUT/core" "$OUT/plugins" "$OUT/corpus" "$OUT/crashes" "$OUT/logs"
# Everything is rebuilt when the flags change.
if [ "$(cat "$OUT/.flags" 2>/dev/null)" != "$FLAGS_NOW" ]; then
    rm -f "$OUT"/core/*.o "$OUT"/plugins/*.so
    echo "$FLAGS_NOW" >"$OUT/.flags"
fi

# Whether target is missing or older than any of the files given after it.
fuzz_stale() {
    local target=$1 f
    shift
    [ -e "$target" ] || return 0
    for f in "$@"; do
        [ "$f" -nt "$target" ] && return 0
    done
    return 1
}

HEADERS=(core/*/*.h plugin-api/*.h)
echo "fuzz: building the core, the plugins and the harnesses with clang into $OUT/"
# The core's sources, the MCP client engine (core/client, isolate = process) among them.
CORE_SRCS=(core/*.c core/*/*.c)
core_obj() {
    echo "$OUT/core/$(basename "$(dirname "$1")")-$(basename "${1%.c}").o"
}
CORE_OBJS=()
STALE_SRC=()
for src in "${CORE_SRCS[@]}"; do
    [ "$src" = core/main.c ] && continue
    obj=$(core_obj "$src")
    CORE_OBJS+=("$obj")
    if fuzz_stale "$obj" "$src" "${HEADERS[@]}" "$OUT/.flags"; then
        STALE_SRC+=("$src")
    fi
done
# Objects of sources that are gone would be linked in otherwise.
for obj in "$OUT"/core/*.o; do
    [ -e "$obj" ] && [[ " ${CORE_OBJS[*]} " != *" $obj "* ]] && rm -f "$obj"
done
for src in ${STALE_SRC[@]+"${STALE_SRC[@]}"}; do
    printf '%s %s\n' "$src" "$(core_obj "$src")"
done | xargs -r -P "$JOBS" -n 2 sh -c \
    'clang '"$CFLAGS"' -Icore -Iplugin-api '"${DEP_CFLAGS[*]}"' -c -o "$1" "$0"'

for p in $FUZZ_PLUGINS; do
    if [ -d "$p" ]; then
        name=$(basename "$p")
        srcs=("$p"/*.c)
        read -r -a libs <<<"$(cat "$p/libs" 2>/dev/null || true)"
    else
        name=$(basename "$p" .c)
        srcs=("$p")
        libs=()
    fi
    so="$OUT/plugins/$name.so"
    if fuzz_stale "$so" "${srcs[@]}" plugin-api/plugin-api.h "$OUT/.flags"; then
        # shellcheck disable=SC2086
        clang $CFLAGS -fPIC -fvisibility=hidden -Iplugin-api -shared -o "$so" "${srcs[@]}" \
            ${libs[@]+"${libs[@]}"}
        chmod go-w "$so"
    fi
done

HARNESSES=()
for src in "$FUZZ_DIR"/fuzz_*.c; do
    name=$(basename "$src" .c)
    name=${name#fuzz_}
    if [ -n "${FUZZ_ONLY:-}" ] && [[ " $FUZZ_ONLY " != *" $name "* ]]; then
        continue
    fi
    HARNESSES+=("$name")
    bin="$OUT/fuzz_$name"
    if fuzz_stale "$bin" "$src" "${CORE_OBJS[@]}"; then
        # shellcheck disable=SC2086
        clang ${CFLAGS/fuzzer-no-link/fuzzer} -Werror -iquote core -Iplugin-api "${DEP_CFLAGS[@]}" -o "$bin" "$src" \
            "${CORE_OBJS[@]}" "${DEP_LIBS[@]}" -ldl -lm -Wl,--export-dynamic-symbol=nanosleep
    fi
done

# --- Replay the reproducers. ------------------------------------------------------------------
# libFuzzer's options for every run: a unit may take 10 s and 2 GB; leaks count as crashes.
FUZZ_OPTS=(-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
regress_failed=0
for name in "${HARNESSES[@]}"; do
    dir="$FUZZ_DIR/regress/$name"
    [ -d "$dir" ] || continue
    files=("$dir"/*)
    [ -e "${files[0]}" ] || continue
    log="$OUT/logs/regress-$name.log"
    if "$OUT/fuzz_$name" "${FUZZ_OPTS[@]}" "${files[@]}" >"$log" 2>&1; then
        echo "regress $name: ${#files[@]} reproducer(s) ok"
    else
        echo "regress $name: FAIL (a reproducer in $dir crashes again; $log)"
        grep -E '^Running:|ERROR|SUMMARY|^fuzz_[a-z]+: ' "$log" | tail -n 20 | sed 's/^/    /'
        failed=1
        regress_failed=1
    fi
done
# Reproducers of defects being fixed: reported, never fatal.
for name in "${HARNESSES[@]}"; do
    dir="$FUZZ_DIR/pending/$name"
    [ -d "$dir" ] || continue
    for f in "$dir"/*; do
        [ -e "$f" ] || continue
        if "$OUT/fuzz_$name" "${FUZZ_OPTS[@]}" "$f" >"$OUT/logs/pending.log" 2>&1; then
            echo "pending $name: $(basename "$f") passes now: move it to regress/$name/"
        else
            echo "pending $name: $(basename "$f") still fails (known defect, not counted)"
        fi
    done
done

# --- Fuzz. ----------------------------------------------------------------------------------------
# The stats of the last status line libFuzzer printed ("#N DONE cov: C ft: F corp: U/S ...").
fuzz_stat() {
    local log=$1 key=$2
    grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n "s/.* $key: \([0-9/a-zA-Z]*\).*/\1/p"
}

SUMMARY=()
for name in "${HARNESSES[@]}"; do
    corpus="$OUT/corpus/$name"
    seeds="$FUZZ_DIR/corpus/$name"
    log="$OUT/logs/$name.log"
    mkdir -p "$corpus"
    args=("${FUZZ_OPTS[@]}" -max_total_time="$SECONDS_EACH" -artifact_prefix="$OUT/crashes/$name-")
    [ -f "$FUZZ_DIR/$name.dict" ] && args+=(-dict="$FUZZ_DIR/$name.dict")
    dirs=("$corpus")
    [ -d "$seeds" ] && dirs+=("$seeds")
    echo "fuzz $name: ${SECONDS_EACH}s"
    touch "$OUT/logs/.start-$name"
    status=ok
    if ! "$OUT/fuzz_$name" "${args[@]}" "${dirs[@]}" >"$log" 2>&1; then
        status=FAIL
        failed=1
    fi
    if grep -qE '^==[0-9]+==ERROR|^SUMMARY: |deadly signal|ALARM: working on the last Unit|out-of-memory|^fuzz_[a-z]+: ' "$log"; then
        status=FAIL
        failed=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    line=$(printf '%-12s %-4s execs %-9s cov %-6s ft %-7s corpus %-6s (%s)' "$name" "$status" \
        "${execs:-?}" "$(fuzz_stat "$log" cov)" "$(fuzz_stat "$log" ft)" \
        "$(fuzz_stat "$log" corp)" "$log")
    SUMMARY+=("$line")
    if [ "$status" = FAIL ]; then
        echo "fuzz $name: FAIL; the end of $log:"
        grep -vE '^#[0-9]+' "$log" | tail -n 40 | sed 's/^/    /'
        find "$OUT/crashes" -name "$name-*" -newer "$OUT/logs/.start-$name" | sed 's/^/    artifact: /'
    fi
done

echo "fuzz: summary (executions, coverage edges, features, corpus units/bytes)"
printf '  %s\n' "${SUMMARY[@]}"
if [ $failed -ne 0 ]; then
    [ $regress_failed -ne 0 ] && echo "fuzz: FAILED: a reproducer in $FUZZ_DIR/regress/ fails"
    grep -q ' FAIL ' <<<"${SUMMARY[*]:-}" &&
        echo "fuzz: FAILED: new reproducers are in $OUT/crashes/ (tests/fuzz/README.md says what next)"
    exit 1
fi
echo "fuzz: all harnesses ok"
