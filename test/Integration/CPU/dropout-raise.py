# Frontend dropout raised with allow-rng-change, compiled for the CPU: the
# raised program computes exactly Sinter's Philox dropout keyed by the
# frontend's seed (the float64 references of refs.py), and the frontend's own
# program (compiled without fusion) is a dropout of the same rate and scale
# with other bits.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK: frontend dropout_residual: rate ok
# CHECK: raised dropout_residual: ok
# CHECK: raised attention dropout: ok
# CHECK: ALL PASSED

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402

gen = refs.rng("dropout-raise")
M, N, P = 33, 129, 0.1

# dropout(x, 0.1) + residual: a 24-bit multiplicative hash of the row-major
# index and the seed mapped onto [0, 1), `u < 0.9`, uitofp, `mask * x`,
# `/ 0.9`, `+ r`, one generic per op.
DROPOUT_RESIDUAL = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dropout_residual(%x: tensor<33x129xf32>, %r: tensor<33x129xf32>,
                            %seed: i64) -> tensor<33x129xf32> {
  %e = tensor.empty() : tensor<33x129xf32>
  %u = linalg.generic {indexing_maps = [#id],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %n = arith.constant 129 : i64
    %row = arith.muli %a, %n : i64
    %ctr = arith.addi %row, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k : i64
    %sh = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %sh : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<33x129xf32>
  %e1 = tensor.empty() : tensor<33x129xi1>
  %keep = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<33x129xf32>) outs(%e1 : tensor<33x129xi1>) {
  ^bb0(%uv: f32, %o: i1):
    %q = arith.constant 0.9 : f32
    %c = arith.cmpf olt, %uv, %q : f32
    linalg.yield %c : i1
  } -> tensor<33x129xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%keep : tensor<33x129xi1>) outs(%e : tensor<33x129xf32>) {
  ^bb0(%k: i1, %o: f32):
    %m = arith.uitofp %k : i1 to f32
    linalg.yield %m : f32
  } -> tensor<33x129xf32>
  %xm = linalg.generic {indexing_maps = [#id, #id, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%mask, %x : tensor<33x129xf32>, tensor<33x129xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%m: f32, %xv: f32, %o: f32):
    %p = arith.mulf %m, %xv : f32
    linalg.yield %p : f32
  } -> tensor<33x129xf32>
  %d = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xm : tensor<33x129xf32>) outs(%e : tensor<33x129xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.constant 0.9 : f32
    %w = arith.divf %v, %q : f32
    linalg.yield %w : f32
  } -> tensor<33x129xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%d, %r : tensor<33x129xf32>, tensor<33x129xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<33x129xf32>
  return %y : tensor<33x129xf32>
}
"""


def raise_dropout(ir):
    """The fusion pipeline with allow-rng-change, as text."""
    out = subprocess.run(
        ["sinter-opt", "--sinter-fusion-pipeline=allow-rng-change=true"],
        input=ir, capture_output=True, text=True, check=True).stdout
    assert "sinter.dropout" in out or "dropout_p" in out, out
    return out


x = refs.random(gen, (M, N), np.float32, -3, 3)
r = refs.random(gen, (M, N), np.float32)
seed = 0x1234567890AB
scaled = x / np.float32(1.0 - P)

# The frontend's own generator: a dropout of rate P, scale 1/(1 - P).
y = sinter.compile(DROPOUT_RESIDUAL, fusion=False).run(
    "dropout_residual", x, r, np.int64(seed))
kept = np.isclose(y, scaled + r, rtol=0, atol=1e-6)
dropped = np.isclose(y, r, rtol=0, atol=0)
assert np.all(kept | dropped), "frontend: elements neither kept nor dropped"
rate = 1.0 - kept.mean()
assert abs(rate - P) < 0.02, "frontend drop rate %g" % rate
print("frontend dropout_residual: rate ok")

# Raised: exactly Sinter's Philox dropout keyed by the same seed.
y = sinter.compile(raise_dropout(DROPOUT_RESIDUAL), fusion=False).run(
    "dropout_residual", x, r, np.int64(seed))
keep = refs.dropout_keep((M, N), seed, P)
refs.assert_close("raised dropout_residual",
                  y, np.where(keep, refs.f64(scaled), 0.0) + refs.f64(r),
                  atol=1e-6)

# Attention with dropout on the probabilities (the torch-mlir form of
# test/Transforms/raise-attention-dropout.mlir): sinter.attention's Philox
# dropout with the generator's seed.
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "Transforms",
                       "raise-attention-dropout.mlir")) as f:
    causal = f.read().split("// -----")[0]
q, k, v = (refs.random(gen, (2, 4, 16, 8), np.float32) for _ in range(3))
seed = 42
out = sinter.compile(raise_dropout(causal), fusion=False).run(
    "causal_dropout", q, k, v, np.int64(seed))
want, _ = refs.attention(q, k, v, scale=float(np.float32(0.353553385)),
                         causal=True, dropout_p=P, seed=seed)
refs.assert_close("raised attention dropout", out, want, atol=2e-6)

# The same decision through the Python/C API: sinter.compile's fusion keeps
# the frontend's generator unless allow_rng_change=True.
x = refs.random(gen, (M, N), np.float32, -3, 3)
seed = 977
scaled = x / np.float32(1.0 - P)
keep = refs.dropout_keep((M, N), seed, P)
philox = np.where(keep, refs.f64(scaled), 0.0) + refs.f64(r)
y = sinter.compile(DROPOUT_RESIDUAL, allow_rng_change=True).run(
    "dropout_residual", x, r, np.int64(seed))
refs.assert_close("compile(allow_rng_change=True)", y, philox, atol=1e-6)
y = sinter.compile(DROPOUT_RESIDUAL).run(
    "dropout_residual", x, r, np.int64(seed))
assert not np.allclose(y, philox, atol=1e-6), \
    "compile() without allow_rng_change changed the random bits"
print("compile(): frontend generator kept by default")
print("ALL PASSED")
