#!/usr/bin/env bash
# count.sh: reads IR on stdin and prints one line `NAME COUNT` per op of the families a lowering
# emits (xe.*, lane.*, tile.*, gpu.*, scf.for/if), sorted by name, so a golden test states the
# exact number of every hardware/lane op after a pass (CHECK-NEXT over the list: nothing missing,
# nothing extra) without thousands of CHECK lines.
set -euo pipefail
{ grep -oE '(^|[ =] )(xe|lane|tile|gpu)\.[a-z_0-9]+|scf\.(for|if)' || true; } | sed 's/^[ =]* *//' | sort | uniq -c | awk '{ print $2, $1 }'
