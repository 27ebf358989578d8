# sinter.adamw and sinter.fused (bias + GELU tanh/erf, dropout + residual)
# on the CPU against independent float64 references. Dropout is checked
# exactly against a numpy Philox4x32-10, statistically for its rate, and
# for reproducibility by seed.
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

gen = refs.rng("adamw-fused")
T = refs.tensor_type
F16, BF16 = np.float16, refs.BF16

# --------------------------------------------------------------------------
# AdamW: several tensors of different shapes in one op.
# --------------------------------------------------------------------------


def run_adamw(name, shapes, dtype, beta1=0.9, beta2=0.999, eps=1e-8,
              weight_decay=0.01):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    types = [T(s, dtype) for s in shapes]
    n = len(shapes)
    lists = {}
    args = []
    for group in ("p", "g", "m", "v"):
        lists[group] = ["%%%s%d" % (group, i) for i in range(n)]
        args += ["%s: %s" % (v, t) for v, t in zip(lists[group], types)]
    args += ["%lr: f32", "%step: f32"]
    results = ["%%r%d" % i for i in range(3 * n)]
    rtypes = types * 3

    def operand_list(group):
        return "%s : %s" % (", ".join(lists[group]), ", ".join(types))

    prog = refs.compile_ops("""
func.func @adamw({args}) -> ({rtypes}) {{
  {results} = sinter.adamw params({p}) grads({g}) exp_avgs({m})
      exp_avg_sqs({v}) lr(%lr) step(%step)
      {{beta1 = {b1} : f64, beta2 = {b2} : f64, eps = {eps} : f64,
       weight_decay = {wd} : f64}}
  return {results} : {rtypes}
}}
""".format(args=", ".join(args), rtypes=", ".join(rtypes),
           results=", ".join(results), p=operand_list("p"),
           g=operand_list("g"), m=operand_list("m"), v=operand_list("v"),
           b1=refs.flt(beta1), b2=refs.flt(beta2), eps=refs.flt(eps),
           wd=refs.flt(weight_decay)))
    ps = [refs.random(gen, s, dtype) for s in shapes]
    gs = [refs.random(gen, s, dtype, -0.1, 0.1) for s in shapes]
    ms = [refs.random(gen, s, dtype, -0.01, 0.01) for s in shapes]
    vs = [refs.random(gen, s, dtype, 0.0, 1e-4) for s in shapes]
    lr, step = 1e-3, 7.0
    got = prog.run("adamw", *(ps + gs + ms + vs), np.float32(lr),
                   np.float32(step))
    for i in range(n):
        want_p, want_m, want_v = refs.adamw(
            ps[i], gs[i], ms[i], vs[i], float(np.float32(lr)), step, beta1,
            beta2, eps, weight_decay)
        # f32 arithmetic: a few ulps of the terms of each update (the
        # moment updates cancel, so the bound is absolute in the terms).
        refs.assert_close("%s param %d" % (name, i), got[i], want_p,
                          atol=refs.lowp_tolerance(want_p, dtype, 3e-7),
                          rtol=4e-7)
        refs.assert_close("%s exp_avg %d" % (name, i), got[n + i], want_m,
                          atol=refs.lowp_tolerance(want_m, dtype, 3e-9),
                          rtol=4e-7)
        refs.assert_close("%s exp_avg_sq %d" % (name, i), got[2 * n + i],
                          want_v, atol=refs.lowp_tolerance(want_v, dtype,
                                                           5e-11),
                          rtol=4e-7)


run_adamw("adamw f32", [(1000,), (17, 33), (3, 4, 5)], np.float32)
run_adamw("adamw no-decay", [(257,)], np.float32, beta1=0.8, beta2=0.99,
          eps=1e-6, weight_decay=0.0)
run_adamw("adamw bf16", [(64, 65)], BF16)

# --------------------------------------------------------------------------
# sinter.fused: bias + GELU (tanh and erf forms).
# --------------------------------------------------------------------------

GELU_BODY = {
    "tanh": """
    %c = arith.constant 0.7978845608028654 : f32
    %k = arith.constant 0.044715 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x2 = arith.mulf %s, %s : f32
    %x3 = arith.mulf %x2, %s : f32
    %t0 = arith.mulf %k, %x3 : f32
    %t1 = arith.addf %s, %t0 : f32
    %t2 = arith.mulf %c, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %one, %t3 : f32
    %t5 = arith.mulf %half, %s : f32
    %g = arith.mulf %t5, %t4 : f32""",
    "erf": """
    %rsqrt2 = arith.constant 0.7071067811865476 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t0 = arith.mulf %s, %rsqrt2 : f32
    %t1 = math.erf %t0 : f32
    %t2 = arith.addf %one, %t1 : f32
    %t3 = arith.mulf %half, %s : f32
    %g = arith.mulf %t3, %t2 : f32""",
}


