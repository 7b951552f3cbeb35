#!/bin/sh
# tests/install/install.sh: what `make install` puts on a machine, used as a user would.
#
# Installs into a temporary DESTDIR with a PREFIX, checks every file is where it belongs and
# nothing else is there, builds a plugin in a folder outside the tree with nothing but
# `cc $(pkg-config --cflags mcph-plugin) -shared` and serves it with the installed binary
# over a pipe (initialize, tools/list, tools/call), serves the installed example INI, checks
# --version and --help against core/lib/version.h and the man pages, lints the man pages (with
# mandoc or groff, when the machine has one), then runs `make uninstall` and checks that
# nothing is left. Run it through `make test-install` (MAKE names the make to run).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
MAKE=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcph-install.XXXXXX")
dest=$tmp/stage
prefix=/opt/mcph
stage=$dest$prefix
server_pid=
fails=0

cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
# A write to an mcph that has ended fails (and is reported) instead of killing the script.
trap '' PIPE

fail() {
    echo "install: FAIL: $*" >&2
    fails=$((fails + 1))
}

die() {
    echo "install: FAIL: $*" >&2
    exit 1
}

run_make() {
    "$MAKE" -C "$root" --no-print-directory DESTDIR="$dest" PREFIX="$prefix" "$@"
}

# --- make install ------------------------------------------------------------------------
if run_make PREFIX=opt/relative install >"$tmp/relative.log" 2>&1; then
    fail "make install accepted a relative PREFIX"
fi
[ ! -e "$dest" ] || fail "make install with a relative PREFIX wrote $(find "$dest" | head -3)"

run_make install >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log" >&2
    die "make install DESTDIR=$dest PREFIX=$prefix failed"
}

# What install must put there: the lists come from the tree, the man pages are named.
expected_files() {
    echo bin/mcph
    for h in "$root"/plugin-api/*.h; do echo "include/mcph/${h##*/}"; done
    for d in "$root"/plugins/*/; do
        d=${d%/}
        echo "lib/mcph/plugins/${d##*/}.so"
    done
    echo lib/pkgconfig/mcph-plugin.pc
    echo share/man/man1/mcph.1
    echo share/man/man5/mcph.ini.5
    echo share/man/man7/mcph-plugin.7
    echo share/mcph/mcph.ini
    echo share/mcph/sample.db
    for p in "$root"/conf/prompts/*.md; do echo "share/mcph/prompts/${p##*/}"; done
}
expected_files | sed "s|^|${prefix#/}/|" | LC_ALL=C sort >"$tmp/expected"
(cd "$dest" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/got"
diff -u "$tmp/expected" "$tmp/got" >&2 ||
    fail "the files under DESTDIR are not exactly those expected under PREFIX (- missing, + extra)"
[ -x "$stage/bin/mcph" ] || fail "bin/mcph is not executable"
for f in "$stage"/lib/mcph/plugins/*.so; do
    # mcph refuses a plugin file that group or others could write.
    [ -z "$(find "$f" -perm -020 -o -perm -002)" ] || fail "$f is writable by group or others"
done
if grep -rlF "$dest" "$stage" >"$tmp/baked" 2>/dev/null; then
    fail "DESTDIR is written into installed files: $(tr '\n' ' ' <"$tmp/baked")"
fi

# --- --version and --help ----------------------------------------------------------------
version=$(sed -n 's/^#define MCPH_VERSION "\(.*\)"$/\1/p' "$root/core/lib/version.h")
abi_major=$(sed -n 's/^#define MCPH_ABI_MAJOR \([0-9]*\)$/\1/p' "$root/plugin-api/plugin-api.h")
abi_minor=$(sed -n 's/^#define MCPH_ABI_MINOR \([0-9]*\)$/\1/p' "$root/plugin-api/plugin-api.h")
if [ -z "$version" ] || [ -z "$abi_major" ] || [ -z "$abi_minor" ]; then
    die "cannot read the version from core/lib/version.h and plugin-api/plugin-api.h"
fi
out=$("$stage/bin/mcph" --version 2>"$tmp/version.err") || fail "mcph --version exited $?"
[ "$out" = "mcph $version (plugin ABI $abi_major.$abi_minor)" ] ||
    fail "mcph --version printed '$out', not 'mcph $version (plugin ABI $abi_major.$abi_minor)'"
[ ! -s "$tmp/version.err" ] || fail "mcph --version wrote to stderr: $(cat "$tmp/version.err")"

"$stage/bin/mcph" --help >"$tmp/help" 2>"$tmp/help.err" || fail "mcph --help exited $?"
[ ! -s "$tmp/help.err" ] || fail "mcph --help wrote to stderr: $(cat "$tmp/help.err")"
grep -q '^usage: mcph ' "$tmp/help" || fail "mcph --help printed no usage line on stdout"

# --help and mcph(1) list the same options.
man1=$stage/share/man/man1/mcph.1
man5=$stage/share/man/man5/mcph.ini.5
man7=$stage/share/man/man7/mcph-plugin.7
# Every option each of them names, hyphens included (--verify-audit, --audit-key); in the man page,
# the OPTIONS section, where an option's own arguments (--after MAC) are named inline.
grep -oE -- '--[a-z]+(-[a-z]+)*' "$tmp/help" | LC_ALL=C sort -u >"$tmp/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man1" | grep -oE '\\-\\-[a-z]+(\\-[a-z]+)*' |
    sed 's/\\-/-/g' | LC_ALL=C sort -u >"$tmp/man.opts"
[ -s "$tmp/help.opts" ] || fail "found no option in mcph --help"
diff -u "$tmp/help.opts" "$tmp/man.opts" >&2 ||
    fail "mcph --help (-) and the OPTIONS of mcph(1) (+) list different options"
for page in "$man1" "$man5" "$man7"; do
    grep -q "^\.TH .* \"mcph $version\"" "$page" ||
        fail "${page##*/}: its .TH line does not say mcph $version"
