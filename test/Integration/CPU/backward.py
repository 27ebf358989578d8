# The backward ops on the CPU: sinter.softmax_backward,
# sinter.layer_norm_backward, sinter.rms_norm_backward and
# sinter.attention_backward against independent float64 references
# (refs.py), each run on the statistics and outputs of Sinter's own forward
# op in the same program; then gradient checks by central finite
# differences of Sinter's forward on small f32 shapes (the backward must be
# the derivative of the forward it ships with, not only of the reference).
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

gen = refs.rng("backward")
T = refs.tensor_type
F16, BF16, F32 = np.float16, refs.BF16, np.float32


def fd_check(name, loss, x, grad, eps, rtol):
    """Central difference of `loss` at `x` along a random direction against
    <grad, direction>."""
    u = gen.standard_normal(x.shape)
    up = loss((x + eps * u).astype(x.dtype))
    down = loss((x - eps * u).astype(x.dtype))
    numeric = (up - down) / (2 * eps)
    analytic = float(np.sum(refs.f64(grad) * u))
    err = abs(numeric - analytic)
    ok = err <= rtol * max(1.0, abs(analytic))
    print("%s: %s (fd %.6g, analytic %.6g)" % (name, "ok" if ok else "FAIL",
                                              numeric, analytic))
    assert ok, name


# --------------------------------------------------------------------------
# Softmax
# --------------------------------------------------------------------------

def softmax_case(name, shape, dim, dtype, scale=None, fd=False):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    t = T(shape, dtype)
    attr = " {scale = %s : f32}" % refs.flt(np.float32(scale)) if scale else ""
    prog = refs.compile_ops("""
func.func @fwd(%%x: %(t)s) -> %(t)s {
  %%y = sinter.softmax %%x dim %(dim)d%(attr)s : %(t)s
  return %%y : %(t)s
}
func.func @bwd(%%x: %(t)s, %%dy: %(t)s) -> %(t)s {
  %%y = sinter.softmax %%x dim %(dim)d%(attr)s : %(t)s
  %%dx = sinter.softmax_backward %%dy, %%y dim %(dim)d%(attr)s : %(t)s
  return %%dx : %(t)s
}
""" % dict(t=t, dim=dim, attr=attr))
    x = refs.random(gen, shape, dtype, -4, 4)
    dy = refs.random(gen, shape, dtype)
    got = prog.run("bwd", x, dy)
    s = 1.0 if scale is None else float(np.float32(scale))
    y = refs.softmax(x, dim, s)
    want = refs.softmax_backward(dy, y, dim, s)
    # y is stored in `dtype` before the backward reads it.
    naive = refs.softmax_backward(dy, refs.rounded(y, dtype), dim, s)
    refs.assert_close(name, got, want,
                      atol=refs.lowp_tolerance(want, dtype, 1e-6, naive)
                      + refs.same_dtype_error(naive, dtype), rtol=1e-5)
    if fd:
        w = refs.random(gen, shape, np.float64)
        fd_check(name + " fd", lambda xx: float(
            np.sum(refs.f64(prog.run("fwd", xx)) * w)), x,
            prog.run("bwd", x, w.astype(dtype)), 1e-2, 2e-3)


softmax_case("softmax_backward f32", (7, 257), 1, F32, fd=True)
softmax_case("softmax_backward dim0 scale", (113, 9), 0, F32, scale=0.125,
             fd=True)
softmax_case("softmax_backward 4d f16", (2, 3, 17, 127), 3, F16)
softmax_case("softmax_backward bf16", (5, 128), 1, BF16, scale=0.5)


# --------------------------------------------------------------------------
# LayerNorm and RMSNorm
# --------------------------------------------------------------------------