def run_bias_gelu(kind, M, N, dtype):
    if dtype is None:
        print("bias_gelu %s: skipped (no ml_dtypes)" % kind)
        return
    ty = refs.mlir_type(dtype)
    tx, tb = T((M, N), dtype), T((N,), dtype)
    ext = ("%%a = arith.extf %%xv : %s to f32\n    %%b = arith.extf %%bv : "
           "%s to f32" % (ty, ty)) if ty != "f32" else \
        "%a = arith.addf %xv, %zero : f32\n    %b = arith.addf %bv, %zero : f32"
    trunc = ("%%r = arith.truncf %%g : f32 to %s" % ty) if ty != "f32" else \
        "%r = arith.addf %g, %zero : f32"
    prog = refs.compile_ops("""
func.func @bias_gelu(%x: {tx}, %bias: {tb}) -> {tx} {{
  %y = sinter.fused ins(%x, %bias : {tx}, {tb})
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {{
  ^bb0(%xv: {ty}, %bv: {ty}):
    %zero = arith.constant 0.0 : f32
    {ext}
    %s = arith.addf %a, %b : f32{body}
    {trunc}
    sinter.yield %r : {ty}
  }} -> {tx}
  return %y : {tx}
}}
""".format(tx=tx, tb=tb, ty=ty, ext=ext, body=GELU_BODY[kind], trunc=trunc))
    x = refs.random(gen, (M, N), dtype, -4, 4)
    b = refs.random(gen, (N,), dtype)
    got = prog.run("bias_gelu", x, b)
    s = refs.f64(x) + refs.f64(b)
    want = refs.gelu_tanh(s) if kind == "tanh" else refs.gelu_erf(s)
    name = "bias_gelu %s %s" % (kind, np.dtype(dtype).name)
    refs.assert_close(name, got, want,
                      atol=refs.lowp_tolerance(want, dtype, 2e-6))


run_bias_gelu("tanh", 17, 257, np.float32)
run_bias_gelu("erf", 113, 64, np.float32)
run_bias_gelu("tanh", 16, 128, BF16)
run_bias_gelu("erf", 33, 127, F16)

# --------------------------------------------------------------------------
# sinter.fused: dropout + residual.
# --------------------------------------------------------------------------


def dropout_program(shape, dtype, p):
    ty = refs.mlir_type(dtype)
    tx = T(shape, dtype)
    rank = len(shape)
    dims = ", ".join("d%d" % i for i in range(rank))
    ident = "affine_map<(%s) -> (%s)>" % (dims, dims)
    scalar = "affine_map<(%s) -> ()>" % dims
    return refs.compile_ops("""
func.func @dropout_residual(%x: {tx}, %res: {tx}, %seed: i64) -> {tx} {{
  %y = sinter.fused ins(%x, %res, %seed : {tx}, {tx}, i64)
      maps [{ident}, {ident}, {scalar}] {{
  ^bb0(%xv: {ty}, %rv: {ty}, %s: i64):
    %d = sinter.dropout %xv, %s p = {p} : {ty}
    %r = arith.addf %d, %rv : {ty}
    sinter.yield %r : {ty}
  }} -> {tx}
  return %y : {tx}
}}
""".format(tx=tx, ty=ty, ident=ident, scalar=scalar, p=refs.flt(p)))


# Exact: the kept set is the Philox mask of the contract.
for shape, dtype, p in [((37, 129), np.float32, 0.1),
                        ((4, 8, 33), np.float32, 0.5),
                        ((64, 64), F16, 0.2)]:
    prog = dropout_program(shape, dtype, p)
    x = refs.random(gen, shape, dtype, 0.5, 1.5)  # never 0: drops are visible
    res = refs.random(gen, shape, dtype)
    seed = int(gen.integers(0, 2 ** 63))
    got = prog.run("dropout_residual", x, res, seed)
    keep = refs.dropout_keep(shape, seed, p)
    kept_x = refs.f64(x) / (1.0 - p) if dtype == np.float32 else \
        refs.f64(np.asarray(refs.f64(x) / (1.0 - p)).astype(dtype))
    want = np.where(keep, kept_x, 0.0) + refs.f64(res)
    name = "dropout exact %s p=%g %s" % (shape, p, np.dtype(dtype).name)
    refs.assert_close(name, got, want,
                      atol=refs.lowp_tolerance(want, dtype, 1e-6))
    got_keep = np.abs(refs.f64(got) - refs.f64(res)) > 0.25
    assert np.array_equal(got_keep, keep), "%s: mask differs" % name
    # Reproducible by seed, different across seeds.
    assert np.array_equal(got, prog.run("dropout_residual", x, res, seed))
    assert not np.array_equal(got, prog.run("dropout_residual", x, res,
                                            seed ^ 1))
    print("%s reproducible: ok" % name)

# Statistical: the drop rate over 2^16 elements is p within 5 sigma.
shape, p = (256, 256), 0.3
prog = dropout_program(shape, np.float32, p)
ones = np.ones(shape, np.float32)
zeros = np.zeros(shape, np.float32)
for seed in (0, 1, 2 ** 40 + 3):
    got = prog.run("dropout_residual", ones, zeros, seed)
    kept = got != 0
    assert np.allclose(got[kept], 1.0 / (1.0 - p), rtol=1e-6)
    rate = 1.0 - kept.mean()
    sigma = np.sqrt(p * (1 - p) / kept.size)
    assert abs(rate - p) < 5 * sigma, (seed, rate, p, sigma)
    print("dropout rate seed %d: %.4f (p=%g): ok" % (seed, rate, p))

print("ALL PASSED")
