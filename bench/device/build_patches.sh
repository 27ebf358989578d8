#!/bin/bash
# Part of the Sinter project.
# Builds, here, the device call that times bench/patches/*.patch against
# main (bench/NOTES.md, session 17), into DIR (default .gpu):
#   DIR/normvar/<case>_0main            main's norm backward cases
#   DIR/blocks, DIR/fwd                 main's D64 attention backward probe
#                                       and forward cases
#   then, with every patch applied (the compiler rebuilt):
#   DIR/normvar/<case>_{auto,c2,c3,c4,rv1}   the patched norm backward, as
#                                       chosen and at 2/3/4 blocks per SM
#                                       and with one vector a thread
#   DIR/blocks_lpt, DIR/fwd_lpt         the same probes, patched
#   DIR/checks                          the GPU checks CHECKS selects
#                                       (default norm_backward|causal)
#   DIR/cache, DIR/lib                  the hook programs and the runtime
# and reverts the patches (the compiler is rebuilt as main's). The call:
#   ONLY=causal bash bench/device/run.sh checks:90 blocks:45 \
#     blocks=blocks_lpt:45 normvar:60 fwd:45 fwd=fwd_lpt:45 export:150
# Usage: bench/device/build_patches.sh [DIR]; env: BUILD, CHECKS, VENV.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$ROOT/.gpu}
BUILD=${BUILD:-$ROOT/build}
export CHECKS=${CHECKS:-"norm_backward|causal"}
export PATH=$BUILD/bin:$PATH
cd "$ROOT"
PATCHES=$(ls bench/patches/*.patch)
if ! git diff --quiet -- lib test docs; then
  echo "build_patches.sh: lib, test or docs has uncommitted changes" >&2
  exit 2
fi
trap 'git apply -R $PATCHES 2>/dev/null || true' EXIT

norm_variants() { # TAG [sinterc option]
  python3 bench/bench_norm_backward.py build "$DIR/normvar" --tag "$1" \
    ${2:+--option="$2"} >/dev/null
}

rm -rf "$DIR/normvar" "$DIR/blocks" "$DIR/blocks_lpt" "$DIR/fwd_lpt"
cmake --build "$BUILD" --target sinterc
norm_variants 0main
STEPS="blocks fwd cache" bash bench/device/build.sh "$DIR"

git apply $PATCHES
cmake --build "$BUILD" --target sinterc
norm_variants auto
for n in 2 3 4; do norm_variants c$n --cuda-persistent-ctas=$n; done
norm_variants rv1 --cuda-row-vectors=1
python3 bench/probe_blocks_per_sm.py build "$DIR/blocks_lpt" | grep -v "^sinterc"
python3 test/Integration/GPU/gpu_checks.py build-bench-attention "$DIR/fwd_lpt" >/dev/null
STEPS="checks" bash bench/device/build.sh "$DIR"

git apply -R $PATCHES
trap - EXIT
cmake --build "$BUILD" --target sinterc
du -sh "$DIR"
