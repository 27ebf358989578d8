# Part of the Sinter project.
"""GPU cases of the backward ops: each program runs the forward op and its
backward, and is checked against torch autograd of the same computation in
float64 (the reference) and in the storage dtype (the same-dtype peer)."""

from case_common import LAUNCHES, ROUNDED, TYPES, _tt

import refs  # the numpy Philox reference of the CPU tests


def _norm_inputs(torch, dev, gen, layer, rows, cols, t, dy_t):
    """x, the weight (near 1), the bias (LayerNorm) in `t`, and dy in
    `dy_t`."""
    dt = getattr(torch, TYPES[t])
    ins = [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
           (1 + 0.2 * torch.randn(cols, generator=gen, device=dev)).to(dt)]
    if layer:
        ins.append(torch.randn(cols, generator=gen, device=dev).to(dt))
    ins.append(torch.randn(rows, cols, generator=gen,
                           device=dev).to(getattr(torch, TYPES[dy_t])))
    return ins


def norm_backward_case(kind, rows, cols, t="bf16", grad_t="f32", dy_t=None):
    """LayerNorm (weight and bias) or RMSNorm (weight) forward saving its
    statistics, then the backward: dx, dweight (and dbias). `dy_t`: dy of
    another float type (bf16 autocast's gradient of an f32 residual's norm),
    read in its own type."""
    layer = kind == "layer"
    dy_t = dy_t or t
    x, w, s, g = _tt([rows, cols], t), _tt([cols], t), _tt([rows], "f32"), \
        _tt([cols], grad_t)
    d = _tt([rows, cols], dy_t)
    dtail = " dy(%s)" % d if dy_t != t else ""
    if layer:
        body = """  %%y, %%mean, %%rstd = sinter.layer_norm %%x weight(%%w : %(w)s) bias(%%b : %(w)s) : %(x)s -> %(x)s mean(%(s)s) rstd(%(s)s)
  %%dx, %%dw, %%db = sinter.layer_norm_backward %%dy, %%x, %%mean, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(g)s) dbias(%(g)s)%(dtail)s
  return %%dx, %%dw, %%db : %(x)s, %(g)s, %(g)s"""
        args, results = "%%x: %(x)s, %%w: %(w)s, %%b: %(w)s, %%dy: %(d)s", \
            "%(x)s, %(g)s, %(g)s"
    else:
        body = """  %%y, %%rstd = sinter.rms_norm %%x weight(%%w : %(w)s) : %(x)s -> %(x)s rstd(%(s)s)
  %%dx, %%dw = sinter.rms_norm_backward %%dy, %%x, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(g)s)%(dtail)s
  return %%dx, %%dw : %(x)s, %(g)s"""
        args, results = "%%x: %(x)s, %%w: %(w)s, %%dy: %(d)s", "%(x)s, %(g)s"
    ir = ("func.func @main(" + args + ") -> (" + results + ") {\n" + body +
          "\n}\n") % {"x": x, "w": w, "s": s, "g": g, "d": d, "dtail": dtail}

    def make(torch, dev, gen):
        return _norm_inputs(torch, dev, gen, layer, rows, cols, t, dy_t)

    def grads(torch, dtype, *ins):
        xs = [a.detach().to(dtype).requires_grad_() for a in ins[:-1]]
        dy = ins[-1].to(dtype)
        if layer:
            y = torch.nn.functional.layer_norm(xs[0], (cols,), xs[1], xs[2])
        else:
            y = torch.nn.functional.rms_norm(xs[0], (cols,), xs[1], eps=1e-6)
        y.backward(dy)
        return [a.grad for a in xs]

    def ref(torch, *ins):
        return grads(torch, torch.float64, *ins)

    def torch_same_dtype(torch, *ins):
        return grads(torch, ins[0].dtype, *ins)

    return ("%s_norm_backward_%dx%d_%s%s" % (
        kind, rows, cols, t, "_dy_" + dy_t if dy_t != t else ""), ir, make,
        ref, torch_same_dtype)


