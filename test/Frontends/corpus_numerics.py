# RUN: %python %s %S/Inputs --shard 1/3
# REQUIRES: numpy
#
# Shards 2 and 3 are corpus-numerics-2.test and corpus-numerics-3.test, so
# that lit spreads the corpus over its workers.
#
# Every file of the real-frontend corpus, compiled for the CPU with and
# without fusion, computes the same thing on the same random inputs: the
# fused program (sinter.attention, norms, softmax, AdamW, elementwise chains)
# against the unfused one (the same IR through upstream linalg only). The
# tolerance is the element type's: what reassociating f32 (or bf16) sums
# may change, relative to the output's magnitude.
#
#   python3 test/Frontends/corpus_numerics.py test/Frontends/Inputs [--only X]

import argparse
import glob
import os
import subprocess
import sys
import time

import numpy as np

import sinter
from sinter.runtime import numpy_dtype

SEED = int(os.environ.get("SINTER_TEST_SEED", "0"))
# Relative to max |unfused output|; bf16 rounds intermediates at 2^-8.
TOLERANCE = {"float32": 2e-4, "float64": 1e-9, "bfloat16": 4e-2,
             "float16": 4e-3}


def make_inputs(fn, rng):
    """Random inputs: floats (see below; |x| + 1 for 0-d step counts), int64
    values in [0, 2) (token ids, and buffers such as BERT's token types,
    which index tables of two rows), and an i64 attention mask of ones whose
    last row is padding after 20 positions when several int64 arguments are
    present (the mask comes last)."""
    ints = [a for a in fn.inputs if numpy_dtype(a.dtype_name).kind == "i"]
    out = []
    for a in fn.inputs:
        dt = numpy_dtype(a.dtype_name)
        if dt.kind == "i":
            if len(ints) > 1 and a is ints[-1]:
                m = np.ones(a.shape, dtype=dt)
                m[-1, 20:] = 0
                out.append(m)
            else:
                out.append(rng.integers(0, 2, size=a.shape).astype(dt))
        elif dt.kind == "b":
            out.append(rng.random(a.shape) < 0.8)
        else:
            # Matrices (projections, embeddings) at HF's init scale, vectors
            # (norm weights) near one, activations ~N(0, 1): the scales at
            # which a model's softmaxes are neither flat nor saturated.
            x = rng.standard_normal(a.shape).astype(np.float32)
            if len(a.shape) == 2:
                x *= 0.02
            elif len(a.shape) == 1:
                x = 1 + 0.1 * x
            elif a.shape == ():
                x = np.abs(x) + 1
            out.append(x.astype(dt))
    return out


def compare(name, fused, unfused, out_spec):
    worst = 0.0
    for i, (f, u, a) in enumerate(zip(fused, unfused, out_spec)):
        f64, u64 = f.astype(np.float64), u.astype(np.float64)
        if not np.isfinite(u64).all():
            both = np.isnan(f64) == np.isnan(u64)
            if not both.all():
                return "%s: output %d: NaNs differ" % (name, i)
            f64, u64 = np.nan_to_num(f64), np.nan_to_num(u64)
        scale = max(1.0, float(np.abs(u64).max()))
        err = float(np.abs(f64 - u64).max()) / scale
        tol = TOLERANCE.get(a.dtype_name, 0.0)
        worst = max(worst, err / tol if tol else err)
        if err > tol:
            return "%s: output %d (%s): max error %.3g > %.3g" % (
                name, i, a.dtype_name, err, tol)
    return None


def as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def twin_rule(name, fused, unfused, twin_path, args):
    """The FlashAttention rule for a bf16 model with an f32 twin (the same
    model exported in f32): on the same (bf16-valued) inputs, the fused
    program's error against the f32 twin is at most twice the unfused
    program's, plus a bf16 rounding of slack."""
    twin = sinter.compile(open(twin_path).read(), target="cpu", fusion=False,
                          cpu_opt_level=0)
    wide = [x.astype(np.float32) if x.dtype.kind == "V" or
            str(x.dtype) == "bfloat16" else x for x in args]
    ref = as_tuple(twin.run("forward", *wide))
    for i, (f, u, r) in enumerate(zip(fused, unfused, ref)):
        r64 = r.astype(np.float64)
        scale = max(1.0, float(np.abs(r64).max()))
        ef = float(np.abs(f.astype(np.float64) - r64).max()) / scale
        eu = float(np.abs(u.astype(np.float64) - r64).max()) / scale
        if ef > 2 * eu + 2 ** -8:
            return ("%s: output %d: error %.3g against the f32 twin, more than "
                    "twice the unfused program's %.3g" % (name, i, ef, eu))
    return None


def check(path, rng):
    text = open(path).read()
    name = os.path.basename(path)
    t0 = time.time()
    fused = sinter.compile(text, target="cpu", fusion=True)
    # The reference at LLVM's -O0: a whole unfused model compiles ~10x
    # faster, and the same loops compute the same values.
    unfused = sinter.compile(text, target="cpu", fusion=False,
                             cpu_opt_level=0)
    fn = fused["forward"]
    args = make_inputs(fn, rng)
    a = as_tuple(fused.run("forward", *args))
    b = as_tuple(unfused.run("forward", *args))
    twin = path.replace("_bf16", "_f32")
    if twin != path and os.path.exists(twin):
        err = twin_rule(name, a, b, twin, args)
    else:
        err = compare(name, a, b, fn.outputs)
    print("%-40s %s (%.1f s)" % (name, "FAIL " + err if err else "ok",
                                  time.time() - t0), flush=True)
    return err


def shard(files, spec):
    """The K-th of N shards ("K/N") of `files`: dealt out largest first,
    so that the shards take about as long (compile time grows with the
    IR's size)."""
    k, n = (int(x) for x in spec.split("/"))
    if not 1 <= k <= n:
        raise SystemExit("--shard wants K/N with 1 <= K <= N, not %s" % spec)
    by_size = sorted(files, key=lambda f: (-os.path.getsize(f), f))
    return sorted(by_size[k - 1::n])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--single", action="store_true",
                    help="check the first matching file in this process")
    ap.add_argument("--shard", default="1/1", metavar="K/N",
                    help="check the K-th of N shards of similar size")
    opts = ap.parse_args()
    rng = np.random.default_rng(SEED)
    files = sorted(glob.glob(os.path.join(opts.inputs, "*.mlir")))
    files = [f for f in files
             if not opts.only or any(o == os.path.basename(f) or
                                     (not opts.single and
                                      o in os.path.basename(f))
                                     for o in opts.only)]
    if opts.single:
        return 1 if check(files[0], rng) else 0
    files = shard(files, opts.shard)
    # One process per file: a failed run-time check (cf.assert) aborts.
    failures = []
    for f in files:
        r = subprocess.run([sys.executable, __file__, opts.inputs, "--single",
                            "--only", os.path.basename(f)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        sys.stdout.write(r.stdout)
        if r.returncode:
            failures.append("%s: exit %d" % (os.path.basename(f), r.returncode))
    for e in failures:
        print("FAIL:", e)
    print("%d files, %d failures" % (len(files), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
