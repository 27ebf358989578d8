# Part of the Sinter project.
"""GPU cases of the kernels that move data between the fused ones: high
pads run over the padded shape with their producer inside
(lib/GPU/PadKernel.cpp), concatenations as one in-place kernel per part
(lib/GPU/ConcatKernel.cpp), rows of odd length in 16-byte slots and
aranges computed instead of loaded (lib/GPU/FusedKernel.cpp). Each case is
as in gpu_cases.py, which collects them."""

from case_common import TYPES, _tt


def padded_chain_case(rows, cols, pad_rows, pad_cols, t="bf16",
                      producer="fused", value=0.0):
    """A high pad of an elementwise result, run as one kernel over the
    padded shape (lib/GPU/PadKernel.cpp). producer="fused": a cross-entropy
    gradient softmax(x) - onehot(label) as GPT-2's real backward computes
    it (row-broadcast lse, a column iota, a per-row label), padded for the
    dX/dW GEMMs, its body in the pad's kernel; "generic": an unfused
    elementwise generic, fused the same way; "copy": the pad of an
    argument. Lanes past the source store `value`."""
    x = _tt([rows, cols], t)
    y = _tt([rows + pad_rows, cols + pad_cols], t)
    ext = ("%%e = arith.extf %%a : %s to f32" % t) if t != "f32" else \
        "%e = arith.addf %a, %zero : f32"
    trunc = ("%%r = arith.truncf %%d : f32 to %s" % t) if t != "f32" else \
        "%r = arith.addf %d, %zero : f32"
    body = """    %%zero = arith.constant 0.0 : f32
    %(ext)s
    %%eq = arith.cmpi eq, %%c, %%l : i64
    %%s = arith.subf %%e, %%m : f32
    %%oh = arith.uitofp %%eq : i1 to f32
    %%p = math.exp %%s : f32
    %%d = arith.subf %%p, %%oh : f32
    %(trunc)s""" % {"ext": ext, "trunc": trunc}
    row = "affine_map<(d0, d1) -> (d0, 0)>"
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    col = "affine_map<(d0, d1) -> (0, d1)>"
    ins = "ins(%%x, %%cols, %%lab, %%lse : %s, tensor<1x%dxi64>, " \
        "tensor<%dx1xi64>, tensor<%dx1xf32>)" % (x, cols, rows, rows)
    # The one-hot's columns as torch-mlir writes them: an arange (an
    # index-only generic the kernel computes in place of loading it).
    iota = """  %%ie = tensor.empty() : tensor<%(c)dxi64>
  %%iota = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%%ie : tensor<%(c)dxi64>) {
  ^bb0(%%o: i64):
    %%i = linalg.index 0 : index
    %%ii = arith.index_cast %%i : index to i64
    linalg.yield %%ii : i64
  } -> tensor<%(c)dxi64>
  %%cols = tensor.expand_shape %%iota [[0, 1]] output_shape [1, %(c)d] : tensor<%(c)dxi64> into tensor<1x%(c)dxi64>
""" % {"c": cols}
    if producer == "fused":
        chain = """  %%g = sinter.fused %s maps [%s, %s, %s, %s] {
  ^bb0(%%a: %s, %%c: i64, %%l: i64, %%m: f32):
%s
    sinter.yield %%r : %s
  } -> %s""" % (ins, ident, col, row, row, t, body, t, x)
    elif producer == "generic":
        chain = """  %%init = tensor.empty() : %s
  %%g = linalg.generic {indexing_maps = [%s, %s, %s, %s, %s], iterator_types = ["parallel", "parallel"]} %s outs(%%init : %s) {
  ^bb0(%%a: %s, %%c: i64, %%l: i64, %%m: f32, %%o: %s):
%s
    linalg.yield %%r : %s
  } -> %s""" % (x, ident, col, row, row, ident, ins, x, t, t, body, t, x)
    else:
        chain = ""
    src = "%g" if producer != "copy" else "%x"
    ir = """func.func @main(%%x: %(x)s, %%lab: tensor<%(rows)dx1xi64>, %%lse: tensor<%(rows)dx1xf32>) -> %(y)s {
%(iota)s%(chain)s
  %%v = arith.constant %(value)e : %(t)s
  %%p = tensor.pad %(src)s low[0, 0] high[%(pr)d, %(pc)d] {
  ^bb0(%%i: index, %%j: index):
    tensor.yield %%v : %(t)s
  } : %(x)s to %(y)s
  return %%p : %(y)s
}
""" % {"x": x, "y": y, "t": t, "rows": rows, "cols": cols, "chain": chain,
       "value": value, "src": src, "pr": pad_rows, "pc": pad_cols,
       "iota": iota if producer != "copy" else ""}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
                torch.randint(0, cols, (rows, 1), generator=gen, device=dev),
                torch.randn(rows, 1, generator=gen, device=dev) + 3.0]

    def chain_of(torch, xx, ll, mm, to):
        cc = torch.arange(cols, device=xx.device)[None, :]
        if producer == "copy":
            return to(xx)
        e = to(xx) if to is not None else xx.float()
        m = mm.double() if e.dtype == torch.float64 else mm
        g = torch.exp(e - m) - (cc == ll).to(e.dtype)
        return g

    def pad(torch, g):
        return torch.nn.functional.pad(g, (0, pad_cols, 0, pad_rows),
                                       value=value)

    def ref(torch, xx, ll, mm):
        return [pad(torch, chain_of(torch, xx, ll, mm, lambda v: v.double()))]

    def torch_same_dtype(torch, xx, ll, mm):
        if producer == "copy":
            return [pad(torch, xx)]
        g = chain_of(torch, xx, ll, mm, lambda v: v.float())
        return [pad(torch, g.to(xx.dtype))]

    return ("padded_%s_%dx%d_pad%dx%d_%s" % (producer, rows, cols, pad_rows,
                                             pad_cols, t), ir, make, ref,
            torch_same_dtype)


