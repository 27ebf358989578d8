# Unfused upstream programs (linalg/tensor/arith/math on tensors) compiled
# for the CPU through the C API and run on numpy arrays against float64
# references.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK: mlp: ok
# CHECK: reductions sum: ok
# CHECK: reductions max: ok
# CHECK: softmax: ok
# CHECK: linalg.softmax dim 1: ok
# CHECK: linalg.softmax dim 0: ok
# CHECK: batch_matmul f64: ok
# CHECK: batch_matmul f64: ok
# CHECK: matmul tiles: ok
# CHECK: transcendentals float32: ok
# CHECK: transcendentals float16: ok
# CHECK: slices: ok
# CHECK: scalars: ok
# CHECK: inputs untouched: ok
# CHECK: math coverage: ok
# CHECK: 0-d integer result: ok
# CHECK: ALL PASSED

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402

gen = refs.rng("unfused-linalg")
T = refs.tensor_type

MLP = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: {x}, %w: {w}, %b: {b}) -> {y} {{
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : {y}
  %acc = linalg.fill ins(%zero : f32) outs(%init : {y}) -> {y}
  %mm = linalg.matmul ins(%x, %w : {x}, {w}) outs(%acc : {y}) -> {y}
  %r = linalg.generic {{indexing_maps = [#id, #row, #id],
                        iterator_types = ["parallel", "parallel"]}}
      ins(%mm, %b : {y}, {b}) outs(%init : {y}) {{
  ^bb0(%m: f32, %bv: f32, %o: f32):
    %s = arith.addf %m, %bv : f32
    %relu = arith.maximumf %s, %zero : f32
    linalg.yield %relu : f32
  }} -> {y}
  return %r : {y}
}}
"""


def test_mlp():
    M, K, N = 17, 33, 65
    prog = sinter.compile(MLP.format(x=T((M, K), np.float32),
                                     w=T((K, N), np.float32),
                                     b=T((N,), np.float32),
                                     y=T((M, N), np.float32)), fusion=False)
    x = refs.random(gen, (M, K), np.float32)
    w = refs.random(gen, (K, N), np.float32)
    b = refs.random(gen, (N,), np.float32)
    got = prog.run("mlp", x, w, b)
    want = np.maximum(refs.f64(x) @ refs.f64(w) + refs.f64(b), 0.0)
    refs.assert_close("mlp", got, want, atol=K * 4e-7)


REDUCTIONS = """
func.func @reduce(%x: {x}) -> ({rows}, {cols}) {{
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : {rows}
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : {rows}) -> {rows}
  %sum = linalg.reduce ins(%x : {x}) outs(%s0 : {rows}) dimensions = [1]
    (%in: f32, %acc: f32) {{
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }}
  %e1 = tensor.empty() : {cols}
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : {cols}) -> {cols}
  %max = linalg.reduce ins(%x : {x}) outs(%m0 : {cols}) dimensions = [0]
    (%in: f32, %acc: f32) {{
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }}
  return %sum, %max : {rows}, {cols}
}}
"""


def test_reductions():
    R, C = 29, 257
    prog = sinter.compile(REDUCTIONS.format(
        x=T((R, C), np.float32), rows=T((R,), np.float32),
        cols=T((C,), np.float32)), fusion=False)
    x = refs.random(gen, (R, C), np.float32)
    total, biggest = prog.run("reduce", x)
    refs.assert_close("reductions sum", total, refs.f64(x).sum(axis=1),
                      atol=C * 1e-7)
    refs.assert_close("reductions max", biggest, refs.f64(x).max(axis=0),
                      atol=0.0)


SOFTMAX = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: {x}) -> {x} {{
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : {r}
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : {r}) -> {r}
  %m = linalg.generic {{indexing_maps = [#id, #red],
                        iterator_types = ["parallel", "reduction"]}}
      ins(%x : {x}) outs(%m0 : {r}) {{
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  }} -> {r}
  %ex = tensor.empty() : {x}
  %e = linalg.generic {{indexing_maps = [#id, #red, #id],
                        iterator_types = ["parallel", "parallel"]}}
      ins(%x, %m : {x}, {r}) outs(%ex : {x}) {{
  ^bb0(%a: f32, %mx: f32, %o: f32):
    %d = arith.subf %a, %mx : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  }} -> {x}
  %s0 = linalg.fill ins(%zero : f32) outs(%er : {r}) -> {r}
  %s = linalg.generic {{indexing_maps = [#id, #red],
                        iterator_types = ["parallel", "reduction"]}}
      ins(%e : {x}) outs(%s0 : {r}) {{
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  }} -> {r}
  %y = linalg.generic {{indexing_maps = [#id, #red, #id],
                        iterator_types = ["parallel", "parallel"]}}
      ins(%e, %s : {x}, {r}) outs(%ex : {x}) {{
  ^bb0(%a: f32, %t: f32, %o: f32):
    %v = arith.divf %a, %t : f32
    linalg.yield %v : f32
  }} -> {x}
  return %y : {x}
}}
"""


