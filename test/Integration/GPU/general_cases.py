# Part of the Sinter project.
"""GPU cases of what real models leave beside the tuned kernels: unfused
matmuls (cuBLASLt library calls, their epilogues and fallback kernels),
reductions and elementwise generics on the general path, masks of
booleans, slices read in place, integer powers, dropout with a residual.
Each case is as in gpu_cases.py, which collects them."""

import math

from case_common import FLAGS, LAUNCHES, LIBRARY_CALLS, TYPES, _tt  # noqa: F401


def unfused_mlp_case(M=100, K=96, N=200, t="f32"):
    """Unfused linalg as torch-mlir emits it: matmul into a zero fill, a
    broadcast bias add generic, tanh, a transpose and a reshape; runs through
    the matmul kernel and elementwise kernels."""
    ir = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%%x: tensor<%(M)dx%(K)dx%(t)s>, %%w: tensor<%(K)dx%(N)dx%(t)s>, %%b: tensor<%(N)dx%(t)s>) -> tensor<%(N)dx2x%(H)dx%(t)s> {
  %%zero = arith.constant 0.0 : %(t)s
  %%e = tensor.empty() : tensor<%(M)dx%(N)dx%(t)s>
  %%z = linalg.fill ins(%%zero : %(t)s) outs(%%e : tensor<%(M)dx%(N)dx%(t)s>) -> tensor<%(M)dx%(N)dx%(t)s>
  %%mm = linalg.matmul ins(%%x, %%w : tensor<%(M)dx%(K)dx%(t)s>, tensor<%(K)dx%(N)dx%(t)s>) outs(%%z : tensor<%(M)dx%(N)dx%(t)s>) -> tensor<%(M)dx%(N)dx%(t)s>
  %%e2 = tensor.empty() : tensor<%(M)dx%(N)dx%(t)s>
  %%h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%%mm, %%b : tensor<%(M)dx%(N)dx%(t)s>, tensor<%(N)dx%(t)s>) outs(%%e2 : tensor<%(M)dx%(N)dx%(t)s>) {
  ^bb0(%%a: %(t)s, %%c: %(t)s, %%o: %(t)s):
    %%s = arith.addf %%a, %%c : %(t)s
    %%g = math.tanh %%s : %(t)s
    linalg.yield %%g : %(t)s
  } -> tensor<%(M)dx%(N)dx%(t)s>
  %%e3 = tensor.empty() : tensor<%(N)dx%(M)dx%(t)s>
  %%tr = linalg.transpose ins(%%h : tensor<%(M)dx%(N)dx%(t)s>) outs(%%e3 : tensor<%(N)dx%(M)dx%(t)s>) permutation = [1, 0]
  %%r = tensor.expand_shape %%tr [[0], [1, 2]] output_shape [%(N)d, 2, %(H)d] : tensor<%(N)dx%(M)dx%(t)s> into tensor<%(N)dx2x%(H)dx%(t)s>
  return %%r : tensor<%(N)dx2x%(H)dx%(t)s>
}
""" % {"M": M, "K": K, "N": N, "H": M // 2, "t": t}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(M, K, generator=gen, device=dev).to(dt),
                (torch.randn(K, N, generator=gen, device=dev) / K ** 0.5).to(dt),
                torch.randn(N, generator=gen, device=dev).to(dt)]

    def ref(torch, x, w, b):
        y = torch.tanh(x.double() @ w.double() + b.double())
        return [y.t().reshape(N, 2, M // 2)]

    def torch_same_dtype(torch, x, w, b):
        return [torch.tanh(x @ w + b).t().reshape(N, 2, M // 2)]

    name = "unfused_mlp_%dx%dx%d_%s" % (M, K, N, t)
    LIBRARY_CALLS[name] = 1  # the matmul runs through cuBLASLt
    return name, ir, make, ref, torch_same_dtype


def reduce_sum_case(shape, axis, t="f32", form="generic"):
    """A leftover linalg sum over one axis, as frontends write it: a zero
    fill as init and a reduction generic (form "generic": the region adds in
    the storage type, so f16/bf16 accumulate in f32 by the serial kernel's
    rule; form "extf": the region widens to an f32 accumulator explicitly and
    an elementwise truncf rounds the result to the storage type)."""
    rank = len(shape)
    dims = ["d%d" % i for i in range(rank)]
    out_shape = [d for i, d in enumerate(shape) if i != axis]
    out_dims = [d for i, d in enumerate(dims) if i != axis]
    iters = ", ".join('"reduction"' if i == axis else '"parallel"'
                      for i in range(rank))
    x, y = _tt(shape, t), _tt(out_shape, t)
    in_map = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(dims))
    out_map = "affine_map<(%s) -> (%s)>" % (", ".join(dims),
                                            ", ".join(out_dims))
    if form == "generic":
        ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(t)s
  %%e = tensor.empty() : %(y)s
  %%z = linalg.fill ins(%%zero : %(t)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [%(im)s, %(om)s], iterator_types = [%(it)s]} ins(%%x : %(x)s) outs(%%z : %(y)s) {
  ^bb0(%%a: %(t)s, %%acc: %(t)s):
    %%s = arith.addf %%a, %%acc : %(t)s
    linalg.yield %%s : %(t)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "t": t, "im": in_map, "om": out_map, "it": iters}
    else:
        acc = _tt(out_shape, "f32")
        ident = "affine_map<(%s) -> (%s)>" % (", ".join(out_dims),
                                              ", ".join(out_dims))
        par = ", ".join(['"parallel"'] * len(out_dims))
        ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(acc)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %(acc)s) -> %(acc)s
  %%s = linalg.generic {indexing_maps = [%(im)s, %(om)s], iterator_types = [%(it)s]} ins(%%x : %(x)s) outs(%%z : %(acc)s) {
  ^bb0(%%a: %(t)s, %%sum: f32):
    %%w = arith.extf %%a : %(t)s to f32
    %%n = arith.addf %%w, %%sum : f32
    linalg.yield %%n : f32
  } -> %(acc)s
  %%e2 = tensor.empty() : %(y)s
  %%r = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = [%(par)s]} ins(%%s : %(acc)s) outs(%%e2 : %(y)s) {
  ^bb0(%%v: f32, %%o: %(t)s):
    %%c = arith.truncf %%v : f32 to %(t)s
    linalg.yield %%c : %(t)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "t": t, "acc": acc, "im": in_map, "om": out_map,
       "it": iters, "id": ident, "par": par}

    def make(torch, dev, gen):
        return [torch.randn(*shape, generator=gen, device=dev)
                .to(getattr(torch, TYPES[t]))]

    def ref(torch, xx):
        return [xx.double().sum(axis)]

    def torch_same_dtype(torch, xx):
        return [xx.sum(axis)]

    name = "reduce_sum_%s_axis%d_%s%s" % ("x".join(map(str, shape)), axis, t,
                                          "_extf" if form == "extf" else "")
    return name, ir, make, ref, torch_same_dtype


def count_case(shape):
    """torch-mlir's cross-entropy counts the labels that are not
    ignore_index (-100): an i64 sum of a widened i1. Over a 1-D shape the
    result is a scalar (a block of 256 threads for the one element, its
    warps meeting in shared memory); over [rows, n] a warp per row."""
    x = _tt(shape, "i64")
    out = shape[:-1]
    y = _tt(out, "i64")
    dims = ["d%d" % i for i in range(len(shape))]
    im = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(dims))
    om = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(dims[:-1]))
    iters = ", ".join(['"parallel"'] * (len(shape) - 1) + ['"reduction"'])
    ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%zero = arith.constant 0 : i64
  %%ignore = arith.constant -100 : i64
  %%e = tensor.empty() : %(y)s
  %%z = linalg.fill ins(%%zero : i64) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [%(im)s, %(om)s], iterator_types = [%(it)s]} ins(%%x : %(x)s) outs(%%z : %(y)s) {
  ^bb0(%%a: i64, %%acc: i64):
    %%ne = arith.cmpi ne, %%a, %%ignore : i64
    %%one = arith.extui %%ne : i1 to i64
    %%s = arith.addi %%one, %%acc : i64
    linalg.yield %%s : i64
  } -> %(y)s
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "im": im, "om": om, "it": iters}

    def make(torch, dev, gen):
        labels = torch.randint(0, 50257, tuple(shape), generator=gen,
                               device=dev)
        drop = torch.rand(tuple(shape), generator=gen, device=dev) < 0.1
        return [torch.where(drop, torch.full_like(labels, -100), labels)]

    def ref(torch, xx):
        return [(xx != -100).sum(-1)]

    return ("count_%s_i64" % "x".join(map(str, shape)), ir, make, ref, ref)


def reduce_max_case(shape, axis, t="f32"):
    """A max-reduce over a non-trailing axis into a -inf fill (0xFF800000
    for f32): the fill folds into the serial kernel's initial value."""
    rank = len(shape)
    dims = ["d%d" % i for i in range(rank)]
    out_shape = [d for i, d in enumerate(shape) if i != axis]
    x, y = _tt(shape, t), _tt(out_shape, t)
    ninf = {"f32": "0xFF800000", "bf16": "0xFF80", "f16": "0xFC00"}[t]
    ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%ninf = arith.constant %(ninf)s : %(t)s
  %%e = tensor.empty() : %(y)s
  %%z = linalg.fill ins(%%ninf : %(t)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [affine_map<(%(d)s) -> (%(d)s)>, affine_map<(%(d)s) -> (%(od)s)>], iterator_types = [%(it)s]} ins(%%x : %(x)s) outs(%%z : %(y)s) {
  ^bb0(%%a: %(t)s, %%m: %(t)s):
    %%n = arith.maximumf %%a, %%m : %(t)s
    linalg.yield %%n : %(t)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "t": t, "ninf": ninf, "d": ", ".join(dims),
       "od": ", ".join(d for i, d in enumerate(dims) if i != axis),
       "it": ", ".join('"reduction"' if i == axis else '"parallel"'
                       for i in range(rank))}

    def make(torch, dev, gen):
        # Large negative values: a missing -inf init would show.
        return [(torch.randn(*shape, generator=gen, device=dev) - 100)
                .to(getattr(torch, TYPES[t]))]

    def ref(torch, xx):
        return [xx.double().amax(axis)]

    def torch_same_dtype(torch, xx):
        return [xx.amax(axis)]

    return ("reduce_max_%s_axis%d_%s" % ("x".join(map(str, shape)), axis, t),
            ir, make, ref, torch_same_dtype)