def concat_heads_case(B=2, S=33, H=3, D=64, t="bf16"):
    """GPT-2's backward joins dQ, dK and dV: each transposed from heads
    [B, H, S, D] to [B, S, H*D] and concatenated along the last dimension
    (lib/GPU/ConcatKernel.cpp: one kernel per part, the transpose in it,
    storing into the concatenation's buffer); a fourth part is an argument
    (a copy) and a fifth an elementwise op."""
    g = _tt([B, H, S, D], t)
    h = _tt([B, S, H, D], t)
    c = _tt([B, S, H * D], t)
    a = _tt([B, S, 8], t)
    y = _tt([B, S, 3 * H * D + 16], t)
    parts = []
    for i in range(3):
        parts.append("""  %%t%(i)d = linalg.transpose ins(%%g%(i)d : %(g)s) outs(%%e : %(h)s) permutation = [0, 2, 1, 3]
  %%c%(i)d = tensor.collapse_shape %%t%(i)d [[0], [1], [2, 3]] : %(h)s into %(c)s""" % {
            "i": i, "g": g, "h": h, "c": c})
    ir = """func.func @main(%%g0: %(g)s, %%g1: %(g)s, %%g2: %(g)s, %%a: %(a)s) -> %(y)s {
  %%e = tensor.empty() : %(h)s
%(parts)s
  %%n = sinter.fused ins(%%a : %(a)s) maps [affine_map<(d0, d1, d2) -> (d0, d1, d2)>] {
  ^bb0(%%v: %(t)s):
    %%r = arith.negf %%v : %(t)s
    sinter.yield %%r : %(t)s
  } -> %(a)s
  %%y = tensor.concat dim(2) %%c0, %%c1, %%c2, %%a, %%n : (%(c)s, %(c)s, %(c)s, %(a)s, %(a)s) -> %(y)s
  return %%y : %(y)s
}
""" % {"g": g, "h": h, "c": c, "a": a, "y": y, "t": t,
       "parts": "\n".join(parts)}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(B, H, S, D, generator=gen, device=dev).to(dt)
                for _ in range(3)] + [
            torch.randn(B, S, 8, generator=gen, device=dev).to(dt)]

    def joined(torch, gs, aa):
        heads = [x.transpose(1, 2).reshape(B, S, H * D) for x in gs]
        return torch.cat(heads + [aa, -aa], dim=2)

    def ref(torch, g0, g1, g2, aa):
        return [joined(torch, [g0.double(), g1.double(), g2.double()],
                       aa.double())]

    def torch_same_dtype(torch, g0, g1, g2, aa):
        return [joined(torch, [g0, g1, g2], aa)]

    return ("concat_heads_b%d_s%d_h%d_d%d_%s" % (B, S, H, D, t), ir, make,
            ref, torch_same_dtype)


