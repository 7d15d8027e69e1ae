#!/usr/bin/env bash
# after.sh NAME [N]: from an `xtc opt --print-after-all` dump on stdin, print the IR after the N-th
# run (default 1) of pass NAME (between its header and the next one). Fails when there is none, so a
# pass that did not run cannot pass its checks vacuously.
set -euo pipefail
awk -v want="$1" -v nth="${2:-1}" '
  /^\/\/ -----\/\/ IR after / { if ($5 == want) { k++; p = (k == nth); if (p) found = 1 } else p = 0; next }
  p { print }
  END { if (!found) { print "after.sh: no IR after run " nth " of " want > "/dev/stderr"; exit 1 } }'
