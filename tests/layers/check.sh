#!/usr/bin/env bash
# The core's layers, read in the order a request goes through them (docs/internals.md). A
# file may include a header of its own layer or of a layer below it, and the plugin API; it
# may not include a header of a layer above it, nor anything outside core/ by a relative path
# (plugins/ above all). Usage: check.sh [ROOT] (default: the tree this script is in). Prints
# each wrong include as FILE:LINE and exits 1 when there is one.
set -uo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}

# Highest first: main.c, then the layers a request meets in turn.
LAYERS=(transport protocol calls served host client config wire lib)
rank() {
    local i
    [ "$1" = . ] && { echo 100; return; }
    for i in "${!LAYERS[@]}"; do
        [ "${LAYERS[$i]}" = "$1" ] && { echo $((${#LAYERS[@]} - i)); return; }
    done
    echo -1
}

bad=0 files=0
while IFS= read -r file; do
    files=$((files + 1))
    rel=${file#"$ROOT"/core/}
    layer=$(dirname "$rel")
    own=$(rank "$layer")
    if [ "$own" -lt 0 ]; then
        echo "$file: in core/$layer/, which is not a layer (one of: ${LAYERS[*]})"
        bad=1
        continue
    fi
    while IFS=: read -r line inc; do
        case $inc in
        plugin-api.h | mcph-*.h) continue ;;
        */*/* | ../* | */../*)
            echo "core/$rel:$line: #include \"$inc\": the core names headers as \"layer/file.h\" only (no relative paths; nothing from plugins/)"
            bad=1
            continue
            ;;
        */*) ;;
        *)
            echo "core/$rel:$line: #include \"$inc\": name its layer (\"layer/$inc\")"
            bad=1
            continue
            ;;
        esac
        theirs=$(rank "${inc%%/*}")
        if [ "$theirs" -lt 0 ]; then
            echo "core/$rel:$line: #include \"$inc\": ${inc%%/*} is not a layer"
            bad=1
        elif [ "$theirs" -gt "$own" ]; then
            echo "core/$rel:$line: #include \"$inc\": $layer may not include ${inc%%/*}, a layer above it"
            bad=1
        fi
    done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
        s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print FNR ":" s }' "$file")
done < <(find "$ROOT/core" -name '*.[ch]' | sort)
if [ "$files" -eq 0 ]; then
    echo "layers: no file under $ROOT/core"
    exit 1
fi
[ $bad -eq 0 ] && echo "layers: $files files, every include runs down or across"
exit $bad
