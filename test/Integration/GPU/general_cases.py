# Part of the Sinter project.
"""GPU cases of what real models leave beside the tuned kernels (unfused
matmuls are in matmul_cases.py): reductions and elementwise generics on the
general path, masks of booleans, slices read in place, integer powers,
dropout with a residual. Each case is as in gpu_cases.py, which collects
them."""

from case_common import LAUNCHES, LIBRARY_CALLS, TYPES, _tt  # noqa: F401


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


def combined_casts_case():
    """A model's weight casts under autocast, independent elementwise
    kernels of several grids and block sizes (one block of 96 threads, a
    ragged last block, 432 blocks), run as one combined launch
    (sinter-combine-launches): each member's blocks must compute what its
    own launch did. The manifest holds exactly one launch."""
    shapes = [[768, 2304], [2304], [768], [3, 5], [1000, 7]]
    ts = [_tt(sh, "f32") for sh in shapes]
    bs = [_tt(sh, "bf16") for sh in shapes]
    args = ", ".join("%%x%d: %s" % (i, t) for i, t in enumerate(ts))
    body = "\n".join(
        "  %%y%d = arith.truncf %%x%d : %s to %s" % (i, i, t, b)
        for i, (t, b) in enumerate(zip(ts, bs)))
    ir = """func.func @main(%s) -> (%s) {
%s
  return %s : %s
}
""" % (args, ", ".join(bs), body,
       ", ".join("%%y%d" % i for i in range(len(shapes))), ", ".join(bs))

    def make(torch, dev, gen):
        return [torch.randn(*sh, generator=gen, device=dev) for sh in shapes]

    def ref(torch, *xs):
        return [x.to(torch.bfloat16).double() for x in xs]

    def torch_same_dtype(torch, *xs):
        return [x.to(torch.bfloat16) for x in xs]

    name = "combined_casts_5"
    LAUNCHES[name] = 1
    return name, ir, make, ref, torch_same_dtype