def test_softmax():
    R, C = 13, 127
    prog = sinter.compile(SOFTMAX.format(x=T((R, C), np.float32),
                                         r=T((R,), np.float32)),
                          fusion=False)
    x = refs.random(gen, (R, C), np.float32, -8, 8)
    refs.assert_close("softmax", prog.run("softmax", x), refs.softmax(x, 1),
                      atol=1e-6, rtol=1e-5)


LINALG_SOFTMAX = """
func.func @softmax(%x: {x}) -> {x} {{
  %e = tensor.empty() : {x}
  %r = linalg.softmax dimension({dim}) ins(%x : {x}) outs(%e : {x}) -> {x}
  return %r : {x}
}}
"""


def test_linalg_softmax():
    # The upstream op with fusion off: its decomposition into generics
    # (SinterToLoops' aggregates), on the trailing and the leading dimension.
    R, C = 13, 127
    x = refs.random(gen, (R, C), np.float32, -8, 8)
    for dim in (1, 0):
        prog = sinter.compile(LINALG_SOFTMAX.format(x=T((R, C), np.float32),
                                                    dim=dim), fusion=False)
        refs.assert_close("linalg.softmax dim %d" % dim,
                          prog.run("softmax", x), refs.softmax(x, dim),
                          atol=1e-6, rtol=1e-5)


BMM = """
func.func @bmm(%a: {a}, %b: {b}) -> {c} {{
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%zero : f64) outs(%e : {c}) -> {c}
  %r = linalg.batch_matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  return %r : {c}
}}
"""


def test_batch_matmul():
    # Smaller than a register tile (the scalar path), then full tiles with
    # strips on both sides (sinter-cpu-vectorize-matmuls, per batch).
    for B, M, K, N in ((3, 7, 64, 9), (2, 19, 40, 70)):
        prog = sinter.compile(BMM.format(a=T((B, M, K), np.float64),
                                         b=T((B, K, N), np.float64),
                                         c=T((B, M, N), np.float64)),
                              fusion=False)
        a = refs.random(gen, (B, M, K), np.float64)
        b = refs.random(gen, (B, K, N), np.float64)
        refs.assert_close("batch_matmul f64", prog.run("bmm", a, b), a @ b,
                          atol=1e-13)


# C0 + A[1:, 2:] @ B: the register-tiled micro-kernel on its full tiles
# (sinter-cpu-vectorize-matmuls: 8 x 32 with AVX-512, else 6 x 16), the
# strips on the scalar path; A a slice with strided rows, C starting from
# values that must be accumulated onto.
MM_TILES = """
func.func @mm(%a: {abig}, %b: {b}, %c0: {c}) -> {c} {{
  %as = tensor.extract_slice %a[1, 2] [{m}, {k}] [1, 1] : {abig} to {a}
  %r = linalg.matmul ins(%as, %b : {a}, {b}) outs(%c0 : {c}) -> {c}
  return %r : {c}
}}
"""


