#!/usr/bin/env bash
# Part of the Sinter project.
#
# The main job (`make run`): fuses the bundled GPT-2 block with sinter-opt,
# shows the fused IR and the fusion report, then compiles and runs the block
# on the CPU (fused and unfused) through the Python package and checks it
# against a float64 numpy reference; on a machine with a GPU and torch it
# also runs the CUDA build.
#
#   examples/run.sh [BUILD_DIR]      (default: build; relative to the repo)

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
case "$build" in
  /*) ;;
  *) build="$repo/$build" ;;
esac
if [ ! -x "$build/bin/sinter-opt" ]; then
  echo "run.sh: $build/bin/sinter-opt not found; build first (make build)" >&2
  exit 1
fi
python="${PYTHON:-python3}"
# The float64 reference's small matmuls run far slower with OpenBLAS spinning
# threads on a busy machine than on one thread; keep its timing meaningful.
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
example="$repo/examples/gpt_block.mlir"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sinter-run.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "=============================================================================="
echo " Sinter: operator fusion for transformer blocks -- the bundled example"
echo " input : examples/gpt_block.mlir (one GPT-2 block, B=2 T=64 C=128, 4 heads, f32)"
echo " build : $build"
echo "=============================================================================="
echo
echo "== 1. Fusion: sinter-opt --sinter-fusion-pipeline =============================="
echo "\$ sinter-opt examples/gpt_block.mlir --sinter-fusion-pipeline \\"
echo "      --sinter-fusion-report=report.json      (remarks -> fusion-remarks.log)"
if ! "$build/bin/sinter-opt" "$example" --sinter-fusion-pipeline \
    "--sinter-fusion-report=$tmp/report.json" \
    >"$tmp/fused.mlir" 2>"$tmp/fusion-remarks.log"; then
  echo "run.sh: sinter-opt failed:" >&2
  cat "$tmp/fusion-remarks.log" >&2
  exit 1
fi
echo "($(grep -c ': remark:' "$tmp/fusion-remarks.log" || true) remarks written to the log)"
echo
echo "-- fused IR ------------------------------------------------------------------"
cat "$tmp/fused.mlir"
echo

# Report summary, census, CPU runs, CUDA section.
PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}" \
SINTER_LIB_DIR="$build/lib" \
  "$python" "$repo/examples/run_example.py" \
    --build-dir "$build" --example "$example" \
    --report "$tmp/report.json" --fused-ir "$tmp/fused.mlir" \
    --tmp "$tmp"
