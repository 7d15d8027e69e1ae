#!/bin/bash
# Builds one libFuzzer target with clang-15 (ASan + UBSan, -O1) from the sources, then fuzzes it for a
# bounded number of inputs with a fixed seed, so a run is reproducible (the same binary and corpus give
# the same inputs; CI cannot fail on a new random draw). ctest runs both targets (label `fuzz`, about
# a minute each); crashes found are kept in tests/fuzz/regressions/TARGET/ and replayed by every run.
#   tests/fuzz/run-fuzzer.sh frontend|ir-parser BUILD_DIR [RUNS [SEED]]     (default 10000 runs, seed 1)
# For exploratory fuzzing, pass a large RUNS and another SEED.
# For `frontend`, BUILD_DIR must have built xtc_xt_parser (the generated ANTLR parser in grammar/gen/).
# Exit code: libFuzzer's (non-zero on a crash, leak, timeout or trap).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
target=${1:?usage: $0 frontend|ir-parser BUILD_DIR [SECONDS]}
build=$(cd "${2:?usage: $0 frontend|ir-parser BUILD_DIR [SECONDS]}" && pwd)
runs=${3:-10000}
seed=${4:-1}
cxx=clang++-15
command -v ccache >/dev/null && cxx="ccache clang++-15"
work=$build/fuzz-$target
rm -rf "$work/corpus"  # a fresh corpus each run: the run depends only on the sources, RUNS and SEED
mkdir -p "$work/obj" "$work/corpus"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -I"$repo" -isystem /usr/include/antlr4-runtime)
objs=()
compile() {  # compile SRC [extra flags]
  local src=$1; shift
  local obj=$work/obj/$(echo "${src#"$repo"/}" | tr / _).o
  $cxx "${flags[@]}" "$@" -c "$src" -o "$obj"
  objs+=("$obj")
}
case $target in
  frontend)
    gen=$build/grammar/gen
    [ -f "$gen/XtParser.cpp" ] || { echo "no generated parser in $gen: build xtc_xt_parser first" >&2; exit 2; }
    for src in "$repo"/ir/Type.cpp "$repo"/ir/Attribute.cpp "$repo"/ir/Operation.cpp "$repo"/ir/Builder.cpp \
               "$repo"/ir/support/Diagnostics.cpp "$repo"/frontend/*.cpp "$repo"/tests/fuzz/frontend_fuzz.cpp; do
      compile "$src" -isystem "$gen"
    done
    # The ANTLR 4.7.2 output needs -fno-char8_t under C++20 and is not ours: no warnings.
    for src in "$gen"/XtLexer.cpp "$gen"/XtParser.cpp "$gen"/XtVisitor.cpp "$gen"/XtBaseVisitor.cpp; do
      compile "$src" -fno-char8_t -w
    done
    libs=(-lantlr4-runtime -lfmt)
    seeds=("$repo"/examples/*.xt "$repo"/tests/golden/frontend/*.xt "$repo"/tests/bad-input/frontend/*.xt)
    max_len=4096
    ;;
  ir-parser)
    for src in "$repo"/ir/*.cpp "$repo"/ir/ops/*.cpp "$repo"/ir/layout/*.cpp "$repo"/ir/support/*.cpp \
               "$repo"/ir/targets/*.cpp "$repo"/tests/fuzz/ir_parser_fuzz.cpp; do
      compile "$src"
    done
    libs=(-lfmt)
    mapfile -t seeds < <(cd "$repo" && git ls-files '*.ir' | sed "s|^|$repo/|")
    max_len=8192
    ;;
  *) echo "unknown fuzz target '$target' (frontend, ir-parser)" >&2; exit 2 ;;
esac
clang++-15 -fsanitize=fuzzer,address,undefined "${objs[@]}" -o "$work/fuzz" "${libs[@]}"
i=0
for f in "${seeds[@]}"; do cp "$f" "$work/corpus/seed$((i++))-$(basename "$f")"; done  # names repeat across folders
# Replay every crash ever found first (kept as regression inputs), then fuzz.
regressions=$repo/tests/fuzz/regressions/$target
if compgen -G "$regressions/*" >/dev/null; then "$work/fuzz" -runs=0 "$regressions"/*; fi
exec "$work/fuzz" -runs="$runs" -seed="$seed" -max_total_time=900 -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 "$work/corpus"
