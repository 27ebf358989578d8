# sinter.softmax, sinter.layer_norm and sinter.rms_norm on the CPU against
# independent float64 references (f32/f16/bf16 storage, ragged sizes,
# optional masks, weights, biases and statistics results; norms of f32
# inputs written in bf16 or f16, rounded once).
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: ALL PASSED

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402

gen = refs.rng("norms")
T = refs.tensor_type
F16, BF16 = np.float16, refs.BF16


def run_softmax(name, shape, dim, dtype, scale=None, mask_shape=None,
                neg_inf_rows=False):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    tx = T(shape, dtype)
    args, operands = ["%x: " + tx], "%x dim " + str(dim)
    if mask_shape:
        tm = T(mask_shape, dtype)
        args.append("%m: " + tm)
        operands += " mask(%%m : %s)" % tm
    attrs = " {scale = %s : f32}" % refs.flt(np.float32(scale)) if scale else ""
    prog = refs.compile_ops("""
func.func @softmax(%s) -> %s {
  %%y = sinter.softmax %s%s : %s
  return %%y : %s
}
""" % (", ".join(args), tx, operands, attrs, tx, tx))
    x = refs.random(gen, shape, dtype, -6, 6)
    if neg_inf_rows:
        x[0] = -np.inf  # a row (along `dim`) with every entry -inf
    inputs = [x]
    m = None
    if mask_shape:
        m = refs.random(gen, mask_shape, dtype, -3, 3)
        inputs.append(m)
    got = prog.run("softmax", *inputs)
    want = refs.softmax(x, dim, 1.0 if scale is None
                        else float(np.float32(scale)), m)
    tol = refs.lowp_tolerance(want, dtype, 2e-6)
    refs.assert_close(name, got, want, atol=tol, rtol=1e-5)


run_softmax("softmax last f32", (7, 257), 1, np.float32)
run_softmax("softmax dim0 f32 scale mask", (113, 9), 0, np.float32,
            scale=0.125, mask_shape=(9,))
run_softmax("softmax 4d f16", (2, 3, 17, 127), 3, F16,
            mask_shape=(1, 1, 17, 127))
run_softmax("softmax bf16", (5, 128), 1, BF16, scale=0.5)
# dim 1 of a (2, 64) input: the row x[0, :] is all -inf -> zeros.
run_softmax("softmax -inf row", (64, 33), 1, np.float32, neg_inf_rows=True)


def run_layer_norm(name, shape, rank, dtype, weight=True, bias=True,
                   stats=True, eps=1e-5, amplitude=None, out_dtype=None):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    out_dtype = out_dtype or dtype
    tx, ty = T(shape, dtype), T(shape, out_dtype)
    norm_shape = shape[len(shape) - rank:]
    lead = shape[:len(shape) - rank]
    tw, ts = T(norm_shape, dtype), T(lead, np.float32)
    args, operands = ["%x: " + tx], "%x"
    if weight:
        args.append("%w: " + tw)
        operands += " weight(%%w : %s)" % tw
    if bias:
        args.append("%b: " + tw)
        operands += " bias(%%b : %s)" % tw
    results = [ty] + ([ts, ts] if stats else [])
    names = "%y, %mean, %rstd" if stats else "%y"
    tail = " mean(%s) rstd(%s)" % (ts, ts) if stats else ""
    prog = refs.compile_ops("""
func.func @ln(%s) -> (%s) {
  %s = sinter.layer_norm %s {epsilon = %s : f32, normalized_rank = %d : i64} : %s -> %s%s
  return %s : %s
}
""" % (", ".join(args), ", ".join(results), names, operands,
       refs.flt(np.float32(eps)), rank, tx, ty, tail, names, ", ".join(results)))
    # amplitude: rows of variance ~amplitude^2/3, where epsilon matters.
    x = (refs.random(gen, shape, dtype, -3, 5) if amplitude is None else
         refs.random(gen, shape, dtype, -amplitude, amplitude))
    w = refs.random(gen, norm_shape, dtype, 0.5, 1.5) if weight else None
    b = refs.random(gen, norm_shape, dtype) if bias else None
    got = prog.run("ln", *[a for a in (x, w, b) if a is not None])
    y, mean, rstd = got if stats else (got, None, None)
    want_y, want_mean, want_rstd = refs.layer_norm(
        x, rank, w, b, float(np.float32(eps)))
    assert y.dtype == out_dtype, (name, y.dtype)
    refs.assert_close(name + " y", y, want_y,
                      atol=refs.lowp_tolerance(want_y, out_dtype, 2e-5))
    if stats:
        refs.assert_close(name + " mean", mean, want_mean, atol=2e-6)
        refs.assert_close(name + " rstd", rstd, want_rstd, atol=0,
                          rtol=2e-5)