def test_matmul_tiles():
    # Shapes around both tile sizes: less than a tile, exact tiles, one
    # past, and strips on both sides; K down to 1.
    shapes = [(1, 1, 1), (5, 7, 31), (8, 64, 32), (9, 3, 33), (12, 5, 16),
              (24, 33, 96), (13, 64, 70), (6, 1, 17)]
    for dtype, atol in ((np.float32, 4e-7), (np.float64, 1e-15)):
        for m, k, n in shapes:
            prog = sinter.compile(MM_TILES.format(
                abig=T((m + 1, k + 3), dtype), a=T((m, k), dtype),
                b=T((k, n), dtype), c=T((m, n), dtype), m=m, k=k),
                fusion=False)
            a = refs.random(gen, (m + 1, k + 3), dtype)
            b = refs.random(gen, (k, n), dtype)
            c0 = refs.random(gen, (m, n), dtype)
            want = refs.f64(c0) + refs.f64(a)[1:, 2:2 + k] @ refs.f64(b)
            refs.assert_close("matmul %s %dx%dx%d" % (dtype.__name__, m, k, n),
                              prog.run("mm", a, b, c0), want,
                              atol=(k + 1) * atol)
    print("matmul tiles: ok")


TRANSCENDENTAL = """
#id = affine_map<(d0) -> (d0)>
func.func @fn(%x: {x}) -> ({x}, {x}, {x}) {{
  %e = tensor.empty() : {x}
  %r:3 = linalg.generic {{indexing_maps = [#id, #id, #id, #id],
                          iterator_types = ["parallel"]}}
      ins(%x : {x}) outs(%e, %e, %e : {x}, {x}, {x}) {{
  ^bb0(%a: {t}, %o0: {t}, %o1: {t}, %o2: {t}):
    %ex = math.exp %a : {t}
    %th = math.tanh %a : {t}
    %er = math.erf %a : {t}
    linalg.yield %ex, %th, %er : {t}, {t}, {t}
  }} -> ({x}, {x}, {x})
  return %r#0, %r#1, %r#2 : {x}, {x}, {x}
}}
"""


def test_transcendentals():
    from math import erf
    n = 1000
    for dtype in [np.float32, np.float16] + (
            [refs.BF16] if refs.BF16 is not None else []):
        name = np.dtype(dtype).name
        prog = sinter.compile(TRANSCENDENTAL.format(
            x=T((n,), dtype), t=refs.mlir_type(dtype)), fusion=False)
        x = refs.random(gen, (n,), dtype, -4, 4)
        ex, th, er = prog.run("fn", x)
        assert ex.dtype == np.dtype(dtype), ex.dtype
        # Computed in f32 and rounded once to the storage type.
        u = refs.unit_roundoff(dtype)
        tol = max(u, 1e-6)
        xd = refs.f64(x)
        refs.assert_close("transcendentals %s exp" % name, ex, np.exp(xd),
                          atol=0, rtol=2 * tol)
        refs.assert_close("transcendentals %s tanh" % name, th, np.tanh(xd),
                          atol=tol, rtol=2 * tol)
        refs.assert_close("transcendentals %s erf" % name, er,
                          np.vectorize(erf)(xd), atol=tol, rtol=2 * tol)
        print("transcendentals %s: ok" % name)


SLICES = """
func.func @slices(%x: {x}, %p: {h}) -> ({t}, {h}, {x}) {{
  %e = tensor.empty() : {t}
  %t = linalg.transpose ins(%x : {x}) outs(%e : {t}) permutation = [1, 0]
  %s = tensor.extract_slice %x[1, 2] [3, 4] [2, 3] : {x} to {h}
  // A strided (non-contiguous) copy: the memrefCopy runtime function.
  %i = tensor.insert_slice %p into %x[0, 1] [3, 4] [3, 2] : {h} into {x}
  return %t, %s, %i : {t}, {h}, {x}
}}
"""


