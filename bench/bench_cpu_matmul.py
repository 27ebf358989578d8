#!/usr/bin/env python3
# Part of the Sinter project.
"""An unfused f32 linalg.matmul on the CPU backend beside numpy.

    python3 bench/bench_cpu_matmul.py [M K N]

Sinter's CPU backend lowers leftover matmuls to loops (after
sinter-cpu-interchange-reductions, so that LLVM vectorizes them); numpy
calls its BLAS. Prints the best of 5 runs, GFLOP/s, and the error against
a float64 product.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import sinter  # noqa: E402


def best(fn, runs=5):
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    M, K, N = (int(x) for x in sys.argv[1:4]) if len(sys.argv) == 4 \
        else (256, 768, 2304)
    a_t, b_t, c_t = ("tensor<%dx%dxf32>" % s for s in ((M, K), (K, N), (M, N)))
    ir = """func.func @mm(%%a: %s, %%b: %s) -> %s {
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty() : %s
  %%f = linalg.fill ins(%%z : f32) outs(%%e : %s) -> %s
  %%r = linalg.matmul ins(%%a, %%b : %s, %s) outs(%%f : %s) -> %s
  return %%r : %s
}""" % (a_t, b_t, c_t, c_t, c_t, c_t, a_t, b_t, c_t, c_t, c_t)
    prog = sinter.compile(ir, fusion=False)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    y = prog.run("mm", a, b)
    err = np.abs(y - ref).max() / np.abs(ref).max()
    flop = 2.0 * M * K * N
    print("matmul %dx%dx%d f32, %d CPU cores, %s" % (
        M, K, N, os.cpu_count(), time.strftime("%Y-%m-%d")))
    for label, fn in (("sinter (cpu)", lambda: prog.run("mm", a, b)),
                      ("numpy f32 (BLAS)", lambda: a @ b),
                      ("numpy f64 (BLAS)",
                       lambda: a.astype(np.float64) @ b.astype(np.float64))):
        t = best(fn)
        print("  %-18s %8.1f ms %7.1f GFLOP/s" % (label, 1e3 * t,
                                                  flop / t / 1e9))
    print("  sinter max error vs float64: %.2e (relative to max |ref|)" % err)


if __name__ == "__main__":
    main()
