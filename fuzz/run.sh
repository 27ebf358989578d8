#!/usr/bin/env bash
# Part of the Sinter project.
# Runs both fuzz targets of <build> (a SINTER_FUZZ build) for <seconds> each:
#   [FUZZ_SEED=n] [FUZZ_MAX_LEN=bytes] [FUZZ_JOBS=n] \
#     [FUZZ_TARGETS="compiler manifest"] \
#     fuzz/run.sh <build> <seconds>
# Seeds come from the repository (seed_corpus.py); what the fuzzers learn
# accumulates in <build>/fuzz-corpus/<target> across runs; a crashing input
# is written to <build>/fuzz-crashes/ and fails the run. Prints, per target,
# the inputs run and the crashes found.
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
python3 "$repo/fuzz/seed_corpus.py" "$repo" "$build/fuzz-seeds" || exit 1
mkdir -p "$build/fuzz-crashes"
status=0
for target in ${FUZZ_TARGETS:-compiler manifest}; do
  corpus="$build/fuzz-corpus/$target"
  mkdir -p "$corpus"
  log="$build/fuzz-$target.log"
  extra=()
  [ "$target" = compiler ] && extra=(-dict="$repo/fuzz/mlir.dict")
  # FUZZ_SEED: libFuzzer's random seed (default: from the clock).
  [ -n "${FUZZ_SEED:-}" ] && extra+=(-seed="$FUZZ_SEED")
  # FUZZ_JOBS: that many fuzzing processes (libFuzzer's -fork).
  [ -n "${FUZZ_JOBS:-}" ] && extra+=(-fork="$FUZZ_JOBS")
  # One input at a time on one core; inputs up to FUZZ_MAX_LEN bytes (64 KiB,
  # the seeds' bound), 30 s per input before it counts as a hang.
  start=$SECONDS
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$build/bin/sinter-$target-fuzzer" "${extra[@]}" \
      -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-65536}" -timeout=30 \
      -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz-crashes/$target-" \
      "$corpus" "$build/fuzz-seeds/$target" > "$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - start))
  runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  # (-fork prints no stat:: lines: its last status line counts the runs.)
  [ -z "$runs" ] && runs=$(grep -ao '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  crashes=$(ls "$build/fuzz-crashes" | grep -c "^$target-" || true)
  echo "fuzz $target: ${runs:-?} inputs in ${elapsed} s (limit ${seconds} s), corpus $(ls "$corpus" | wc -l), crashing inputs in fuzz-crashes/: $crashes (exit $rc, log $log)"
  if [ "$rc" != 0 ]; then
    status=1
    grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$log" | head -20
  fi
done
exit $status