def concat_rows_case(t="f32"):
    """A concatenation along an outer dimension of parts of odd sizes (their
    rows of 37 elements: stores element by element), one of them an
    elementwise generic, one an argument."""
    x = _tt([5, 37], t)
    z = _tt([3, 37], t)
    y = _tt([13, 37], t)
    ir = """func.func @main(%%x: %(x)s, %%z: %(z)s) -> %(y)s {
  %%e = tensor.empty() : %(x)s
  %%s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%x : %(x)s) outs(%%e : %(x)s) {
  ^bb0(%%v: %(t)s, %%o: %(t)s):
    %%r = arith.mulf %%v, %%v : %(t)s
    linalg.yield %%r : %(t)s
  } -> %(x)s
  %%y = tensor.concat dim(0) %%z, %%s, %%x : (%(z)s, %(x)s, %(x)s) -> %(y)s
  return %%y : %(y)s
}
""" % {"x": x, "z": z, "y": y, "t": t}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(5, 37, generator=gen, device=dev).to(dt),
                torch.randn(3, 37, generator=gen, device=dev).to(dt)]

    def ref(torch, xx, zz):
        xd = xx.double()
        return [torch.cat([zz.double(), xd * xd, xd], dim=0)]

    def torch_same_dtype(torch, xx, zz):
        return [torch.cat([zz, xx * xx, xx], dim=0)]

    return ("concat_rows_%s" % t, ir, make, ref, torch_same_dtype)


def odd_rows_case(rows=40, cols=1001, t="bf16"):
    """A chain over rows of odd length (GPT-2's 50257-word logits): each
    thread's 8 elements may run into the next row -- the input of the
    iteration's shape is read as one vector, the row-broadcast one once
    per row the slot touches, the column-broadcast one lane by lane, and
    an index-only input (i * j) computed from each lane's coordinates."""
    x, y, yf = _tt([rows, cols], t), _tt([rows, cols], t), \
        _tt([rows, cols], "f32")
    r, c = _tt([rows, 1], "f32"), _tt([1, cols], t)
    ir = """func.func @main(%%x: %(x)s, %%r: %(r)s, %%c: %(c)s) -> (%(y)s, %(yf)s) {
  %%ie = tensor.empty() : tensor<%(rows)dx%(cols)dxi64>
  %%iota = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%%ie : tensor<%(rows)dx%(cols)dxi64>) {
  ^bb0(%%o: i64):
    %%i = linalg.index 0 : index
    %%j = linalg.index 1 : index
    %%k = arith.muli %%i, %%j : index
    %%kk = arith.index_cast %%k : index to i64
    linalg.yield %%kk : i64
  } -> tensor<%(rows)dx%(cols)dxi64>
  %%y:2 = sinter.fused ins(%%x, %%r, %%c, %%iota : %(x)s, %(r)s, %(c)s, tensor<%(rows)dx%(cols)dxi64>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%%a: %(t)s, %%b: f32, %%e: %(t)s, %%q: i64):
    %%aw = arith.extf %%a : %(t)s to f32
    %%ew = arith.extf %%e : %(t)s to f32
    %%qf = arith.sitofp %%q : i64 to f32
    %%m0 = arith.mulf %%aw, %%b : f32
    %%m = arith.addf %%m0, %%qf : f32
    %%s = arith.addf %%m, %%ew : f32
    %%n = arith.truncf %%s : f32 to %(t)s
    sinter.yield %%n, %%s : %(t)s, f32
  } -> %(y)s, %(yf)s
  return %%y#0, %%y#1 : %(y)s, %(yf)s
}
""" % {"x": x, "y": y, "yf": yf, "r": r, "c": c, "t": t, "rows": rows,
       "cols": cols}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
                torch.randn(rows, 1, generator=gen, device=dev),
                torch.randn(1, cols, generator=gen, device=dev).to(dt)]

    def ij(torch, dev, dt):
        i = torch.arange(rows, device=dev, dtype=dt)[:, None]
        j = torch.arange(cols, device=dev, dtype=dt)[None, :]
        return i * j

    def ref(torch, xx, rr, cc):
        s = xx.double() * rr.double() + ij(torch, xx.device, torch.float64) \
            + cc.double()
        return [s, s]

    def torch_same_dtype(torch, xx, rr, cc):
        s = xx.float() * rr + ij(torch, xx.device, torch.float32) + cc.float()
        return [s.to(xx.dtype), s]

    return ("odd_rows_%dx%d_%s" % (rows, cols, t), ir, make, ref,
            torch_same_dtype)