done

# mcph.ini(5) has every [server] key and every key of a plugin section that core/config/keys.c
# knows, and every key of the shipped plugins.
config_c=$root/core/config/keys.c
server_keys=$(sed -n '/config_server_keys\[\] = {/,/^};/s/^ *{"\([a-z_]*\)",.*/\1/p' "$config_c")
own_keys=$(sed -n '/config_plugin_keys\[\] = {/,/^};/s/^ *{"\([a-z_]*\)",.*/\1/p' "$config_c")
plugin_keys=$(for f in "$root"/plugins/*/*.c; do
    sed -n '/mcph_config_key [a-z_]*\[\] = {/,/^};/p' "$f"
done | sed -n 's/^ *{*\.name = "\([a-z_]*\)".*/\1/p')
if [ -z "$server_keys" ] || [ -z "$own_keys" ] || [ -z "$plugin_keys" ]; then
    die "cannot read the config keys from core/config/keys.c and plugins/*/*.c"
fi
for key in $server_keys $own_keys $plugin_keys; do
    grep -q "^\.BI* $key\( \|$\)" "$man5" || fail "mcph.ini(5) does not describe the key $key"
done

# --- Every document a message cites is installed ----------------------------------------
# A message of the binary or a plugin that says "see NAME(N)" names a page install put in
# share/man; none names a file of the source tree (README.md, plugin-api/...), which a user
# of the installed mcph does not have.
for f in "$stage/bin/mcph" "$stage"/lib/mcph/plugins/*.so; do
    strings "$f" 2>/dev/null | grep -o 'see [a-z][a-z.-]*([1-8])' | sort -u |
        while read -r _ page; do
            name=${page%(*}
            section=${page#*(}
            section=${section%)}
            [ -f "$stage/share/man/man$section/$name.$section" ] ||
                echo "${f##*/} cites $page, which is not installed"
        done
    strings "$f" 2>/dev/null | grep -E '(see|in) [^ ]*(README|plugin-api/)' |
        sed "s|^|${f##*/} cites a file of the source tree: |"
done >"$tmp/cited"
[ ! -s "$tmp/cited" ] || fail "$(cat "$tmp/cited")"
grep -q 'see mcph-plugin(7)' "$stage/bin/mcph" || fail "mcph's messages no longer cite mcph-plugin(7)"

# --- The man pages render without warnings ------------------------------------------------
if command -v mandoc >/dev/null 2>&1; then
    for page in "$man1" "$man5" "$man7"; do
        mandoc -T lint -W warning "$page" >"$tmp/lint" 2>&1 ||
            fail "mandoc -T lint ${page##*/}: $(cat "$tmp/lint")"
    done
elif command -v groff >/dev/null 2>&1; then
    for page in "$man1" "$man5" "$man7"; do
        groff -man -ww -z -Tutf8 "$page" >"$tmp/lint" 2>&1 || fail "groff ${page##*/} failed"
        [ ! -s "$tmp/lint" ] || fail "groff -ww ${page##*/}: $(cat "$tmp/lint")"
        groff -man -Tutf8 -P-cbou "$page" 2>/dev/null | grep -q '^NAME$' ||
            fail "groff rendered no NAME section for ${page##*/}"
    done
else
    echo "install: neither mandoc nor groff is installed; the man pages are not linted"
fi