def norm_case(name, kind, shape, rank, dtype, weight=True, bias=True,
              eps=1e-5, grad_dtype=None, fd=False, dy_dtype=None):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    layer = kind == "layer"
    bias = bias and layer
    gd = grad_dtype or dtype
    tx = T(shape, dtype)
    # dy of another float type (a bf16 gradient of an f32 input): `dy(T)`.
    tdy = T(shape, dy_dtype or dtype)
    dytail = " dy(%s)" % tdy if tdy != tx else ""
    nshape, lead = shape[len(shape) - rank:], shape[:len(shape) - rank]
    tw, ts, tg = T(nshape, dtype), T(lead, F32), T(nshape, gd)
    args = ["%x: " + tx] + (["%w: " + tw] if weight else []) + \
        (["%b: " + tw] if bias else [])
    wop = " weight(%%w : %s)" % tw if weight else ""
    bop = " bias(%%b : %s)" % tw if bias else ""
    attrs = "{epsilon = %s : f32, normalized_rank = %d : i64}" % (
        refs.flt(np.float32(eps)), rank)
    grads = [tx] + ([tg] if weight else []) + ([tg] if bias else [])
    gnames = ["%dx"] + (["%dw"] if weight else []) + (["%db"] if bias else [])
    gtail = (" dweight(%s)" % tg if weight else "") + \
        (" dbias(%s)" % tg if bias else "")
    if layer:
        fwd = ("%%y, %%mean, %%rstd = sinter.layer_norm %%x%s%s %s : %s -> %s "
               "mean(%s) rstd(%s)" % (wop, bop, attrs, tx, tx, ts, ts))
        bwd = ("%s = sinter.layer_norm_backward %%dy, %%x, %%mean, %%rstd%s "
               "{normalized_rank = %d : i64} : %s, %s -> %s%s%s"
               % (", ".join(gnames), wop, rank, tx, ts, tx, gtail, dytail))
    else:
        fwd = ("%%y, %%rstd = sinter.rms_norm %%x%s %s : %s -> %s rstd(%s)"
               % (wop, attrs, tx, tx, ts))
        bwd = ("%s = sinter.rms_norm_backward %%dy, %%x, %%rstd%s "
               "{normalized_rank = %d : i64} : %s, %s -> %s%s%s"
               % (", ".join(gnames), wop, rank, tx, ts, tx, gtail, dytail))
    prog = refs.compile_ops("""
func.func @fwd(%(args)s) -> %(tx)s {
  %(fwd)s
  return %%y : %(tx)s
}
func.func @bwd(%(args)s, %%dy: %(tdy)s) -> (%(grads)s) {
  %(fwd)s
  %(bwd)s
  return %(gnames)s : %(grads)s
}
""" % dict(args=", ".join(args), tx=tx, tdy=tdy, fwd=fwd, bwd=bwd,
           grads=", ".join(grads), gnames=", ".join(gnames)))
    x = refs.random(gen, shape, dtype, -3, 5)
    w = refs.random(gen, nshape, dtype, 0.5, 1.5) if weight else None
    b = refs.random(gen, nshape, dtype) if bias else None
    params = [a for a in (w, b) if a is not None]
    dy = refs.random(gen, shape, dy_dtype or dtype)
    got = prog.run("bwd", x, *params, dy)
    got = got if isinstance(got, tuple) else (got,)
    feps = float(np.float32(eps))
    if layer:
        want = refs.layer_norm_backward(dy, x, rank, w, feps)
    else:
        want = refs.rms_norm_backward(dy, x, rank, w, feps)
    want = [want[0]] + ([want[1]] if weight else []) + \
        ([want[2]] if bias else [])
    for label, g, wv, dt in zip(("dx", "dweight", "dbias"), got, want,
                                [dtype, gd, gd]):
        # Column sums add one rounding of each row's term: scale by rows.
        rows = 1 if label == "dx" else max(1, int(np.prod(lead)))
        tol = refs.lowp_tolerance(wv, dt, 2e-5 * np.sqrt(rows))
        if np.dtype(dtype) != np.float32 and label != "dx":
            # dy * xhat with xhat from low-precision x: relative error.
            tol += 4 * refs.unit_roundoff(dtype) * float(
                np.sum(np.abs(refs.f64(dy)), axis=tuple(
                    range(len(lead)))).max())
        refs.assert_close("%s %s" % (name, label), g, wv, atol=tol,
                          rtol=1e-4)
    if fd:
        r = refs.random(gen, shape, np.float64)
        loss = lambda *a: float(np.sum(refs.f64(prog.run("fwd", *a)) * r))
        grads = prog.run("bwd", x, *params, r.astype(dtype))
        grads = grads if isinstance(grads, tuple) else (grads,)
        fd_check(name + " fd dx", lambda xx: loss(xx, *params), x, grads[0],
                 1e-2, 2e-3)
        if weight:
            fd_check(name + " fd dweight",
                     lambda ww: loss(x, ww, *params[1:]), w, grads[1], 1e-2,
                     2e-3)