def sliced_statistics_case(rows, padded, cols, start=0, copy=True, t=None):
    """A row reduction over a slice, read in the sliced tensor
    (lib/GPU/SlicedInputs.cpp): GPT-2's cross-entropy statistics over the
    lm_head's padded bf16 product -- the row max and the sum of exp(x -
    max), one online pass -- the slice returned too (copy=True), which the
    reduction writes as it reads it; copy=False: only summed (no copy
    written), f32 rows by default. Without the copy, rows whose start
    (`padded` and `start`) is a multiple of a vector are read as vectors
    (RowVectorReduction.cpp), the last cols % width points one a lane."""
    t = t or ("bf16" if copy else "f32")
    x = _tt([rows, padded], t)
    s = _tt([rows, cols], t)
    y = _tt([rows], "f32")
    e = _tt([rows, 1], "f32")
    ext = "%%a = arith.extf %%in : %s to f32" % t if t != "f32" else \
        "%a = arith.addf %in, %zero : f32"
    # The padded product: x + 0.5, rounded to its type (a kernel's result,
    # as the lm_head's is: a slice of an argument is copied before
    # outlining, sinter-copy-aliased-results).
    shift = ("%%w = arith.extf %%in : %s to f32\n    %%h = arith.addf %%w, "
             "%%half : f32\n    %%q = arith.truncf %%h : f32 to %s" % (t, t)
             if t != "f32" else "%q = arith.addf %in, %half : f32")
    results = "%%max, %%sum, %%s : %s, %s, %s" % (y, y, s) if copy else \
        "%%max, %%sum : %s, %s" % (y, y)
    types = "(%s, %s, %s)" % (y, y, s) if copy else "(%s, %s)" % (y, y)
    ir = """#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @main(%%x: %(x)s) -> %(types)s {
  %%zero = arith.constant 0.0 : f32
  %%half = arith.constant 0.5 : f32
  %%ninf = arith.constant 0xFF800000 : f32
  %%pe = tensor.empty() : %(x)s
  %%p = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]} ins(%%x : %(x)s) outs(%%pe : %(x)s) {
  ^bb0(%%in: %(t)s, %%o: %(t)s):
    %(shift)s
    linalg.yield %%q : %(t)s
  } -> %(x)s
  %%s = tensor.extract_slice %%p[0, %(start)d] [%(rows)d, %(cols)d] [1, 1] : %(x)s to %(s)s
  %%empty = tensor.empty() : %(y)s
  %%minf = linalg.fill ins(%%ninf : f32) outs(%%empty : %(y)s) -> %(y)s
  %%max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%%s : %(s)s) outs(%%minf : %(y)s) {
  ^bb0(%%in: %(t)s, %%acc: f32):
    %(ext)s
    %%n = arith.maximumf %%a, %%acc : f32
    linalg.yield %%n : f32
  } -> %(y)s
  %%me = tensor.expand_shape %%max [[0, 1]] output_shape [%(rows)d, 1] : %(y)s into %(e)s
  %%zeros = linalg.fill ins(%%zero : f32) outs(%%empty : %(y)s) -> %(y)s
  %%sum = linalg.generic {indexing_maps = [#x, #bc, #row], iterator_types = ["parallel", "reduction"]} ins(%%s, %%me : %(s)s, %(e)s) outs(%%zeros : %(y)s) {
  ^bb0(%%in: %(t)s, %%m: f32, %%acc: f32):
    %(ext)s
    %%d = arith.subf %%a, %%m : f32
    %%ex = math.exp %%d : f32
    %%r = arith.addf %%ex, %%acc : f32
    linalg.yield %%r : f32
  } -> %(y)s
  return %(results)s
}
""" % {"x": x, "s": s, "y": y, "e": e, "t": t, "ext": ext, "rows": rows,
       "cols": cols, "start": start, "types": types, "results": results,
       "shift": shift}

    def make(torch, dev, gen):
        v = torch.randn(rows, padded, generator=gen, device=dev) * 4
        # The padding is never read: poison it.
        v[:, :start] = float("nan")
        v[:, start + cols:] = float("nan")
        return [v.to(getattr(torch, TYPES[t]))]

    def stats(torch, xx, dtype):
        p = (xx.float() + 0.5).to(xx.dtype)
        sl = p[:, start:start + cols]
        a = sl.to(dtype)
        m = a.amax(1)
        out = [m, (a - m[:, None]).exp().sum(1)]
        return out + [sl] if copy else out

    return ("sliced_statistics_%dx%d_of_%d%s_%s" % (
        rows, cols, padded, "_copy" if copy else "_at%d" % start, t), ir,
        make,
        lambda torch, xx: stats(torch, xx, torch.float64),
        lambda torch, xx: stats(torch, xx, torch.float32))


