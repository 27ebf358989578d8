#!/bin/bash
# Part of the Sinter project.
# Builds, here (the compiler's machine), what bench/device/run.sh measures on
# the GPU machine, into DIR (default .gpu, which git ignores; name it in the
# device call's `carry`):
#   DIR/lib/libSinterRuntime.so      the runtime (the GPU machine has no build)
#   DIR/bwd DIR/fwd DIR/normbwd      attention backward (+ forward+backward),
#                                    forward and norm-backward tables
#   DIR/blocks                       the D64 attention backward's key-tile
#                                    kernel at ptxas' blocks per SM and at 3
#                                    (probe_blocks_per_sm.py)
#   DIR/checks                       the GPU checks whose names match CHECKS
#                                    (a regular expression; default: all),
#                                    the expression in DIR/checks.only
#   DIR/hooks                        torch_hooks_gpu.py's programs (AdamW,
#                                    capturable too; attention; a tiny HF GPT-2)
#   DIR/cache                        sinter.torch's hook programs (AdamW, the
#                                    attention hook) for bench/train_gpt2.py,
#                                    with VENV's python (torch, torch-mlir)
# Usage: bench/device/build.sh [DIR] ; env: BUILD (build dir, default build),
# CHECKS, VENV (default venv), STEPS="bwd fwd normbwd checks hooks cache" (the
# default; "blocks" is built only when named).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$ROOT/.gpu}
BUILD=${BUILD:-$ROOT/build}
VENV=${VENV:-$ROOT/venv}
STEPS=${STEPS:-"bwd fwd normbwd checks hooks cache"}
export PATH=$BUILD/bin:$PATH
mkdir -p "$DIR/lib"
cp "$BUILD/lib/libSinterRuntime.so" "$DIR/lib/"
cd "$ROOT"
for step in $STEPS; do
  t0=$(date +%s)
  case $step in
    bwd) rm -rf "$DIR/bwd"; python3 bench/bench_attention_backward.py build "$DIR/bwd" >/dev/null ;;
    fwd) rm -rf "$DIR/fwd"; python3 test/Integration/GPU/gpu_checks.py build-bench-attention "$DIR/fwd" >/dev/null ;;
    normbwd) rm -rf "$DIR/normbwd"; python3 bench/bench_norm_backward.py build "$DIR/normbwd" >/dev/null ;;
    blocks) rm -rf "$DIR/blocks"; python3 bench/probe_blocks_per_sm.py build "$DIR/blocks" | grep -v "^sinterc" ;;
    checks) rm -rf "$DIR/checks"; python3 test/Integration/GPU/gpu_checks.py build "$DIR/checks" --compiler "$BUILD/bin/sinterc" ${CHECKS:+--only "$CHECKS"} >/dev/null
            echo "${CHECKS:-.}" > "$DIR/checks.only" ;;
    hooks) rm -rf "$DIR/hooks"; SINTER_LIB_DIR=$BUILD/lib PYTHONPATH=$ROOT/python "$VENV/bin/python" test/Integration/GPU/torch_hooks_gpu.py build "$DIR/hooks" >/dev/null ;;
    cache) rm -rf "$DIR/cache"; SINTER_LIB_DIR=$BUILD/lib PYTHONPATH=$ROOT/python "$VENV/bin/python" bench/train_gpt2.py aot "$DIR/cache" --autocast bf16 ;;
    *) echo "build.sh: unknown step '$step'" >&2; exit 2 ;;
  esac
  echo "build.sh: $step in $(( $(date +%s) - t0 )) s"
done
du -sh "$DIR"
