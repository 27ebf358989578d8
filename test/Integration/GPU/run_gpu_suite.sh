#!/usr/bin/env bash
# The whole GPU check in two steps: compile here, run on the GPU machine.
#
#   test/Integration/GPU/run_gpu_suite.sh build DIR   # needs sinterc (this repo's build,
#                                                     # or SINTER_BUILD=<build dir>)
#   test/Integration/GPU/run_gpu_suite.sh run DIR     # needs torch, triton, a GPU;
#                                                     # no MLIR, no compiler
#
# `build` compiles every correctness case and every benchmark case of
# gpu_cases.py with `sinterc --target=cuda:$CHIP` (default sm_90a) into DIR,
# and copies libSinterRuntime.so there. `run` executes, from the repository
# root: the correctness checks (each case against a float64 torch reference,
# error <= 2x torch's own same-dtype error; leftover matmuls through
# cuBLASLt), the matmul cases again with SINTER_CUBLASLT=off (their fallback
# kernels), compute-sanitizer memcheck and racecheck on Sinter's kernels
# (library calls off, so the fallback matmul kernels are the ones checked),
# and the benchmarks beside their peers.
# Exits non-zero when a check or a sanitizer fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mode=${1:?usage: run_gpu_suite.sh build|run DIR}
dir=${2:?usage: run_gpu_suite.sh build|run DIR}
chip=${CHIP:-sm_90a}
# The build to take sinterc and libSinterRuntime.so from (default: build/).
build=${SINTER_BUILD:-$root/build}
sinterc=${SINTERC:-$build/bin/sinterc}

case "$mode" in
build)
  mkdir -p "$dir/lib"
  cp "$build/lib/libSinterRuntime.so" "$dir/lib/"
  for what in build:check build-bench:bench build-bench-attention:attention; do
    python3 "$here/gpu_checks.py" "${what%%:*}" "$dir/${what##*:}" \
      --chip "$chip" --compiler "$sinterc"
  done
  ;;
run)
  export SINTER_LIB_DIR="$dir/lib"
  # Sinter's kernels only (the torch reference kernels are not ours).
  # racecheck looks for shared-memory hazards, so it watches the kernels
  # that use shared memory (the serial reduce_ kernels have none). Under the
  # sanitizers the cases run Sinter's kernels only (--kernels-only): with
  # CUDA 13.0's racecheck, torch's own cuBLAS reference matmuls die with an
  # internal "failed to handle a hardware exception" even when no kernel is
  # selected for checking (seen 2026-11-29); correctness is the plain run's.
  memcheck=() racecheck=()
  for k in rms_norm_ layer_norm_ softmax_ fused_ adamw_ attention_ matmul_ \
           generic_ reduce_ extract_slice_; do
    memcheck+=(--kernel-name "kns=$k")
  done
  for k in rms_norm_ layer_norm_ softmax_ adamw_ attention_ matmul_; do
    racecheck+=(--kernel-name "kns=$k")
  done
  status=0
  python3 "$here/gpu_checks.py" check "$dir/check" || status=1
  # Without cuBLASLt, library calls run the kernels recorded as their
  # fallbacks: the same cases must pass that way too.
  SINTER_CUBLASLT=off python3 "$here/gpu_checks.py" check "$dir/check" \
    --only 'matmul|gpt_block|unfused_mlp' || status=1
  for tool in memcheck racecheck; do
    log=$(mktemp)
    declare -n filters=$tool
    SINTER_CUBLASLT=off compute-sanitizer --tool "$tool" "${filters[@]}" \
      --error-exitcode 99 python3 "$here/gpu_checks.py" check "$dir/check" \
      --kernels-only \
      >"$log" 2>&1 || { echo "compute-sanitizer $tool FAILED"; tail -40 "$log"; status=1; }
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | sed "s/^/$tool: /" || true
    rm -f "$log"
    unset -n filters
  done
  python3 "$root/bench/bench_membound.py" "$dir/bench" \
    --json "${OUT:-$root/bench/results}/membound.json" \
    --png "${OUT:-$root/bench/results}/membound.png"
  python3 "$root/bench/bench_attention.py" "$dir/attention" \
    --json "${OUT:-$root/bench/results}/attention.json"
  exit $status
  ;;
*)
  echo "usage: run_gpu_suite.sh build|run DIR" >&2
  exit 2
  ;;
esac