def bool_mask_case(rows=2, cols=100):
    """A padding mask as BERT's real IR computes it (torch-mlir 20261001):
    ids != 0 as i1, and-ed with a second i1 tensor, then selected into an
    additive f32 mask and added to scores. The fusion pass makes the i1
    chain a sinter.fused kernel whose i1 results are bytes in memory (a
    vector<N x i1> would pack them into bits: regression, the corpus
    check's BERT/GPT-2 failures of 2026-12-02)."""
    ids, keep = "tensor<%dx%dxi64>" % (rows, cols), "tensor<%dx%dxi1>" % (rows, cols)
    f = "tensor<%dx%dxf32>" % (rows, cols)
    m = "affine_map<(d0, d1) -> (d0, d1)>"
    ir = """func.func @main(%%ids: %(ids)s, %%keep: %(keep)s, %%s: %(f)s) -> (%(keep)s, %(f)s) {
  %%z = arith.constant 0 : i64
  %%zero = arith.constant 0.0 : f32
  %%ninf = arith.constant 0xFF7FFFFF : f32
  %%eb = tensor.empty() : %(keep)s
  %%ne = linalg.generic {indexing_maps = [%(m)s, %(m)s], iterator_types = ["parallel", "parallel"]} ins(%%ids : %(ids)s) outs(%%eb : %(keep)s) {
  ^bb0(%%i: i64, %%o: i1):
    %%c = arith.cmpi ne, %%i, %%z : i64
    linalg.yield %%c : i1
  } -> %(keep)s
  %%both = linalg.generic {indexing_maps = [%(m)s, %(m)s, %(m)s], iterator_types = ["parallel", "parallel"]} ins(%%ne, %%keep : %(keep)s, %(keep)s) outs(%%eb : %(keep)s) {
  ^bb0(%%a: i1, %%b: i1, %%o: i1):
    %%c = arith.andi %%a, %%b : i1
    linalg.yield %%c : i1
  } -> %(keep)s
  %%ef = tensor.empty() : %(f)s
  %%masked = linalg.generic {indexing_maps = [%(m)s, %(m)s, %(m)s], iterator_types = ["parallel", "parallel"]} ins(%%both, %%s : %(keep)s, %(f)s) outs(%%ef : %(f)s) {
  ^bb0(%%k: i1, %%x: f32, %%o: f32):
    %%add = arith.select %%k, %%zero, %%ninf : f32
    %%y = arith.addf %%x, %%add : f32
    linalg.yield %%y : f32
  } -> %(f)s
  return %%both, %%masked : %(keep)s, %(f)s
}
""" % {"ids": ids, "keep": keep, "f": f, "m": m}

    def make(torch, dev, gen):
        return [torch.randint(0, 3, (rows, cols), generator=gen, device=dev),
                torch.rand(rows, cols, generator=gen, device=dev) < 0.7,
                torch.randn(rows, cols, generator=gen, device=dev)]

    def ref(torch, i, k, x):
        both = (i != 0) & k
        low = torch.finfo(torch.float32).min
        add = torch.where(both, 0.0, low).double()
        return [both.double(), x.double() + add]

    def torch_same_dtype(torch, i, k, x):
        both = (i != 0) & k
        return [both, x + torch.where(both, 0.0, torch.finfo(torch.float32).min)]

    return ("bool_mask_%dx%d" % (rows, cols), ir, make, ref, torch_same_dtype)