def norm_backward_residual_case(kind, rows, cols, t="f32", dy_t="bf16",
                                bias_sum=False):
    """A norm backward whose dx only feeds the residual stream's gradient,
    as in GPT-2's bf16-autocast backward: %g + dx, and that sum rounded to
    dy's type for the next matmul. The norm's row kernel computes the sum
    where it would store dx (NormPrologue.cpp's epilogue): the program is
    the forward norm's kernel and the backward's two. bias_sum: the rounded
    sum also summed over the rows in its own type (torch-mlir's bias
    gradient of the next linear layer), which the norm backward's kernels
    add up beside dweight: still three launches."""
    layer = kind == "layer"
    x, w, s = _tt([rows, cols], t), _tt([cols], t), _tt([rows], "f32")
    d, h = _tt([rows, cols], dy_t), _tt([rows, cols], dy_t)
    dtail = " dy(%s)" % d if dy_t != t else ""
    if layer:
        norm = """  %%y, %%mean, %%rstd = sinter.layer_norm %%x weight(%%w : %(w)s) bias(%%b : %(w)s) : %(x)s -> %(x)s mean(%(s)s) rstd(%(s)s)
  %%dx, %%dw, %%db = sinter.layer_norm_backward %%dy, %%x, %%mean, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(w)s) dbias(%(w)s)%(dtail)s"""
        args, sums = "%%x: %(x)s, %%w: %(w)s, %%b: %(w)s", ", %%dw, %%db"
        sum_types = ", %(w)s, %(w)s"
    else:
        norm = """  %%y, %%rstd = sinter.rms_norm %%x weight(%%w : %(w)s) : %(x)s -> %(x)s rstd(%(s)s)
  %%dx, %%dw = sinter.rms_norm_backward %%dy, %%x, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(w)s)%(dtail)s"""
        args, sums, sum_types = "%%x: %(x)s, %%w: %(w)s", ", %%dw", ", %(w)s"
    col_sum = ""
    if bias_sum:
        col_sum = """
  %%zero = arith.constant 0.0 : %(ed)s
  %%ce = tensor.empty() : %(c)s
  %%cz = linalg.fill ins(%%zero : %(ed)s) outs(%%ce : %(c)s) -> %(c)s
  %%cs = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%%r#1 : %(h)s) outs(%%cz : %(c)s) {
  ^bb0(%%i: %(ed)s, %%o: %(ed)s):
    %%t = arith.addf %%i, %%o : %(ed)s
    linalg.yield %%t : %(ed)s
  } -> %(c)s"""
        sums += ", %%cs"
        sum_types += ", %(c)s"
    ir = ("func.func @main(" + args + ", %%dy: %(d)s, %%g: %(x)s) -> (%(x)s, "
          "%(h)s" + sum_types + ") {\n" + norm + """
  %%r:2 = sinter.fused ins(%%g, %%dx : %(x)s, %(x)s) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%%a: %(et)s, %%c: %(et)s):
    %%sum = arith.addf %%a, %%c : %(et)s
    %%low = arith.truncf %%sum : %(et)s to %(ed)s
    sinter.yield %%sum, %%low : %(et)s, %(ed)s
  } -> %(x)s, %(h)s""" + col_sum + """
  return %%r#0, %%r#1""" + sums + " : %(x)s, %(h)s" + sum_types + "\n}\n") % {
        "x": x, "w": w, "s": s, "d": d, "h": h, "dtail": dtail, "et": t,
        "ed": dy_t, "c": _tt([1, cols], dy_t)}

    def make(torch, dev, gen):
        return _norm_inputs(torch, dev, gen, layer, rows, cols, t, dy_t) + [
            torch.randn(rows, cols, generator=gen,
                        device=dev).to(getattr(torch, TYPES[t]))]

    def grads(torch, dtype, *ins):
        xs = [a.detach().to(dtype).requires_grad_() for a in ins[:-2]]
        dy, g = ins[-2].to(dtype), ins[-1].to(dtype)
        if layer:
            y = torch.nn.functional.layer_norm(xs[0], (cols,), xs[1], xs[2])
        else:
            y = torch.nn.functional.rms_norm(xs[0], (cols,), xs[1], eps=1e-6)
        y.backward(dy)
        total = g + xs[0].grad
        low = total.to(getattr(torch, TYPES[dy_t]))
        out = [total, low] + [a.grad for a in xs[1:]]
        if bias_sum:  # summed in f32 (wider for the reference), rounded once
            wide = torch.float64 if dtype == torch.float64 else torch.float32
            out.append(low.to(wide).sum(0, keepdim=True).to(low.dtype))
        return out

    name = "%s_norm_backward_residual_%dx%d_%s_dy_%s%s" % (
        kind, rows, cols, t, dy_t, "_bias_sum" if bias_sum else "")
    LAUNCHES[name] = 3
    # The sum rounded to dy's type (and its column sum).
    ROUNDED[name] = {1, 4 if layer else 3} if bias_sum else {1}
    return (name, ir, make,
            lambda torch, *a: grads(torch, torch.float64, *a),
            lambda torch, *a: grads(torch, a[0].dtype, *a))