def test_slices():
    R, C = 8, 16
    prog = sinter.compile(SLICES.format(x=T((R, C), np.float32),
                                        t=T((C, R), np.float32),
                                        h=T((3, 4), np.float32)),
                          fusion=False)
    x = refs.random(gen, (R, C), np.float32)
    patch = refs.random(gen, (3, 4), np.float32)
    t, h, i = prog.run("slices", x, patch)
    assert np.array_equal(t, x.T)
    assert np.array_equal(h, x[1:7:2, 2:14:3]), (h, x[1:7:2, 2:14:3])
    want = x.copy()
    want[0:9:3, 1:9:2] = patch
    assert np.array_equal(i, want), (i, want)
    print("slices: ok")


SCALARS = """
#id = affine_map<(d0) -> (d0)>
func.func @axpy(%alpha: f32, %x: {x}, %y: {x}, %n: i64, %flag: i1)
    -> ({x}, {i}, {b}) {{
  %e = tensor.empty() : {x}
  %ei = tensor.empty() : {i}
  %eb = tensor.empty() : {b}
  %r:3 = linalg.generic {{indexing_maps = [#id, #id, #id, #id, #id],
                          iterator_types = ["parallel"]}}
      ins(%x, %y : {x}, {x}) outs(%e, %ei, %eb : {x}, {i}, {b}) {{
  ^bb0(%a: f32, %c: f32, %o: f32, %oi: i32, %ob: i1):
    %m = arith.mulf %alpha, %a : f32
    %s = arith.addf %m, %c : f32
    %idx = linalg.index 0 : index
    %i64 = arith.index_cast %idx : index to i64
    %sum = arith.addi %i64, %n : i64
    %i32 = arith.trunci %sum : i64 to i32
    %gt = arith.cmpf ogt, %a, %c : f32
    %b = arith.xori %gt, %flag : i1
    linalg.yield %s, %i32, %b : f32, i32, i1
  }} -> ({x}, {i}, {b})
  return %r#0, %r#1, %r#2 : {x}, {i}, {b}
}}
"""


def test_scalars():
    n = 37
    prog = sinter.compile(SCALARS.format(x=T((n,), np.float32),
                                         i=T((n,), np.int32),
                                         b=T((n,), np.bool_)), fusion=False)
    x = refs.random(gen, (n,), np.float32)
    y = refs.random(gen, (n,), np.float32)
    alpha = float(gen.uniform(-2, 2))
    for flag in (False, True):
        s, idx, b = prog.run("axpy", np.float32(alpha), x, y, 1000, flag)
        refs.assert_close("axpy", s,
                          refs.f64(np.float32(alpha) * x) + refs.f64(y),
                          atol=1e-6)
        assert idx.dtype == np.int32 and np.array_equal(
            idx, np.arange(n) + 1000), idx
        assert b.dtype == np.bool_ and np.array_equal(b, (x > y) ^ flag), b
    print("scalars: ok")


INPLACE = """
#id = affine_map<(d0) -> (d0)>
func.func @double(%x: {x}) -> {x} {{
  %r = linalg.generic {{indexing_maps = [#id], iterator_types = ["parallel"]}}
      outs(%x : {x}) {{
  ^bb0(%a: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  }} -> {x}
  return %r : {x}
}}
"""


def test_inputs_untouched():
    # The kernel updates its operand in place at the tensor level; the
    # calling convention must still leave the caller's array unchanged.
    n = 64
    prog = sinter.compile(INPLACE.format(x=T((n,), np.float32)),
                          fusion=False)
    x = refs.random(gen, (n,), np.float32)
    before = x.copy()
    y = prog.run("double", x)
    assert np.array_equal(x, before), "input was modified"
    assert np.array_equal(y, 2 * before)
    # Twice in a row: same answer (no state kept between calls).
    assert np.array_equal(prog.run("double", x), y)
    print("inputs untouched: ok")