def linear_bias_case(M=300, K=256, N=768, t="bf16", rounded_first=False):
    """A bf16 nn.Linear with a bias as torch-mlir 20261001 lowers it (GPT-2's
    Conv1D, normalize-frontend's narrow operands): an f32-accumulating
    matmul, then + the bias (bf16, widened to f32 by its own generic) and the
    rounding to bf16. The matmul takes the
    chain as its epilogue: one cublas_gemm with cuBLASLt's bias epilogue
    (the fallback kernel adds the bias the same way), no f32 product in
    memory. `rounded_first`: the form of AOTAutograd's addmm under bf16
    autocast -- the product rounded to bf16, then the bias added in bf16 --
    which rounds once as torch's addmm does (roundBiasOnce): the same one
    GEMM."""
    a, w, y = _tt([M, K], t), _tt([K, N], t), _tt([M, N], t)
    if rounded_first:
        chain = """  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%b : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dx%(t)s>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: %(t)s, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    %%s = arith.addf %%c, %%q : %(t)s
    linalg.yield %%s : %(t)s
  } -> %(y)s"""
    else:
        chain = """  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%bias : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dxf32>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: f32, %%o: %(t)s):
    %%s = arith.addf %%x, %%c : f32
    %%q = arith.truncf %%s : f32 to %(t)s
    linalg.yield %%q : %(t)s
  } -> %(y)s"""
    ir = """func.func @main(%%a: %(a)s, %%w: %(w)s, %%b: tensor<%(N)dx%(t)s>) -> %(y)s {
  %%eb = tensor.empty() : tensor<%(N)dxf32>
  %%bias = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%%b : tensor<%(N)dx%(t)s>) outs(%%eb : tensor<%(N)dxf32>) {
  ^bb0(%%v: %(t)s, %%o: f32):
    %%v32 = arith.extf %%v : %(t)s to f32
    linalg.yield %%v32 : f32
  } -> tensor<%(N)dxf32>
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(M)dx%(N)dxf32>
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%acc = linalg.matmul ins(%%a, %%w : %(a)s, %(w)s) outs(%%z : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%ey = tensor.empty() : %(y)s
""" + chain + """
  return %%r : %(y)s
}
"""
    ir = ir % {"a": a, "w": w, "y": y, "t": t, "M": M, "N": N}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(M, K, generator=gen, device=dev).to(dt),
                (torch.randn(K, N, generator=gen, device=dev) / 16).to(dt),
                torch.randn(N, generator=gen, device=dev).to(dt)]

    def ref(torch, aa, ww, bb):
        return [aa.double() @ ww.double() + bb.double()]

    def torch_same_dtype(torch, aa, ww, bb):
        return [(aa.float() @ ww.float() + bb.float()).to(aa.dtype)]

    name = "linear_bias_%dx%dx%d_%s%s" % (M, K, N, t,
                                         "_rounded_first" if rounded_first
                                         else "")
    LIBRARY_CALLS[name] = 1
    LAUNCHES[name] = 1  # the GEMM alone: no bias or rounding kernel
    return (name, ir, make, ref, torch_same_dtype)