# --- A plugin built outside the tree with pkg-config -------------------------------------
command -v pkg-config >/dev/null 2>&1 || die "pkg-config is not installed"
# Only the staged tree is searched; the sysroot maps the installed paths (-I$prefix/...)
# to where they are staged.
PKG_CONFIG_LIBDIR=$stage/lib/pkgconfig
PKG_CONFIG_PATH=
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
cflags=$(pkg-config --cflags mcph-plugin) || die "pkg-config --cflags mcph-plugin failed"
case " $cflags " in
*" -I$stage/include/mcph "*) ;;
*) fail "pkg-config --cflags mcph-plugin gave '$cflags', without -I$stage/include/mcph" ;;
esac
[ "$(pkg-config --modversion mcph-plugin)" = "$version" ] ||
    fail "mcph-plugin.pc has version $(pkg-config --modversion mcph-plugin), not $version"
[ "$(pkg-config --variable=abi mcph-plugin)" = "$abi_major.$abi_minor" ] ||
    fail "mcph-plugin.pc has abi=$(pkg-config --variable=abi mcph-plugin)"
# plugindir as installed (pkg-config versions differ on whether the sysroot applies to it).
plugindir=$(unset PKG_CONFIG_SYSROOT_DIR && pkg-config --variable=plugindir mcph-plugin)
[ "$plugindir" = "$prefix/lib/mcph/plugins" ] ||
    fail "pkg-config --variable=plugindir gave '$plugindir', not $prefix/lib/mcph/plugins"
[ -f "$dest$plugindir/files.so" ] || fail "plugindir $plugindir does not hold the shipped plugins"

mkdir "$tmp/src" "$tmp/plugins"
cat >"$tmp/src/shout.c" <<'EOF'
/* shout.c: one tool, built outside the mcph tree, with both installed headers. */
#include <ctype.h>
#include <stdio.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

/* Not static: -fvisibility=hidden from mcph-plugin.pc keeps it out of the dynamic symbols. */
void shout_upper(char *s);

void shout_upper(char *s)
{
    for (; *s != '\0'; s++)
        *s = (char)toupper((unsigned char)*s);
}

static int shout_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct mcph_strbuf out = MCPH_STRBUF_INIT;
    const char *text;
    int rc;

    (void)state;
    if (host->arg_string(call, "text", &text) != MCPH_OK)
        return host->tool_error(call, "the argument \"text\" must be a string");
    mcph_sb_addf(&out, "%s!", text);
    if (out.nomem) {
        mcph_sb_release(&out);
        return MCPH_ERR_NOMEM;
    }
    shout_upper(out.buf);
    rc = host->text(call, out.buf);
    mcph_sb_release(&out);
    return rc;
}

static const struct mcph_tool shout_tools[] = {
    {
        .name = "shout",
        .description = "Says the text in capitals.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                        "\"required\":[\"text\"]}",
        .call = shout_call,
    },
    {0},
};

static const struct mcph_plugin shout_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "shout",
    .version = "1.0.0",
    .description = "A plugin built outside the mcph tree",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = shout_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &shout_plugin;
}
EOF
# shellcheck disable=SC2086 # the flags are words
(cd "$tmp/src" && cc $cflags -shared -o "$tmp/plugins/shout.so" shout.c) ||
    die "cc \$(pkg-config --cflags mcph-plugin) -shared failed on a plugin outside the tree"
chmod go-w "$tmp/plugins/shout.so"
if command -v nm >/dev/null 2>&1; then
    syms=$(nm -D --defined-only "$tmp/plugins/shout.so" | awk '$2 == "T" { print $3 }')
    [ "$syms" = "mcph_plugin_entry" ] ||
        fail "the plugin exports $(echo "$syms" | tr '\n' ' '), not mcph_plugin_entry alone"
fi
cat >"$tmp/plugins/outside.ini" <<EOF
[server]
name = outside
strict = yes

[plugin.outside]
path = $tmp/plugins/shout.so
prefix = out
EOF

# --- Serving with the installed binary over a pipe ----------------------------------------
watchdog=
command -v timeout >/dev/null 2>&1 && watchdog="timeout 60"

# serve INI: start the installed mcph on INI with fd 3 writing its stdin, fd 4 reading its
# stdout; its stderr goes to $tmp/server.log.
serve() {
    rm -f "$tmp/in" "$tmp/out"
    mkfifo "$tmp/in" "$tmp/out"
    # shellcheck disable=SC2086
    $watchdog "$stage/bin/mcph" "$1" <"$tmp/in" >"$tmp/out" 2>"$tmp/server.log" &
    server_pid=$!
    exec 3>"$tmp/in" 4<"$tmp/out"
}

send() {
    printf '%s\n' "$1" >&3
}

