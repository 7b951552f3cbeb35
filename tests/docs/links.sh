#!/usr/bin/env bash
# Every relative link of README.md and docs/*.md leads somewhere: the file or folder it names
# exists, and a #fragment names a heading of the Markdown file it points into (as GitHub
# makes its anchors). Links to other sites are not followed, and fenced code is skipped.
# Usage: links.sh [ROOT] (default: the tree this script is in). Prints each broken link as
# FILE:LINE: LINK: why, and exits 1 when there is one.
set -uo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}

# The anchors of a Markdown file, one a line: each heading lowercased, punctuation other than
# - and _ dropped, spaces made -; a repeated heading gets -1, -2, ...
anchors() {
    awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
        tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g' |
        awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

# FILE LINE TARGET for each link [text](target) outside fenced code.
links() {
    awk '/^```/ { code = !code; next }
         !code {
             line = $0
             while (match(line, /\]\([^) ]+\)/)) {
                 print FILENAME, FNR, substr(line, RSTART + 2, RLENGTH - 3)
                 line = substr(line, RSTART + RLENGTH)
             }
         }' "$@"
}

bad=0 count=0
files=("$ROOT/README.md")
for f in "$ROOT"/docs/*.md; do [ -e "$f" ] && files+=("$f"); done
while read -r file line target; do
    case $target in
    http:* | https:* | mailto:*) continue ;;
    esac
    count=$((count + 1))
    path=${target%%#*}
    frag=
    [ "$path" != "$target" ] && frag=${target#*#}
    if [ -z "$path" ]; then
        dest=$file
    else
        dest=$(dirname "$file")/$path
    fi
    rel=${file#"$ROOT"/}
    if [ ! -e "$dest" ]; then
        echo "$rel:$line: $target: no such file or folder"
        bad=1
    elif [ -n "$frag" ] && [[ $dest == *.md ]] && ! anchors "$dest" | grep -qxF -- "$frag"; then
        echo "$rel:$line: $target: no heading makes the anchor #$frag"
        bad=1
    fi
done < <(links "${files[@]}")
[ $bad -eq 0 ] && echo "docs: $count relative links in ${#files[@]} files resolve"
exit $bad