def padded_logits_case(rows, padded, cols, start=0):
    """The cross-entropy's reads of logits the forward saved padded
    (python/sinter/torch/_padded_saves.py): the backward receives the
    padded bf16 product and slices it; the target logit's gather reads the
    slice in the product (sinter-tensor-ops-to-linalg), and the gradient's
    chain, padded again for the lm_head's GEMMs, reads it there too
    (PadKernel.cpp), whole vectors where the rows reach the padded width
    (scalars from an odd `start`). The argument's columns outside the
    slice are NaN: read only by lanes whose results the pad replaces."""
    out = padded - start
    x = _tt([rows, padded], "bf16")
    s = _tt([rows, cols], "bf16")
    o = _tt([rows, out], "bf16")
    g = _tt([rows, 1], "f32")
    ir = """#x = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @main(%%x: %(x)s, %%lse: %(g)s, %%target: tensor<%(rows)dx1xi64>) -> (%(o)s, %(g)s) {
  %%zero = arith.constant 0.0 : bf16
  %%s = tensor.extract_slice %%x[0, %(start)d] [%(rows)d, %(cols)d] [1, 1] : %(x)s to %(s)s
  %%ge = tensor.empty() : %(s)s
  %%grad = linalg.generic {indexing_maps = [#x, #bc, #x], iterator_types = ["parallel", "parallel"]} ins(%%s, %%lse : %(s)s, %(g)s) outs(%%ge : %(s)s) {
  ^bb0(%%in: bf16, %%m: f32, %%o: bf16):
    %%a = arith.extf %%in : bf16 to f32
    %%d = arith.subf %%a, %%m : f32
    %%p = math.exp %%d : f32
    %%r = arith.truncf %%p : f32 to bf16
    linalg.yield %%r : bf16
  } -> %(s)s
  %%padded = tensor.pad %%grad low[0, 0] high[0, %(pad)d] {
  ^bb0(%%i: index, %%j: index):
    tensor.yield %%zero : bf16
  } : %(s)s to %(o)s
  %%te = tensor.empty() : %(g)s
  %%picked = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]} ins(%%target : tensor<%(rows)dx1xi64>) outs(%%te : %(g)s) {
  ^bb0(%%t: i64, %%o: f32):
    %%i = linalg.index 0 : index
    %%j = arith.index_cast %%t : i64 to index
    %%v = tensor.extract %%s[%%i, %%j] : %(s)s
    %%w = arith.extf %%v : bf16 to f32
    linalg.yield %%w : f32
  } -> %(g)s
  return %%padded, %%picked : %(o)s, %(g)s
}
""" % {"x": x, "s": s, "o": o, "g": g, "rows": rows, "cols": cols,
       "start": start, "pad": out - cols}

    def make(torch, dev, gen):
        v = torch.randn(rows, padded, generator=gen, device=dev)
        v[:, :start] = float("nan")
        v[:, start + cols:] = float("nan")
        lse = torch.randn(rows, 1, generator=gen, device=dev)
        target = torch.randint(0, cols, (rows, 1), generator=gen, device=dev)
        return [v.to(torch.bfloat16), lse, target]

    def grads(torch, xx, lse, target, dtype):
        sl = xx[:, start:start + cols].to(dtype)
        grad = torch.zeros(rows, out, dtype=dtype, device=xx.device)
        grad[:, :cols] = (sl - lse.to(dtype)).exp()
        return [grad, sl.gather(1, target)]

    return ("padded_logits_%dx%d_of_%d%s" % (
        rows, cols, padded, "_at%d" % start if start else ""), ir, make,
        lambda torch, *a: grads(torch, *a, torch.float64),
        lambda torch, *a: [o.to(t) for o, t in zip(
            grads(torch, *a, torch.float32), (torch.bfloat16,
                                              torch.float32))])