for kind in ("layer", "rms"):
    k = kind + "_norm_backward"
    norm_case(k + " f32", kind, (17, 257), 1, F32, fd=True)
    norm_case(k + " rank2 f16", kind, (3, 13, 64), 2, F16, grad_dtype=F32)
    norm_case(k + " bf16", kind, (113, 128), 1, BF16, grad_dtype=F32)
    norm_case(k + " no-affine", kind, (4, 127), 1, F32, weight=False,
              bias=False, eps=1e-3, fd=True)
    norm_case(k + " one row", kind, (1, 1023), 1, F32, bias=False)
norm_case("layer_norm_backward bias-only", "layer", (9, 33), 1, F32,
          weight=False, fd=True)
# bf16 autocast's gradient of an f32 residual stream's norms: dy in bf16.
norm_case("layer_norm_backward bf16 dy", "layer", (37, 768), 1, F32,
          dy_dtype=BF16)
norm_case("rms_norm_backward bf16 dy", "rms", (5, 129), 1, F32,
          dy_dtype=BF16)


# --------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------

def attention_program(B, Hq, Hkv, Sq, Skv, D, dtype, causal, mask,
                      dropout_p, scale):
    tq, tk = T((B, Hq, Sq, D), dtype), T((B, Hkv, Skv, D), dtype)
    tl = T((B, Hq, Sq), F32)
    tm = T(mask, dtype) if mask is not None else None
    more, extra, attrs = refs.attention_clauses(tm, dropout_p, causal, scale)
    args = ["%q: " + tq, "%k: " + tk, "%v: " + tk] + more
    grads = [tq, tk, tk] + ([tm] if tm else [])
    dmask = " dmask(%s)" % tm if tm else ""
    names = "%dq, %dk, %dv" + (", %dm" if tm else "")
    return refs.compile_ops("""
func.func @fwd(%(args)s) -> %(tq)s {
  %%o = sinter.attention %%q, %%k, %%v%(extra)s%(attrs)s : %(tq)s, %(tk)s, %(tk)s -> %(tq)s
  return %%o : %(tq)s
}
func.func @bwd(%(args)s, %%do: %(tq)s) -> (%(grads)s) {
  %%o, %%lse = sinter.attention %%q, %%k, %%v%(extra)s%(attrs)s : %(tq)s, %(tk)s, %(tk)s -> %(tq)s, %(tl)s
  %(names)s = sinter.attention_backward %%do, %%q, %%k, %%v, %%o, %%lse%(extra)s%(attrs)s : %(tq)s, %(tq)s, %(tk)s, %(tk)s, %(tq)s, %(tl)s -> %(tq)s, %(tk)s, %(tk)s%(dmask)s
  return %(names)s : %(grads)s
}
""" % dict(args=", ".join(args), tq=tq, tk=tk, tl=tl, extra=extra,
           attrs=attrs, grads=", ".join(grads), dmask=dmask, names=names))