_GELU_FORWARD_BODY = """  ^bb0(%%v: %(t)s, %%o: %(t)s):
    %%half = arith.constant 5.000000e-01 : %(t)s
    %%one = arith.constant 1.000000e+00 : %(t)s
    %%scale = arith.constant 7.968750e-01 : %(t)s
    %%cubic = arith.constant 4.467770e-02 : %(t)s
    %%c3 = arith.constant 3 : i64
    %%p = math.fpowi %%v, %%c3 : %(t)s, i64
    %%q = arith.mulf %%p, %%cubic : %(t)s
    %%r = arith.addf %%v, %%q : %(t)s
    %%u = arith.mulf %%r, %%scale : %(t)s
    %%th = math.tanh %%u : %(t)s
    %%s1 = arith.addf %%th, %%one : %(t)s
    %%s2 = arith.mulf %%s1, %%half : %(t)s
    %%y = arith.mulf %%v, %%s2 : %(t)s
    linalg.yield %%y : %(t)s"""

_GELU_BACKWARD_BODY = """  ^bb0(%%x: %(t)s, %%d: %(t)s, %%o: %(t)s):
    %%c0 = arith.constant 0.797884583 : f32
    %%c1 = arith.constant 1.000000e+00 : f32
    %%c2 = arith.constant 4.471500e-02 : f32
    %%c3 = arith.constant 1.341450e-01 : f32
    %%c4 = arith.constant 5.000000e-01 : f32
    %%x32 = arith.extf %%x : %(t)s to f32
    %%sq = arith.mulf %%x32, %%x32 : f32
    %%hx = arith.mulf %%x32, %%c4 : f32
    %%cu = arith.mulf %%sq, %%x32 : f32
    %%dq = arith.mulf %%sq, %%c3 : f32
    %%kq = arith.mulf %%cu, %%c2 : f32
    %%dp = arith.addf %%dq, %%c1 : f32
    %%in = arith.addf %%x32, %%kq : f32
    %%du = arith.mulf %%dp, %%c0 : f32
    %%u = arith.mulf %%in, %%c0 : f32
    %%th = math.tanh %%u : f32
    %%a1 = arith.addf %%th, %%c1 : f32
    %%t2 = arith.mulf %%th, %%th : f32
    %%a2 = arith.mulf %%a1, %%c4 : f32
    %%s2 = arith.subf %%c1, %%t2 : f32
    %%b1 = arith.mulf %%hx, %%s2 : f32
    %%b2 = arith.mulf %%b1, %%du : f32
    %%g = arith.addf %%a2, %%b2 : f32
    %%d32 = arith.extf %%d : %(t)s to f32
    %%r = arith.mulf %%d32, %%g : f32
    %%r16 = arith.truncf %%r : f32 to %(t)s
    linalg.yield %%r16 : %(t)s"""


def _gelu_tanh(torch, x):
    return 0.5 * x * (1 + torch.tanh(0.7978845608028654 *
                                     (x + 0.044715 * x ** 3)))


def _gelu_tanh_grad(torch, x):
    t = torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (
        1 + 3 * 0.044715 * x * x)


def mlp_gelu_case(M=300, K=256, N=768, t="bf16", backward=False):
    """GPT-2's MLP GELU as torch-mlir 20261001 writes it in a bf16 training
    graph. Forward: the first matmul's bias add, then GELU's tanh form in
    bf16 arithmetic (bf16-rounded constants); both the pre-activation and
    the GELU are results (the backward saves one, the next matmul reads the
    other): one cublas_gemm with cuBLASLt's GELU_AUX_BIAS epilogue
    (GeluEpilogue.cpp). Backward: the gradient of the GELU's output (a
    matmul rounded to bf16) times GELU's derivative at the saved
    pre-activation, in f32: one cublas_gemm with DGELU."""
    d = {"t": t, "M": M, "N": N, "K": K, "y": _tt([M, N], t),
         "a": _tt([M, K], t), "w": _tt([K, N], t),
         "id": "affine_map<(d0, d1) -> (d0, d1)>",
         "col": "affine_map<(d0, d1) -> (d1)>"}
    head = """  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(M)dx%(N)dxf32>
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%acc = linalg.matmul ins(%%a, %%w : %(a)s, %(w)s) outs(%%z : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%ey = tensor.empty() : %(y)s
"""
    if not backward:
        ir = ("""func.func @main(%%a: %(a)s, %%w: %(w)s, %%b: tensor<%(N)dx%(t)s>) -> (%(y)s, %(y)s) {
""" + head + """  %%h = linalg.generic {indexing_maps = [%(id)s, %(col)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%b : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dx%(t)s>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: %(t)s, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    %%s = arith.addf %%c, %%q : %(t)s
    linalg.yield %%s : %(t)s
  } -> %(y)s
  %%g = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%h : %(y)s) outs(%%ey : %(y)s) {
""" + _GELU_FORWARD_BODY + """
  } -> %(y)s
  return %%g, %%h : %(y)s, %(y)s
}
""") % d
    else:
        ir = ("""func.func @main(%%a: %(a)s, %%w: %(w)s, %%h: %(y)s) -> %(y)s {
""" + head + """  %%dg = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%acc : tensor<%(M)dx%(N)dxf32>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%q : %(t)s
  } -> %(y)s
  %%dh = linalg.generic {indexing_maps = [%(id)s, %(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%h, %%dg : %(y)s, %(y)s) outs(%%ey : %(y)s) {
""" + _GELU_BACKWARD_BODY + """
  } -> %(y)s
  return %%dh : %(y)s
}
""") % d

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        third = (torch.randn(N, generator=gen, device=dev) if not backward
                 else 2 * torch.randn(M, N, generator=gen, device=dev))
        return [torch.randn(M, K, generator=gen, device=dev).to(dt),
                (torch.randn(K, N, generator=gen, device=dev) / 16).to(dt),
                third.to(dt)]

    def ref(torch, aa, ww, cc):
        prod = aa.double() @ ww.double()
        if backward:
            return [prod * _gelu_tanh_grad(torch, cc.double())]
        pre = prod + cc.double()
        return [_gelu_tanh(torch, pre), pre]

    def torch_same_dtype(torch, aa, ww, cc):
        prod = aa.float() @ ww.float()
        if backward:
            return [torch.ops.aten.gelu_backward(
                prod.to(aa.dtype).float(), cc.float(),
                approximate="tanh").to(aa.dtype)]
        pre = (prod + cc.float()).to(aa.dtype)
        return [torch.nn.functional.gelu(pre.float(), approximate="tanh")
                .to(aa.dtype), pre]

    name = "mlp_gelu%s_%dx%dx%d_%s" % ("_backward" if backward else "",
                                       M, K, N, t)
    LIBRARY_CALLS[name] = 1
    LAUNCHES[name] = 1  # the GEMM alone: no GELU kernel
    return (name, ir, make, ref, torch_same_dtype)


