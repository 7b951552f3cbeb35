# expect: ok
# setup: runs before the server starts, in a fresh work directory that $WORK/ in config:
# names; sh runs during the transcript, in the same directory, with $TDIR (this file's folder).
setup: sed 's/^name = .*/name = from-work/' "$TDIR/fake.ini" > work.ini
setup: test "$PWD" = "$WORK" && test -d "$ROOT/tests/transcripts"
config: $WORK/work.ini
stderr ~started as from-work
> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}
sh echo changed > note.txt && grep -q changed "$WORK/note.txt"
sh test "$(stat -c %a .)" = 755
