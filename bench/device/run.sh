#!/bin/bash
# Part of the Sinter project.
# Runs, on the GPU machine (a device call: `bash bench/device/run.sh ...`
# with `.gpu` carried), what bench/device/build.sh built, one step after
# another, each under its own time limit. Everything goes into one
# tarball, $OUT/results.tgz, rewritten after every step: a device call
# returns at most 8 files from $OUT, and a step that runs out of time
# leaves the earlier ones' results.
# Usage: bash bench/device/run.sh [STEP[=DIR][:SECONDS] ...]; steps:
#   checks    gpu_checks.py over .gpu/checks (the cases built: the expression
#             build.sh kept in .gpu/checks.only)
#   hooks     torch_hooks_gpu.py over .gpu/hooks (AdamW, capturable in a
#             CUDA graph; a GEMM captured on a new stream; attention; a
#             tiny Hugging Face GPT-2 step)
#   race      compute-sanitizer racecheck over .gpu/checks' attention cases
#   bwd       attention backward and forward+backward beside cuDNN and FA2
#   flex      the same with FlexAttention as a peer too (its compile is slow)
#   fwd       attention forward beside the SDPA backends
#             (bwd and fwd: ONLY=regex runs the cases it matches)
#   normbwd   LayerNorm/RMSNorm backward beside torch eager and compile
#   normvar   the norm backward's variants in .gpu/normvar (<case>_<tag>,
#             bench_norm_backward.py build --tag), Sinter alone, vs copy
#   blocks    the D64 attention backward at ptxas' blocks per SM and at 3,
#             beside cuDNN (probe_blocks_per_sm.py)
#   export    bf16 GPT-2 steps that write the partitions the cache lacks
#             (SINTER_TORCH_EXPORT) for `python -m sinter.torch.export`,
#             then replay as a CUDA graph (the graphed path, smoke-tested)
#   algos     every cuBLASLt algorithm for GPT-2's MLP GEMMs, with and
#             without the GELU epilogues, timed (probe_cublaslt_algos.py)
#   step      the GPT-2 step, eager / sinter / inductor and the last two
#             as one CUDA graph (RUNS to choose), 200 steps, with the
#             cache (after the exported partitions were compiled into it);
#             PROFILE=1: each run's kernels after its timed steps
cd "$(dirname "$0")/../.."
G=$PWD/.gpu
export SINTER_LIB_DIR=$G/lib PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
R=/tmp/sinter-results; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.txt
T0=$(date +%s)
# The SM clock and power every half second, for the whole call (does a run
# hold a lower clock than another under the power limit?).
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $R/clocks.csv 2>&1 &
CLOCKS=$!
trap 'kill $CLOCKS 2>/dev/null' EXIT
pack() { tar czf "$OUT/results.tgz" -C $R .; }
for arg in "$@"; do
  step=${arg%%:*}; limit=${arg#*:}; [ "$limit" = "$arg" ] && limit=300
  # STEP=DIR: bwd, fwd and blocks read .gpu/DIR (another build of theirs)
  # and name their results after it.
  dir=$step; case $step in *=*) dir=${step#*=}; step=${step%%=*} ;; esac
  echo "== $step (limit $limit s) at $(( $(date +%s) - T0 )) s"
  case $step in
    checks) timeout $limit python3 test/Integration/GPU/gpu_checks.py check $G/checks --only "$(cat $G/checks.only)" > $R/checks.log 2>&1
            grep -c ^PASS $R/checks.log; grep -E "^FAIL|failures" $R/checks.log | tail -5 ;;
    race) timeout $limit compute-sanitizer --tool racecheck python3 test/Integration/GPU/gpu_checks.py check $G/checks --kernels-only --only "attention.*($(cat $G/checks.only))" > $R/race.log 2>&1
          tail -2 $R/race.log ;;
    hooks) timeout $limit python3 test/Integration/GPU/torch_hooks_gpu.py check $G/hooks > $R/hooks.log 2>&1
           grep -c ^PASS $R/hooks.log; grep -E "^FAIL|Error" $R/hooks.log | tail -5 ;;
    bwd) timeout $limit python3 bench/bench_attention_backward.py run $G/$dir ${ONLY:+--only "$ONLY"} --json $R/$dir.json > $R/$dir.log 2>&1
         grep -v "max err" $R/$dir.log | tail -14 ;;
    flex) timeout $limit python3 bench/bench_attention_backward.py run $G/bwd --flex --json $R/flex.json > $R/flex.log 2>&1
          grep -v "max err" $R/flex.log | tail -20 ;;
    fwd) timeout $limit python3 bench/bench_attention.py $G/$dir ${ONLY:+--only "$ONLY"} --json $R/$dir.json > $R/$dir.log 2>&1
         grep -E "^attention|sinter|cuDNN" $R/$dir.log | tail -30 ;;
    normbwd) timeout $limit python3 bench/bench_norm_backward.py run $G/normbwd --json $R/normbwd.json > $R/normbwd.log 2>&1
             grep -v Warning $R/normbwd.log | tail -12 ;;
    normvar) timeout $limit python3 bench/bench_norm_backward.py variants $G/normvar > $R/normvar.log 2>&1
             grep -v Warning $R/normvar.log | tail -24 ;;
    blocks) timeout $limit python3 bench/probe_blocks_per_sm.py run $G/$dir > $R/$dir.log 2>&1
            tail -8 $R/$dir.log ;;
    algos) (cd bench && timeout $limit python3 probe_cublaslt_algos.py) > $R/algos.log 2>&1
           grep -v "^   #" $R/algos.log | tail -8 ;;
    export) rm -rf /tmp/cache; cp -r $G/cache /tmp/cache
            SINTER_TORCH_IMPORT=0 SINTER_TORCH_EXPORT=$R/export SINTER_CACHE_DIR=/tmp/cache timeout $limit python3 bench/train_gpt2.py run /tmp/cache --runs sinter+graph --steps 6 --autocast bf16 > $R/export.log 2>&1
            tail -2 $R/export.log; ls $R/export ;;
    step) rm -rf /tmp/cache; cp -r $G/cache /tmp/cache
          SINTER_TORCH_IMPORT=0 SINTER_CACHE_DIR=/tmp/cache timeout $limit python3 bench/train_gpt2.py run /tmp/cache --steps 200 --autocast bf16 --runs ${RUNS:-eager,sinter,inductor,sinter+graph,inductor+graph} --json $R/step.json --compile-log $R/step_compile.log ${PROFILE:+--profile} > $R/step.log 2>&1
          tail -9 $R/step.log ;;
    *) echo "run.sh: unknown step '$step'" ;;
  esac
  pack
done
echo "== done at $(( $(date +%s) - T0 )) s"