def qkv_heads_case(B=2, S=33, H=4, D=64, which=1, t="bf16"):
    """One of Q, K, V as GPT-2's real IR takes it from the fused projection
    (slice, split into heads, transpose): the transpose reads the
    projection in place at the slice's offset (no copy kernel)."""
    x, y = _tt([B, S, 3 * H * D], t), _tt([B, H, S, D], t)
    ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%s = tensor.extract_slice %%x[0, 0, %(off)d] [%(B)d, %(S)d, %(HD)d] [1, 1, 1] : %(x)s to tensor<%(B)dx%(S)dx%(HD)dx%(t)s>
  %%e = tensor.expand_shape %%s [[0], [1], [2, 3]] output_shape [%(B)d, %(S)d, %(H)d, %(D)d] : tensor<%(B)dx%(S)dx%(HD)dx%(t)s> into tensor<%(B)dx%(S)dx%(H)dx%(D)dx%(t)s>
  %%init = tensor.empty() : %(y)s
  %%r = linalg.transpose ins(%%e : tensor<%(B)dx%(S)dx%(H)dx%(D)dx%(t)s>) outs(%%init : %(y)s) permutation = [0, 2, 1, 3]
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "t": t, "B": B, "S": S, "H": H, "D": D,
       "HD": H * D, "off": which * H * D}

    def make(torch, dev, gen):
        return [torch.randn(B, S, 3 * H * D, generator=gen, device=dev)
                .to(getattr(torch, TYPES[t]))]

    def heads(xx):
        part = xx[:, :, which * H * D:(which + 1) * H * D]
        return part.reshape(B, S, H, D).transpose(1, 2)

    def ref(torch, xx):
        return [heads(xx.double())]

    def torch_same_dtype(torch, xx):
        return [heads(xx).contiguous()]

    return ("qkv_heads_b%ds%dh%dd%d_%d_%s" % (B, S, H, D, which, t), ir, make,
            ref, torch_same_dtype)


def fpowi_case(rows=7, cols=1024, exponent=3):
    """x ** 3 as torch-mlir 20261001 lowers GPT-2's and Gemma-2's tanh-GELU
    (`math.fpowi %x, %c3_i64`, an i64 exponent): libdevice's __nv_powif
    takes an i32 (regression: GPT-2 and Gemma-2 wrong on the H200 in the
    corpus check of 2026-12-02). Negative bases check the sign."""
    x = _tt([rows, cols], "f32")
    ir = """func.func @main(%%x: %(x)s) -> %(x)s {
  %%n = arith.constant %(n)d : i64
  %%e = tensor.empty() : %(x)s
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%x : %(x)s) outs(%%e : %(x)s) {
  ^bb0(%%a: f32, %%o: f32):
    %%p = math.fpowi %%a, %%n : f32, i64
    linalg.yield %%p : f32
  } -> %(x)s
  return %%r : %(x)s
}
""" % {"x": x, "n": exponent}

    def make(torch, dev, gen):
        return [torch.randn(rows, cols, generator=gen, device=dev) * 3]

    def ref(torch, xx):
        return [xx.double() ** exponent]

    def torch_same_dtype(torch, xx):
        return [xx ** exponent]

    return ("fpowi_i64_%d_%dx%d" % (exponent, rows, cols), ir, make, ref,
            torch_same_dtype)


