# The backward of sinter.fused chains (buildFusedBackward, through
# sinter-opt's test pass) on the CPU, checked by central finite differences
# of the compiled forward in float64: every arith/math op with a derivative
# rule, broadcast (bias), transposed, (0, d1) and scalar inputs, several
# results with their own gradients, and dropout (the gradient dropped with
# the forward's seed). Then the same chain in bf16 storage against the
# float64 gradients.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: ALL PASSED

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402

gen = refs.rng("fused-backward")

# Inputs: x [R, C], bias [C], t [C, R] (transposed), z [1, C], a scalar, the
# seed. Every rule of FusedBackward.cpp appears once on a path to a result.
CHAIN = """
func.func @chain(%%x: tensor<%(R)dx%(C)dx%(t)s>, %%b: tensor<%(C)dx%(t)s>,
                 %%tr: tensor<%(C)dx%(R)dx%(t)s>, %%z: tensor<1x%(C)dx%(t)s>,
                 %%k: %(w)s, %%seed: i64)
    -> (tensor<%(R)dx%(C)dx%(t)s>, tensor<%(R)dx%(C)dx%(w)s>) {
  %%y:2 = sinter.fused ins(%%x, %%b, %%tr, %%z, %%k, %%seed : tensor<%(R)dx%(C)dx%(t)s>,
      tensor<%(C)dx%(t)s>, tensor<%(C)dx%(R)dx%(t)s>, tensor<1x%(C)dx%(t)s>, %(w)s, i64)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
            affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (0, d1)>,
            affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%%%(xa)s: %(t)s, %%%(ba)s: %(t)s, %%%(ta)s: %(t)s, %%%(za)s: %(t)s, %%kv: %(w)s, %%s: i64):
    @PRELUDE@
    %%one = arith.constant 1.0 : %(w)s
    %%zero = arith.constant 0.0 : %(w)s
    %%a0 = arith.addf %%xv, %%bv : %(w)s
    %%a1 = math.tanh %%a0 : %(w)s
    %%a2 = arith.mulf %%a1, %%tv : %(w)s
    %%e2 = arith.mulf %%zv, %%zv : %(w)s
    %%den = arith.addf %%e2, %%one : %(w)s
    %%a3 = arith.divf %%a2, %%den : %(w)s
    %%a4 = arith.subf %%a3, %%xv : %(w)s
    %%a5 = math.exp %%a4 : %(w)s
    %%a6 = math.log1p %%a5 : %(w)s
    %%sq = arith.mulf %%tv, %%tv : %(w)s
    %%sq1 = arith.addf %%sq, %%one : %(w)s
    %%a7 = math.sqrt %%sq1 : %(w)s
    %%a8 = math.rsqrt %%sq1 : %(w)s
    %%a9 = math.fma %%a7, %%a8, %%a6 : %(w)s
    %%s1 = math.sin %%xv : %(w)s
    %%c1 = math.cos %%bv : %(w)s
    %%e1 = math.erf %%zv : %(w)s
    %%m1 = arith.maximumf %%s1, %%c1 : %(w)s
    %%m2 = arith.minimumf %%m1, %%e1 : %(w)s
    %%ab = math.absf %%a4 : %(w)s
    %%p1 = math.powf %%sq1, %%kv : %(w)s
    %%c3 = arith.constant 3 : i32
    %%p2 = math.fpowi %%a1, %%c3 : %(w)s, i32
    %%neg = arith.negf %%p2 : %(w)s
    %%cmp = arith.cmpf ogt, %%xv, %%bv : %(w)s
    %%sel = arith.select %%cmp, %%m2, %%neg : %(w)s
    %%em = math.expm1 %%sel : %(w)s
    %%l2 = math.log %%sq1 : %(w)s
    %%r0 = arith.addf %%a9, %%em : %(w)s
    %%r1 = arith.addf %%r0, %%ab : %(w)s
    %%r2 = arith.addf %%r1, %%p1 : %(w)s
    %%r3 = arith.mulf %%r2, %%l2 : %(w)s
    %%d = sinter.dropout %%r3, %%s p = 0.25 : %(w)s
    @OUT0@
    %%out1 = arith.mulf %%a1, %%kv : %(w)s
    sinter.yield %%out0, %%out1 : %(t)s, %(w)s
  } -> tensor<%(R)dx%(C)dx%(t)s>, tensor<%(R)dx%(C)dx%(w)s>
  return %%y#0, %%y#1 : tensor<%(R)dx%(C)dx%(t)s>, tensor<%(R)dx%(C)dx%(w)s>
}
"""