# reply ID: the answer to request ID (other lines are skipped), or failure at end of output.
reply() {
    while IFS= read -r line <&4; do
        case $line in
        *'"id":'"$1"','*)
            printf '%s\n' "$line"
            return 0
            ;;
        esac
    done
    return 1
}

# request ID METHOD [PARAMS]: send a request, print its answer ("(no answer)" when mcph ended).
request() {
    if send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"$2\"${3:+,\"params\":$3}}" 2>/dev/null &&
        reply "$1"; then
        return 0
    fi
    echo "(no answer)"
}

# stop: end of input, then mcph must exit 0.
stop() {
    exec 3>&- 4<&-
    code=0
    wait "$server_pid" || code=$?
    server_pid=
    [ "$code" -eq 0 ] || fail "mcph exited $code serving $1: $(cat "$tmp/server.log")"
}

initialize() {
    got=$(request 1 initialize '{"protocolVersion":"2025-06-18","capabilities":{},'\
'"clientInfo":{"name":"install.sh","version":"1"}}')
    case $got in
    "(no answer)") return 1 ;;
    *'"protocolVersion":"2025-06-18"'*'"serverInfo":{"name":"'"$1"'","version":"'"$version"'"'*) ;;
    *) fail "initialize answered: $got" ;;
    esac
    send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}

serve "$tmp/plugins/outside.ini"
if initialize outside; then
    got=$(request 2 tools/list)
    case $got in
    *'"tools":[{"name":"out_shout",'*) ;;
    *) fail "tools/list does not list out_shout: $got" ;;
    esac
    got=$(request 3 tools/call '{"name":"out_shout","arguments":{"text":"hello from outside"}}')
    want='{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"HELLO FROM OUTSIDE!"}]}}'
    [ "$got" = "$want" ] || fail "tools/call out_shout answered $got, not $want"
else
    fail "no answer to initialize from the plugin built outside the tree: $(cat "$tmp/server.log")"
fi
stop "$tmp/plugins/outside.ini"

# --- The installed example INI ------------------------------------------------------------
example=$stage/share/mcph/mcph.ini
"$stage/bin/mcph" --check "$example" >"$tmp/check.out" 2>"$tmp/check.err" ||
    fail "mcph --check on the installed example INI exited $?: $(cat "$tmp/check.err")"
serve "$example"
if initialize mcph; then
    got=$(request 2 tools/list)
    case $got in
    *'"tools":[{"name":"'*) ;;
    *) fail "tools/list of the installed example INI is empty: $got" ;;
    esac
    for tool in fs_read_file db_query sh_date echo; do
        case $got in
        *'"name":"'$tool'"'*) ;;
        *) fail "the installed example INI does not serve $tool" ;;
        esac
    done
    got=$(request 3 tools/call \
        '{"name":"db_query","arguments":{"sql":"SELECT count(*) AS n FROM books"}}')
    case $got in
    *'"isError":true'* | *'"error":'*) fail "db_query on the installed sample database: $got" ;;
    *'"row_count":1'*) ;;
    *) fail "db_query on the installed sample database: $got" ;;
    esac
else
    fail "no answer to initialize serving the installed example INI: $(cat "$tmp/server.log")"
fi
stop "$example"

# --- make uninstall -----------------------------------------------------------------------
# A file of the user's own in share/mcph stays, and so does its folder.
echo '; mine' >"$stage/share/mcph/local.ini"
run_make uninstall >"$tmp/uninstall.log" 2>&1 || {
    cat "$tmp/uninstall.log" >&2
    die "make uninstall failed"
}
left=$(cd "$dest" && find . ! -type d | sed 's|^\./||')
[ "$left" = "${prefix#/}/share/mcph/local.ini" ] ||
    fail "after make uninstall, files left besides share/mcph/local.ini: $left"
grep -q 'share/mcph is not empty; left in place' "$tmp/uninstall.log" ||
    fail "make uninstall did not say that share/mcph was left: $(cat "$tmp/uninstall.log")"
rm "$stage/share/mcph/local.ini"
run_make uninstall >"$tmp/uninstall.log" 2>&1 || die "a second make uninstall failed"
left=$(cd "$dest" && find . ! -type d)
[ -z "$left" ] || fail "after make uninstall, files are left: $left"
for dir in lib/mcph include/mcph share/mcph; do
    [ ! -e "$stage/$dir" ] || fail "make uninstall left the folder $dir"
done

if [ "$fails" -ne 0 ]; then
    echo "install: $fails check(s) failed" >&2
    exit 1
fi
echo "install: make install, a plugin built outside the tree with pkg-config, the example INI," \
    "--version, --help, the man pages and make uninstall: all checks passed"