def softmax_backward_case(rows, cols, t="bf16"):
    x = _tt([rows, cols], t)
    ir = """func.func @main(%%x: %(x)s, %%dy: %(x)s) -> %(x)s {
  %%y = sinter.softmax %%x dim 1 : %(x)s
  %%dx = sinter.softmax_backward %%dy, %%y dim 1 : %(x)s
  return %%dx : %(x)s
}
""" % {"x": x}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [(3 * torch.randn(rows, cols, generator=gen, device=dev)).to(dt),
                torch.randn(rows, cols, generator=gen, device=dev).to(dt)]

    def grads(torch, dtype, x, dy):
        xx = x.detach().to(dtype).requires_grad_()
        torch.softmax(xx, 1).backward(dy.to(dtype))
        return [xx.grad]

    return ("softmax_backward_%dx%d_%s" % (rows, cols, t), ir, make,
            lambda torch, *a: grads(torch, torch.float64, *a),
            lambda torch, *a: grads(torch, a[0].dtype, *a))


def attention_backward_case(B, Hq, Hkv, Sq, Skv, D, t="bf16", causal=False,
                            mask_shape=None, dropout_p=0.0,
                            deterministic=False, mask_grad=True):
    """sinter.attention saving lse, then sinter.attention_backward (dq, dk,
    dv, and dmask with a mask) against autograd of attention written out in
    torch (the same Philox keep mask for dropout)."""
    tq, tk, tl = _tt([B, Hq, Sq, D], t), _tt([B, Hkv, Skv, D], t), \
        _tt([B, Hq, Sq], "f32")
    tm = _tt(mask_shape, t) if mask_shape else None
    more, extra, attr = refs.attention_clauses(tm, dropout_p, causal, None)
    # The backward's own attribute: dQ without atomics.
    battr = attr
    if deterministic:
        battr = attr.replace("{", "{deterministic, ", 1) if attr else \
            " {deterministic}"
    args = ["%q: " + tq, "%k: " + tk, "%v: " + tk] + more
    dm = tm if mask_grad else None
    results = [tq, tk, tk] + ([dm] if dm else [])
    names = "%dq, %dk, %dv" + (", %dm" if dm else "")
    ir = """func.func @main(%(args)s, %%do: %(tq)s) -> (%(res)s) {
  %%o, %%lse = sinter.attention %%q, %%k, %%v%(extra)s%(attr)s : %(tq)s, %(tk)s, %(tk)s -> %(tq)s, %(tl)s
  %(names)s = sinter.attention_backward %%do, %%q, %%k, %%v, %%o, %%lse%(extra)s%(battr)s : %(tq)s, %(tq)s, %(tk)s, %(tk)s, %(tq)s, %(tl)s -> %(tq)s, %(tk)s, %(tk)s%(dm)s
  return %(names)s : %(res)s
}
""" % {"args": ", ".join(args), "tq": tq, "tk": tk, "tl": tl, "extra": extra,
       "attr": attr, "battr": battr, "res": ", ".join(results),
       "names": names,
       "dm": " dmask(%s)" % dm if dm else ""}
    seed = 0x5EED1234

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [torch.randn(B, Hq, Sq, D, generator=gen, device=dev).to(dt),
               torch.randn(B, Hkv, Skv, D, generator=gen, device=dev).to(dt),
               torch.randn(B, Hkv, Skv, D, generator=gen, device=dev).to(dt)]
        if mask_shape:
            ins.append(torch.randn(*mask_shape, generator=gen,
                                   device=dev).to(dt))
        if dropout_p:
            ins.append(seed)
        ins.append(torch.randn(B, Hq, Sq, D, generator=gen, device=dev).to(dt))
        return ins

    def grads(torch, dtype, *ins):
        tensors = [a for a in ins[:-1] if not isinstance(a, int)]
        xs = [a.detach().to(dtype).requires_grad_() for a in tensors]
        q, k, v = xs[:3]
        g = Hq // Hkv
        k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
        s = (q @ k.transpose(-1, -2)) * (1.0 / D ** 0.5)
        if mask_shape:
            s = s + xs[3]
        if causal:
            i = torch.arange(Sq, device=q.device)[:, None]
            j = torch.arange(Skv, device=q.device)[None, :]
            s = s.masked_fill(j > i + (Skv - Sq), float("-inf"))
        # A row that sees no key gives zeros (torch's softmax gives NaN):
        # it is zeroed before and after, so its gradient is zero too.
        empty = torch.isneginf(s).all(-1, keepdim=True)
        s = s.masked_fill(empty, 0.0)
        p = torch.softmax(s.float(), -1).to(dtype).masked_fill(empty, 0.0)
        if dropout_p:
            keep = torch.from_numpy(refs.dropout_keep(
                (B, Hq, Sq, Skv), seed, dropout_p)).to(q.device)
            p = torch.where(keep, p / (1 - dropout_p), torch.zeros_like(p))
        (p @ v).backward(ins[-1].to(dtype))
        return [a.grad for a in xs][:len(results)]

    name = "attention_backward_%dx%dx%dx%dx%dx%d_%s%s%s%s%s" % (
        B, Hq, Hkv, Sq, Skv, D, t, "_causal" if causal else "",
        ("_mask" if mask_grad else "_constmask") if mask_shape else "",
        "_dropout" if dropout_p else "",
        "_deterministic" if deterministic else "")
    return (name, ir, make,
            lambda torch, *a: grads(torch, torch.float64, *a),
            lambda torch, *a: grads(torch, a[0].dtype, *a))


