#!/bin/sh
# The rooms of views/ (views/CMakeLists.txt) form a ladder: a file includes headers of its own
# room, of common/, and of the rooms before its own in the order below, never of a room after it.
# Usage: check_rooms.sh VIEWS_DIR. Prints every include that breaks it; fails when there is one.
set -eu
dir=${1:?usage: check_rooms.sh VIEWS_DIR}
order="common code build measure experiment compare advise capture shell"
rank() {
    i=0
    for r in $order; do
        [ "$r" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
bad=0
found=0
for f in "$dir"/*/*.h "$dir"/*/*.cpp "$dir"/*.h "$dir"/*.cpp; do
    [ -f "$f" ] || continue
    found=1
    room=$(basename "$(dirname "$f")")
    [ "$(dirname "$f")" = "$dir" ] && room=""
    own=$(rank "$room")
    if [ "$own" -lt 0 ]; then
        echo "$f: not in a room ($order)"
        bad=1
        continue
    fi
    for other in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"views/\([a-z_]*\)/.*|\1|p' "$f"); do
        r=$(rank "$other")
        if [ "$r" -lt 0 ] || { [ "$other" != common ] && [ "$r" -gt "$own" ]; } || { [ "$room" = common ] && [ "$other" != common ]; }; then
            echo "$f: includes views/$other/ (room $room may include common/ and the rooms before it: $order)"
            bad=1
        fi
    done
    if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"views/[a-z_]*\.h"' "$f"; then
        echo "$f: includes a header outside the rooms"
        bad=1
    fi
done
[ "$found" = 1 ] || { echo "no sources under $dir"; exit 1; }
exit $bad