def attention_case(name, B, Hq, Hkv, Sq, Skv, D, dtype=F32, causal=False,
                   mask=None, dropout_p=0.0, scale=None, fd=False):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    prog = attention_program(B, Hq, Hkv, Sq, Skv, D, dtype, causal, mask,
                             dropout_p, scale)
    q = refs.random(gen, (B, Hq, Sq, D), dtype)
    k = refs.random(gen, (B, Hkv, Skv, D), dtype)
    v = refs.random(gen, (B, Hkv, Skv, D), dtype)
    inputs = [q, k, v]
    m = None
    if mask is not None:
        m = refs.random(gen, mask, dtype, -2, 2)
        inputs.append(m)
    seed = None
    if dropout_p:
        seed = int(gen.integers(0, 2 ** 62))
        inputs.append(np.int64(seed))
    do = refs.random(gen, (B, Hq, Sq, D), dtype)
    got = prog.run("bwd", *inputs, do)
    s = None if scale is None else float(np.float32(scale))
    want = refs.attention_backward(do, q, k, v, s, causal, m, dropout_p, seed)
    for label, g, wv in zip(("dq", "dk", "dv", "dmask"), got, want):
        # Sums over up to Skv (dq) or Hq/Hkv * Sq (dk, dv) terms.
        terms = Skv if label == "dq" else (Hq // Hkv) * Sq
        tol = refs.lowp_tolerance(wv, dtype, 2e-6 * np.sqrt(terms) *
                                  max(1.0, float(np.abs(wv).max())))
        if np.dtype(dtype) != np.float32:
            # Q, K, V, O and dO stored in `dtype`: the probabilities and
            # delta carry their rounding into every term.
            tol += 8 * refs.unit_roundoff(dtype) * float(np.abs(wv).max())
        refs.assert_close("%s %s" % (name, label), g, wv, atol=tol)
    if fd:
        r = refs.random(gen, (B, Hq, Sq, D), np.float64)
        grads = prog.run("bwd", *inputs, r.astype(dtype))
        loss = lambda *a: float(np.sum(refs.f64(prog.run("fwd", *a)) * r))
        for idx, label in enumerate(("dq", "dk", "dv", "dmask")[:len(grads)]):
            def at(t, idx=idx):
                args = list(inputs)
                args[idx] = t
                return loss(*args)
            fd_check("%s fd %s" % (name, label), at, inputs[idx], grads[idx],
                     1e-2, 3e-3)


attention_case("attention_backward", 1, 2, 2, 64, 64, 64, fd=True)
attention_case("attention_backward Sq=1", 2, 2, 1, 1, 113, 64)
attention_case("attention_backward causal Sq>Skv (rows without keys)", 1, 2, 2, 127, 113,
               64, causal=True, fd=True)
attention_case("attention_backward causal Sq<Skv", 1, 2, 2, 33, 127, 64,
               causal=True)
attention_case("attention_backward GQA mask", 1, 4, 2, 113, 113, 128,
               mask=(1, 1, 113, 113), fd=True)
attention_case("attention_backward head mask", 2, 2, 2, 17, 31, 64,
               mask=(2, 2, 17, 31))
attention_case("attention_backward key mask", 1, 2, 1, 9, 40, 64,
               mask=(40,), causal=True)
attention_case("attention_backward dropout", 1, 2, 2, 50, 70, 64,
               dropout_p=0.2, fd=True)
attention_case("attention_backward dropout GQA causal mask", 1, 4, 1, 31, 31,
               64, causal=True, dropout_p=0.1, mask=(1, 4, 31, 31))
attention_case("attention_backward D256 scale", 1, 1, 1, 40, 24, 256,
               scale=0.3)
attention_case("attention_backward bf16", 1, 2, 2, 127, 127, 128, BF16,
               causal=True)
attention_case("attention_backward f16 GQA", 1, 4, 2, 113, 64, 64, F16)
attention_case("attention_backward S1023", 1, 1, 1, 1023, 1023, 64,
               causal=True)

print("ALL PASSED")