run_layer_norm("layer_norm f32", (17, 257), 1, np.float32)
run_layer_norm("layer_norm rank2 f16", (3, 13, 64), 2, F16)
run_layer_norm("layer_norm bf16 no-affine", (113, 128), 1, BF16,
               weight=False, bias=False)
run_layer_norm("layer_norm weight-only no-stats", (4, 127), 1, np.float32,
               bias=False, stats=False, eps=1e-3)
# Rows whose variance (~3e-7) is far below epsilon: rstd is ~1/sqrt(eps),
# about 6x what it would be without epsilon and 1/6 of what
# 1/(sqrt(var) + eps) gives, so a dropped or misplaced epsilon fails.
run_layer_norm("layer_norm f32 small variance", (16, 256), 1, np.float32,
               amplitude=1e-3)
run_layer_norm("layer_norm bf16 small variance", (8, 512), 1, BF16,
               bias=False, amplitude=4e-3, eps=1e-4)
# An f32 residual normalized straight into the bf16 a matmul reads (bf16
# autocast's cast folded into the op), and into f16 without statistics.
run_layer_norm("layer_norm f32 -> bf16", (33, 768), 1, np.float32,
               out_dtype=BF16)
run_layer_norm("layer_norm f32 -> f16", (5, 100), 1, np.float32,
               stats=False, out_dtype=F16)
# A large common offset: a one-pass E[x^2] - E[x]^2 variance fails here.
print("layer_norm offset:", end=" ")
prog = refs.compile_ops("""
func.func @ln(%x: tensor<8x512xf32>) -> tensor<8x512xf32> {
  %y = sinter.layer_norm %x : tensor<8x512xf32> -> tensor<8x512xf32>
  return %y : tensor<8x512xf32>
}
""")
x = (1000.0 + refs.random(gen, (8, 512), np.float32)).astype(np.float32)
refs.assert_close("layer_norm large offset", prog.run("ln", x),
                  refs.layer_norm(x)[0], atol=5e-3)


def run_rms_norm(name, shape, rank, dtype, weight=True, stats=True,
                 eps=1e-6, amplitude=2.0, out_dtype=None):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    out_dtype = out_dtype or dtype
    tx, ty = T(shape, dtype), T(shape, out_dtype)
    norm_shape = shape[len(shape) - rank:]
    tw, ts = T(norm_shape, dtype), T(shape[:len(shape) - rank], np.float32)
    args, operands = ["%x: " + tx], "%x"
    if weight:
        args.append("%w: " + tw)
        operands += " weight(%%w : %s)" % tw
    results = [ty] + ([ts] if stats else [])
    names = "%y, %rstd" if stats else "%y"
    tail = " rstd(%s)" % ts if stats else ""
    prog = refs.compile_ops("""
func.func @rms(%s) -> (%s) {
  %s = sinter.rms_norm %s {epsilon = %s : f32, normalized_rank = %d : i64} : %s -> %s%s
  return %s : %s
}
""" % (", ".join(args), ", ".join(results), names, operands,
       refs.flt(np.float32(eps)), rank, tx, ty, tail, names, ", ".join(results)))
    x = refs.random(gen, shape, dtype, -amplitude, amplitude)
    w = refs.random(gen, norm_shape, dtype, 0.5, 1.5) if weight else None
    got = prog.run("rms", *[a for a in (x, w) if a is not None])
    y, rstd = got if stats else (got, None)
    want_y, want_rstd = refs.rms_norm(x, rank, w, float(np.float32(eps)))
    assert y.dtype == out_dtype, (name, y.dtype)
    refs.assert_close(name + " y", y, want_y,
                      atol=refs.lowp_tolerance(want_y, out_dtype, 2e-5))
    if stats:
        refs.assert_close(name + " rstd", rstd, want_rstd, atol=0,
                          rtol=2e-5)


run_rms_norm("rms_norm f32", (17, 257), 1, np.float32)
run_rms_norm("rms_norm bf16", (9, 4096), 1, BF16)
run_rms_norm("rms_norm rank2 f16 no-weight", (5, 7, 33), 2, F16,
             weight=False)
run_rms_norm("rms_norm no-stats", (1, 127), 1, np.float32, stats=False)
# Mean squares (~3e-7) below epsilon (1e-6): see the layer_norm cases.
run_rms_norm("rms_norm f32 small rows", (16, 256), 1, np.float32,
             amplitude=1e-3)
run_rms_norm("rms_norm f16 small rows", (4, 1024), 1, F16, amplitude=1e-3)
run_rms_norm("rms_norm f32 -> bf16", (9, 4096), 1, np.float32,
             out_dtype=BF16)

print("ALL PASSED")