def odd_slice_case(rows=3, cols=101, start=1, width=64, t="bf16"):
    """A slice of rows of odd length at an odd offset (gemma2's real IR
    slices position ids so): the copy kernel reads element by element where
    vector loads would be misaligned (regression: CUDA_ERROR_MISALIGNED_
    ADDRESS in the corpus check of 2026-12-02)."""
    x, y = _tt([rows, cols], t), _tt([rows, width], t)
    ir = """func.func @main(%%x: %(x)s) -> %(y)s {
  %%s = tensor.extract_slice %%x[0, %(start)d] [%(rows)d, %(width)d] [1, 1] : %(x)s to %(y)s
  %%e = tensor.empty() : %(y)s
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%s : %(y)s) outs(%%e : %(y)s) {
  ^bb0(%%a: %(t)s, %%o: %(t)s):
    %%n = arith.negf %%a : %(t)s
    linalg.yield %%n : %(t)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % {"x": x, "y": y, "t": t, "start": start, "rows": rows, "width": width}

    def make(torch, dev, gen):
        return [torch.randn(rows, cols, generator=gen, device=dev)
                .to(getattr(torch, TYPES[t]))]

    def ref(torch, xx):
        return [-xx.double()[:, start:start + width]]

    def torch_same_dtype(torch, xx):
        return [-xx[:, start:start + width]]

    return ("odd_slice_%dx%d_at%d_%s" % (rows, cols, start, t), ir, make, ref,
            torch_same_dtype)


def matmul_transposed_b_case(M, K, N, t="f32", batch=None):
    """x @ w^T with w stored [N, K]: linalg.matmul (or batch_matmul) with
    user indexing maps into a zero fill, as torch-mlir emits a linear layer.
    The tiled matmul kernel takes default maps only; this runs on the serial
    kernel (f32 accumulation, one rounding per result)."""
    b = [batch] if batch else []
    a_t, w_t, c_t = _tt(b + [M, K], t), _tt(b + [N, K], t), _tt(b + [M, N], t)
    if batch:
        op = "linalg.batch_matmul"
        maps = ("affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>")
    else:
        op = "linalg.matmul"
        maps = ("affine_map<(d0, d1, d2) -> (d0, d2)>, "
                "affine_map<(d0, d1, d2) -> (d1, d2)>, "
                "affine_map<(d0, d1, d2) -> (d0, d1)>")
    ir = """func.func @main(%%x: %(a)s, %%w: %(w)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(t)s
  %%e = tensor.empty() : %(c)s
  %%z = linalg.fill ins(%%zero : %(t)s) outs(%%e : %(c)s) -> %(c)s
  %%r = %(op)s indexing_maps = [%(maps)s] ins(%%x, %%w : %(a)s, %(w)s) outs(%%z : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % {"a": a_t, "w": w_t, "c": c_t, "t": t, "op": op, "maps": maps}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(*(b + [M, K]), generator=gen, device=dev).to(dt),
                (torch.randn(*(b + [N, K]), generator=gen, device=dev)
                 / K ** 0.5).to(dt)]

    def ref(torch, x, w):
        return [x.double() @ w.double().transpose(-1, -2)]

    def torch_same_dtype(torch, x, w):
        return [x @ w.transpose(-1, -2)]

    name = "%smatmul_tb_%s%dx%dx%d_%s" % ("batch_" if batch else "",
                                          "%dx" % batch if batch else "",
                                          M, K, N, t)
    return name, ir, make, ref, torch_same_dtype


def matmul_case(M, K, N, t="bf16", batch=None, accumulate=False, out_t=None,
                path="cublas", trans=""):
    """A leftover linalg.matmul (or batch_matmul) with the default maps:
    C = A x B into a zero fill, or C = C0 + A x B with `accumulate` (C0 an
    argument). With path "cublas" (sinterc's default) it is a cuBLASLt
    library call (a cublas_gemm entry) whose fallback is the CUDA-core
    kernel; with "kernel" (--cuda-matmul=kernel) the kernel alone.
    `out_t` (default `t`) is C's type (f32 out of bf16/f16 inputs).
    `trans` "a", "b" or "ab": those operands arrive stored transposed and
    pass through linalg.transpose, as torch-mlir lowers nn.Linear (x @
    W^T) and weight gradients (dY^T @ x); the matmul reads them in place
    (no transpose kernel: the program is its one launch)."""
    out_t = out_t or t
    bs = [batch] if batch else []
    a_t, b_t = _tt(bs + [M, K], t), _tt(bs + [K, N], t)
    c_t = _tt(bs + [M, N], out_t)
    swap = [0, 2, 1] if batch else [1, 0]
    stored = {"a": bs + ([K, M] if "a" in trans else [M, K]),
              "b": bs + ([N, K] if "b" in trans else [K, N])}
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    if accumulate:
        args, init, fill = ", %%c0: %s" % c_t, "%c0", ""
    else:
        args, init = "", "%z"
        fill = """  %%zero = arith.constant 0.0 : %(ct)s
  %%e = tensor.empty() : %(c)s
  %%z = linalg.fill ins(%%zero : %(ct)s) outs(%%e : %(c)s) -> %(c)s
""" % {"ct": out_t, "c": c_t}
    # Operands stored transposed, then transposed back for the matmul.
    transposes = ""
    for x, logical in (("a", a_t), ("b", b_t)):
        if x in trans:
            transposes += (
                "  %%%s_e = tensor.empty() : %s\n  %%%s_l = linalg.transpose "
                "ins(%%%s : %s) outs(%%%s_e : %s) permutation = [%s]\n" % (
                    x, logical, x, x, _tt(stored[x], t), x, logical,
                    ", ".join(map(str, swap))))
    va = "%a_l" if "a" in trans else "%a"
    vb = "%b_l" if "b" in trans else "%b"
    ir = """func.func @main(%%a: %(sa)s, %%b: %(sb)s%(args)s) -> %(c)s {
%(fill)s%(tr)s  %%r = %(op)s ins(%(va)s, %(vb)s : %(a)s, %(b)s) outs(%(init)s : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % {"a": a_t, "b": b_t, "c": c_t, "args": args, "fill": fill, "op": op,
       "init": init, "sa": _tt(stored["a"], t), "sb": _tt(stored["b"], t),
       "tr": transposes, "va": va, "vb": vb}

    def logical(x, which):
        return x.transpose(-1, -2) if which in trans else x

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [torch.randn(*stored["a"], generator=gen, device=dev).to(dt),
               (torch.randn(*stored["b"], generator=gen, device=dev)
                / K ** 0.5).to(dt)]
        if accumulate:
            ins.append(torch.randn(*(bs + [M, N]), generator=gen, device=dev)
                       .to(getattr(torch, TYPES[out_t])))
        return ins

    def ref(torch, a, b, c0=None):
        r = logical(a, "a").double() @ logical(b, "b").double()
        return [r + c0.double() if c0 is not None else r]

    def torch_same_dtype(torch, a, b, c0=None):
        a, b = logical(a, "a"), logical(b, "b")
        if out_t != t:  # f32 results of bf16/f16 inputs: f32 products
            a, b = a.float(), b.float()
        if c0 is None:
            return [a @ b]
        return [torch.baddbmm(c0, a, b) if batch else torch.addmm(c0, a, b)]

    name = "%smatmul_%s%dx%dx%d_%s%s%s%s%s" % (
        "batch_" if batch else "", "%dx" % batch if batch else "", M, K, N, t,
        "_to_" + out_t if out_t != t else "", "_acc" if accumulate else "",
        "_t" + trans if trans else "", "_kernel" if path == "kernel" else "")
    LIBRARY_CALLS[name] = 1 if path == "cublas" else 0
    # Transposes read in place: the program is the GEMM, and a transpose
    # kernel for each operand whose stored rows are misaligned for cuBLASLt
    # where its transposed copy's are not (the copy is kept then). Not
    # counted when the rows are padded (2MNK >= 1e9, sinter-pad-matmuls).
    def aligned(n):
        return n * {"f32": 4}.get(t, 2) % 16 == 0
    kept = sum(1 for x, stored_rows, copy_rows in (("a", M, K), ("b", K, N))
               if x in trans and not aligned(stored_rows) and
               aligned(copy_rows))
    if trans and 2.0 * M * N * K < 1e9:
        LAUNCHES[name] = 1 + kept
    if path == "kernel":
        FLAGS[name] = ["--cuda-matmul=kernel"]
    return name, ir, make, ref, torch_same_dtype


def matmul_cases():
    """Leftover matmuls through cuBLASLt (library calls) and, the same
    cases again, through the CUDA-core kernel alone: ragged and GPT-block
    (QKV projection) shapes, plain and batched, bf16, f16 and f32, zero
    fills and accumulation into an initial C, f32 results of bf16."""
    cases = []
    for path in ("cublas", "kernel"):
        for t in ("bf16", "f16", "f32"):
            for M, K, N in ((127, 257, 65), (256, 768, 2304)):
                cases.append(matmul_case(M, K, N, t, path=path))
                cases.append(matmul_case(M, K, N, t, batch=3 if M == 127
                                         else 2, path=path))
        cases.append(matmul_case(127, 257, 65, "bf16", accumulate=True,
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "f16", batch=3,
                                 accumulate=True, path=path))
        cases.append(matmul_case(33, 64, 40, "f32", batch=2, accumulate=True,
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "bf16", out_t="f32",
                                 path=path))
        # Operands read around their transposes (nn.Linear, dW = dY^T x).
        cases.append(matmul_case(256, 768, 2304, "bf16", trans="b",
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "f32", trans="a", path=path))
        cases.append(matmul_case(127, 257, 65, "f16", batch=3, trans="ab",
                                 accumulate=True, path=path))
        cases.append(matmul_case(130, 96, 257, "bf16", out_t="f32",
                                 trans="ab", path=path))
    # Misaligned rows padded for cuBLASLt (sinter-pad-matmuls): an lm_head
    # (x @ W^T, odd N), its input gradient (odd K) and weight gradient
    # (dY^T x, odd M).
    cases.append(matmul_case(512, 768, 1365, "bf16", out_t="f32", trans="b"))
    cases.append(matmul_case(512, 1365, 768, "bf16", out_t="f32"))
    cases.append(matmul_case(1365, 512, 768, "bf16", out_t="f32", trans="a"))
    return cases


def dropout_residual_case(rows, cols, t="bf16", p=0.1, seed=1234567890123):
    """y = residual + dropout(x, p): the mask must be exactly the Philox
    stream of the element's row-major offset."""
    x = _tt([rows, cols], t)
    ext = "arith.extf %%%s : %s to f32" if t != "f32" else None
    body_in = ("%%a = arith.extf %%xv : %s to f32\n    %%c = arith.extf %%rv : "
               "%s to f32" % (t, t)) if t != "f32" else (
        "%a = arith.addf %xv, %z : f32\n    %c = arith.addf %rv, %z : f32")
    body_out = ("%%o = arith.truncf %%s : f32 to %s" % t) if t != "f32" else (
        "%o = arith.addf %s, %z : f32")
    del ext
    ir = """func.func @main(%%x: %s, %%r: %s, %%seed: i64) -> %s {
  %%y = sinter.fused ins(%%x, %%r, %%seed : %s, %s, i64) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%%xv: %s, %%rv: %s, %%sv: i64):
    %%z = arith.constant 0.0 : f32
    %s
    %%d = sinter.dropout %%a, %%sv p = %e : f32
    %%s = arith.addf %%d, %%c : f32
    %s
    sinter.yield %%o : %s
  } -> %s
  return %%y : %s
}
""" % (x, x, x, x, x, t, t, body_in, p, body_out, t, x, x)

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
                torch.randn(rows, cols, generator=gen, device=dev).to(dt),
                seed]

    def keep_mask(torch, dev):
        import refs
        return torch.from_numpy(refs.dropout_keep((rows, cols), seed, p)).to(dev)

    def ref(torch, xx, rr, _seed):
        keep = keep_mask(torch, xx.device)
        return [rr.double() + torch.where(keep, xx.double() / (1 - p), 0.0)]

    def torch_same_dtype(torch, xx, rr, _seed):
        keep = keep_mask(torch, xx.device)
        return [rr + torch.where(keep, xx / (1 - p), torch.zeros_like(xx))]

    return ("dropout_residual_%dx%d_%s_p%g" % (rows, cols, t, p), ir, make,
            ref, torch_same_dtype)