def chain_ir(R, C, t, w):
    """The chain with storage type `t` and arithmetic type `w`: block
    arguments extended to `w` (named as the values when t == w), out0
    rounded back to `t`."""
    same = t == w
    names = {}
    prelude = []
    for v in ("x", "b", "t", "z"):
        names[v + "a"] = v + ("v" if same else "s")
        if not same:
            prelude.append("    %%%sv = arith.extf %%%ss : %s to %s"
                           % (v, v, t, w))
    if same:
        out = "    %out0 = arith.addf %d, %zero : " + w
    else:
        out = "    %%out0 = arith.truncf %%d : %s to %s" % (w, t)
    text = CHAIN % dict(R=R, C=C, t=t, w=w, **names)
    text = text.replace("    @PRELUDE@", "\n".join(prelude))
    return text.replace("    @OUT0@", out)


def compile_with_backward(ir):
    r = subprocess.run(["sinter-opt", "--sinter-test-fused-backward"],
                       input=ir, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("FAIL sinter-opt:\n" + r.stderr)
    return refs.compile_ops(r.stdout)


R, C = 6, 40
prog = compile_with_backward(chain_ir(R, C, "f64", "f64"))
x = gen.uniform(-1, 1, (R, C))
b = gen.uniform(-1, 1, (C,))
tr = gen.uniform(-1, 1, (C, R))
z = gen.uniform(-1, 1, (1, C))
kv = np.float64(1.7)
seed = np.int64(int(gen.integers(0, 2 ** 62)))
inputs = [x, b, tr, z, kv, seed]
dy0 = gen.standard_normal((R, C))
dy1 = gen.standard_normal((R, C))
grads = prog.run("chain_backward", *inputs, dy0, dy1)
print("gradients:", [g.shape for g in grads])


def loss(args):
    y0, y1 = prog.run("chain", *args)
    return float(np.sum(y0 * dy0) + np.sum(y1 * dy1))


# The tensor inputs (x, b, tr, z) have gradients; the scalar and the seed
# do not.
assert len(grads) == 4, len(grads)
dropped = 0
for idx, name in enumerate(("x", "bias", "transposed", "z")):
    u = gen.standard_normal(inputs[idx].shape)
    eps = 1e-6
    up = list(inputs)
    down = list(inputs)
    up[idx] = inputs[idx] + eps * u
    down[idx] = inputs[idx] - eps * u
    numeric = (loss(up) - loss(down)) / (2 * eps)
    analytic = float(np.sum(grads[idx] * u))
    ok = abs(numeric - analytic) <= 1e-6 * max(1.0, abs(analytic))
    print("fused backward f64 d%s: %s (fd %.10g, analytic %.10g)"
          % (name, "ok" if ok else "FAIL", numeric, analytic))
    assert ok, name

# Dropout: the elements the forward dropped get no gradient through out0.
keep = refs.dropout_keep((R, C), int(seed), 0.25)
only0 = prog.run("chain_backward", *inputs, dy0, np.zeros((R, C)))
assert np.all(only0[0][~keep] == 0.0), "dropped elements have a gradient"
assert np.all(only0[0][keep] != 0.0)
print("fused backward dropout mask: ok (%d of %d dropped)"
      % (int((~keep).sum()), keep.size))

# The chain stored in bf16 (f32 arithmetic): within bf16 rounding of the
# float64 gradients at the bf16-rounded inputs.
if refs.BF16 is not None:
    lp = compile_with_backward(chain_ir(R, C, "bf16", "f32"))
    xs = [a.astype(refs.BF16) for a in inputs[:4]]
    args = xs + [np.float32(kv), seed]
    want = prog.run("chain_backward", *[refs.f64(a) for a in xs], kv, seed,
                    dy0.astype(refs.BF16).astype(np.float64),
                    dy1.astype(np.float32).astype(np.float64))
    got = lp.run("chain_backward", *args, dy0.astype(refs.BF16),
                 dy1.astype(np.float32))
    for g, w, name in zip(got, want, ("x", "bias", "transposed", "z")):
        # One bf16 rounding of the result, on top of f32 arithmetic.
        tol = 2 * refs.same_dtype_error(w, refs.BF16) + 1e-4 * (
            1 + np.abs(w).max())
        refs.assert_close("fused backward bf16 d" + name, g, w, atol=tol)

print("ALL PASSED")