MATH_OPS = {  # op: numpy reference (inputs in [0.1, 0.9])
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
    "rsqrt": lambda a: 1 / np.sqrt(a), "tanh": np.tanh, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "atan": np.arctan, "asin": np.arcsin,
    "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "atanh": np.arctanh, "absf": np.abs, "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "trunc": np.trunc, "cbrt": np.cbrt,
}


def test_math_coverage():
    # Every math op lowers to an intrinsic, an expansion or a libm function
    # that exists (a missing one fails the link, not the load).
    from math import erf, erfc
    refs_extra = {"erf": np.vectorize(erf), "erfc": np.vectorize(erfc)}
    ops = dict(MATH_OPS, **refs_extra)
    n = 64
    lines = ["    %%r%d = math.%s %%a : f32" % (i, op)
             for i, op in enumerate(ops)]
    names = ["%%r%d" % i for i in range(len(ops))]
    lines.append("    %pw = math.powf %a, %a : f32")
    lines.append("    %at = math.atan2 %a, %a : f32")
    names += ["%pw", "%at"]
    outs = ", ".join(["tensor<%dxf32>" % n] * len(names))
    prog = sinter.compile("""
#id = affine_map<(d0) -> (d0)>
func.func @math(%%x: tensor<%dxf32>) -> (%s) {
  %%e = tensor.empty() : tensor<%dxf32>
  %%r:%d = linalg.generic {indexing_maps = [%s],
                          iterator_types = ["parallel"]}
      ins(%%x : tensor<%dxf32>) outs(%s) {
  ^bb0(%%a: f32, %s):
%s
    linalg.yield %s : %s
  } -> (%s)
  return %s : %s
}
""" % (n, outs, n, len(names), ", ".join(["#id"] * (len(names) + 1)), n,
       ", ".join(["%e"] * len(names)) + " : " + outs,
       ", ".join("%%o%d: f32" % i for i in range(len(names))),
       "\n".join(lines), ", ".join(names), ", ".join(["f32"] * len(names)),
       outs, ", ".join("%%r#%d" % i for i in range(len(names))), outs),
        fusion=False)
    x = refs.random(gen, (n,), np.float32, 0.1, 0.9)
    got = prog.run("math", x)
    xd = refs.f64(x)
    wants = [f(xd) for f in ops.values()] + [xd ** xd, np.arctan2(xd, xd)]
    for name, g, w in zip(list(ops) + ["powf", "atan2"], got, wants):
        refs.assert_close("math." + name, g, w, atol=1e-6, rtol=4e-6)
    print("math coverage: ok")


test_mlp()
test_reductions()
test_softmax()
test_linalg_softmax()
test_batch_matmul()
test_matmul_tiles()
test_transcendentals()
test_slices()
test_scalars()
test_inputs_untouched()
test_math_coverage()


def test_zero_d_integer_result():
    """A 0-d integer result (a count of valid rows: cross-entropy with
    ignore_index); the runtime poisons output buffers before a call."""
    prog = sinter.compile("""
func.func @count(%x: tensor<9xi64>) -> tensor<i64> {
  %z = arith.constant dense<0> : tensor<i64>
  %r = linalg.reduce ins(%x : tensor<9xi64>) outs(%z : tensor<i64>)
      dimensions = [0]
    (%a: i64, %b: i64) {
      %s = arith.addi %a, %b : i64
      linalg.yield %s : i64
    }
  return %r : tensor<i64>
}
""", fusion=False)
    got = prog.run("count", np.arange(9, dtype=np.int64))
    assert got.shape == () and got.dtype == np.int64 and int(got) == 36, got
    print("0-d integer result: ok")


test_zero_d_integer_result()
print("ALL PASSED")