def residual_norm_case(rows, cols, t="bf16", norm="layer_norm"):
    """A pre-norm block's residual add and norm: s = x + y (rounded to `t`,
    as the program says), n = norm(s), both returned. The norm kernel
    computes s itself and stores it (lib/GPU/NormPrologue.cpp): the
    program is one launch."""
    x = _tt([rows, cols], t)
    w = _tt([cols], t)
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    affine = " weight(%%w : %s) bias(%%b : %s)" % (w, w) if norm == "layer_norm" \
        else " weight(%%w : %s)" % w
    args = ", %%w: %s, %%b: %s" % (w, w) if norm == "layer_norm" \
        else ", %%w: %s" % w
    ir = """func.func @main(%%x: %(x)s, %%y: %(x)s%(args)s) -> (%(x)s, %(x)s) {
  %%s = sinter.fused ins(%%x, %%y : %(x)s, %(x)s) maps [%(id)s, %(id)s] {
  ^bb0(%%a: %(t)s, %%c: %(t)s):
    %%r = arith.addf %%a, %%c : %(t)s
    sinter.yield %%r : %(t)s
  } -> %(x)s
  %%n = sinter.%(norm)s %%s%(affine)s : %(x)s -> %(x)s
  return %%n, %%s : %(x)s, %(x)s
}
""" % {"x": x, "t": t, "id": ident, "norm": norm, "affine": affine,
       "args": args}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
               torch.randn(rows, cols, generator=gen, device=dev).to(dt),
               (1 + 0.1 * torch.randn(cols, generator=gen, device=dev)).to(dt)]
        if norm == "layer_norm":
            ins.append((0.1 * torch.randn(cols, generator=gen,
                                          device=dev)).to(dt))
        return ins

    def apply(torch, s, w, b, dtype):
        F = torch.nn.functional
        s, w = s.to(dtype), w.to(dtype)
        if norm == "layer_norm":
            return F.layer_norm(s, (cols,), w, b.to(dtype), 1e-5)
        return F.rms_norm(s, (cols,), w, 1e-6)

    def ref(torch, xx, yy, w, b=None):
        s = xx + yy  # the program's sum, rounded to its type
        return [apply(torch, s, w, b, torch.float64), s.double()]

    def torch_same_dtype(torch, xx, yy, w, b=None):
        s = xx + yy
        return [apply(torch, s, w, b, s.dtype), s]

    name = "residual_%s_%dx%d_%s" % (norm, rows, cols, t)
    LAUNCHES[name] = 1
    return name, ir, make, ref, torch_same_dtype