def backward_cases():
    return [
        norm_backward_case("layer", 1024, 768),
        norm_backward_case("layer", 113, 1000, "f32", "f32"),
        norm_backward_case("rms", 512, 4096),
        norm_backward_case("rms", 7, 129, "f16", "f16"),
        norm_backward_case("layer", 1024, 768, "f32", "f32", dy_t="bf16"),
        norm_backward_case("rms", 99, 1000, "f32", "f32", dy_t="bf16"),
        # dx added into the residual stream's gradient in the norm's kernel.
        norm_backward_residual_case("layer", 1024, 768),
        norm_backward_residual_case("layer", 113, 1000),
        norm_backward_residual_case("rms", 99, 4096),
        norm_backward_residual_case("layer", 1024, 768, bias_sum=True),
        norm_backward_residual_case("layer", 113, 1000, bias_sum=True),
        norm_backward_residual_case("rms", 99, 4096, bias_sum=True),
        softmax_backward_case(256, 1024),
        softmax_backward_case(33, 100, "f32"),
        attention_backward_case(1, 4, 2, 256, 256, 64, causal=True),
        attention_backward_case(2, 2, 2, 113, 127, 128,
                                mask_shape=[1, 1, 113, 127]),
        attention_backward_case(1, 2, 1, 127, 113, 64, causal=True),
        attention_backward_case(1, 4, 4, 77, 130, 64, causal=True,
                                dropout_p=0.2),
        attention_backward_case(1, 2, 2, 64, 64, 256, "f16"),
        # The tensor-core backward (Attention/Backward.h): ragged sequences,
        # both causal alignments, GQA, D 64 and 128, bf16 and f16, and the
        # GPT-2 shape (12 heads of 64, 1024 tokens).
        attention_backward_case(2, 4, 2, 200, 333, 128),
        attention_backward_case(1, 2, 2, 100, 300, 128, "f16", causal=True),
        attention_backward_case(1, 4, 1, 300, 100, 64, causal=True),
        attention_backward_case(2, 12, 12, 1024, 1024, 64, causal=True),
        # Whole 64-query tiles (no ragged rows) at D128, causal and GQA.
        attention_backward_case(1, 4, 2, 384, 384, 128, causal=True),
        # An additive mask whose gradient is not asked for (a padding
        # mask, HF's [B, 1, Sq, Skv]; a per-head one), in both kernels.
        attention_backward_case(2, 4, 2, 100, 130, 64, causal=True,
                                mask_shape=[2, 1, 100, 130],
                                mask_grad=False),
        attention_backward_case(1, 4, 4, 77, 200, 128,
                                mask_shape=[4, 77, 200], mask_grad=False,
                                deterministic=True),
        # dQ by the query-tile kernel, without atomics.
        attention_backward_case(1, 4, 2, 300, 100, 64, causal=True,
                                deterministic=True),
        attention_backward_case(2, 2, 1, 200, 333, 128, "f16",
                                deterministic=True),
        # Dropout regenerated in the kernels (Attention/BackwardDropout.cpp):
        # Skv % 8 == 0 draws a call per lane and reads the words back
        # through ldmatrix (transposed in the key-tile kernel); 77x130 above
        # and the f16 case below take a call per score.
        attention_backward_case(2, 4, 2, 200, 336, 128, causal=True,
                                dropout_p=0.1),
        attention_backward_case(1, 4, 4, 130, 256, 64, dropout_p=0.3),
        attention_backward_case(1, 4, 2, 100, 264, 64, causal=True,
                                dropout_p=0.2, deterministic=True),
        attention_backward_case(1, 2, 2, 77, 130, 128, "f16", dropout_p=0.1,
                                deterministic=True),
        attention_backward_case(2, 12, 12, 1024, 1024, 64, causal=True,
                                dropout_p=0.1),
    ]