def logsumexp_case(rows, cols, guard=True):
    """torch-mlir's log_softmax statistics (a cross-entropy over a
    vocabulary): the row max of the logits rounded to bf16, then the sum of
    exp(logit - g(max)) with g torch's guard (an infinite max counts as 0)
    or the max itself. sinter-online-logsumexp makes them one online
    reduction (a warp per row) and a fixup. Special rows: all -inf (max
    -inf, sum 0 with the guard), one +inf and two +inf (sum inf with the
    guard), finite values near -200 (the rescale of an empty sum must not
    make 0 * inf)."""
    x = _tt([rows, cols], "f32")
    y = _tt([rows], "f32")
    e = _tt([rows, 1], "f32")
    g = ("""%ab = math.absf %m1 : f32
    %ab64 = arith.extf %ab : f32 to f64
    %isinf = arith.cmpf oeq, %ab64, %inf64 : f64
    %g = arith.select %isinf, %zero, %m2 : f32""" if guard else
         "%g = arith.addf %m1, %zero : f32")
    ir = """#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @main(%%x: %(x)s) -> (%(y)s, %(y)s) {
  %%zero = arith.constant 0.0 : f32
  %%ninf = arith.constant 0xFF800000 : f32
  %%inf64 = arith.constant 0x7FF0000000000000 : f64
  %%empty = tensor.empty() : %(y)s
  %%minf = linalg.fill ins(%%ninf : f32) outs(%%empty : %(y)s) -> %(y)s
  %%max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%%x : %(x)s) outs(%%minf : %(y)s) {
  ^bb0(%%in: f32, %%acc: f32):
    %%r = arith.truncf %%in : f32 to bf16
    %%a = arith.extf %%r : bf16 to f32
    %%n = arith.maximumf %%a, %%acc : f32
    linalg.yield %%n : f32
  } -> %(y)s
  %%me = tensor.expand_shape %%max [[0, 1]] output_shape [%(rows)d, 1] : %(y)s into %(e)s
  %%zeros = linalg.fill ins(%%zero : f32) outs(%%empty : %(y)s) -> %(y)s
  %%sum = linalg.generic {indexing_maps = [#x, #bc, #bc, #row], iterator_types = ["parallel", "reduction"]} ins(%%x, %%me, %%me : %(x)s, %(e)s, %(e)s) outs(%%zeros : %(y)s) {
  ^bb0(%%in: f32, %%m1: f32, %%m2: f32, %%acc: f32):
    %(g)s
    %%r = arith.truncf %%in : f32 to bf16
    %%a = arith.extf %%r : bf16 to f32
    %%d = arith.subf %%a, %%g : f32
    %%ex = math.exp %%d : f32
    %%s = arith.addf %%ex, %%acc : f32
    linalg.yield %%s : f32
  } -> %(y)s
  return %%max, %%sum : %(y)s, %(y)s
}
""" % {"x": x, "y": y, "e": e, "rows": rows, "g": g}

    def make(torch, dev, gen):
        v = torch.randn(rows, cols, generator=gen, device=dev) * 4
        # (Without the guard the two passes give NaN for the special rows,
        # which the checker cannot compare; the CPU lit test
        # online-logsumexp.mlir covers them.)
        if guard and rows >= 5:
            v[0] = float("-inf")
            v[1, cols // 3] = float("inf")
            v[2, 1] = v[2, cols - 1] = float("inf")
            v[3] = v[3] - 200
            v[4, :cols // 2] = float("-inf")
        return [v]

    def stats(torch, xx, dtype):
        a = xx.to(torch.bfloat16).to(dtype)
        m = a.amax(1)
        g = torch.where(m.isinf(), torch.zeros_like(m), m) if guard else m
        return [m, (a - g[:, None]).exp().sum(1)]

    return ("logsumexp_%dx%d%s" % (rows, cols, "" if guard else "_noguard"),
            ir, make, lambda torch, xx: stats(torch, xx, torch.float64),
            lambda torch, xx: stats(torch, xx, torch.float32))
