# Part of the Sinter project.
"""GPU cases of the row kernels: RMSNorm, LayerNorm (an f32 input written
in bf16 too) and softmax over any axis. Each case is as in gpu_cases.py,
which collects them."""

import math

from case_common import TYPES, _tt  # noqa: F401


def rms_norm_case(rows, cols, t="bf16", weight=True, rstd=False, eps=1e-6,
                  amplitude=1.0):
    """amplitude < 1 makes rows whose mean square is below eps: a kernel
    that drops or misplaces epsilon is off by several times there."""
    x, w = _tt([rows, cols], t), _tt([cols], t)
    outs = [x] + ([_tt([rows], "f32")] if rstd else [])
    ir = """func.func @main(%%x: %s%s) -> (%s) {
  %s = sinter.rms_norm %%x%s {epsilon = %e : f32} : %s -> %s%s
  return %s : %s
}
""" % (x, (", %%w: %s" % w) if weight else "", ", ".join(outs),
       "%y, %r" if rstd else "%y", (" weight(%%w : %s)" % w) if weight else "",
       eps, x, x, (" rstd(%s)" % outs[1]) if rstd else "",
       "%y, %r" if rstd else "%y", ", ".join(outs))

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [(amplitude * torch.randn(rows, cols, generator=gen,
                                        device=dev)).to(dt)]
        if weight:
            ins.append((1 + 0.1 * torch.randn(cols, generator=gen,
                                              device=dev)).to(dt))
        return ins

    def ref(torch, xx, ww=None):
        xd = xx.double()
        r = torch.rsqrt((xd * xd).mean(-1, keepdim=True) + eps)
        y = xd * r * (ww.double() if ww is not None else 1)
        return [y] + ([r.squeeze(-1)] if rstd else [])

    def torch_same_dtype(torch, xx, ww=None):
        return [torch.nn.functional.rms_norm(xx, (cols,), ww, eps)]

    name = "rms_norm_%dx%d_%s%s%s%s" % (rows, cols, t, "_w" if weight else "",
                                        "_rstd" if rstd else "",
                                        "_tinyvar" if amplitude < 1 else "")
    return name, ir, make, ref, torch_same_dtype


def layer_norm_case(rows, cols, t="bf16", affine=True, stats=False, eps=1e-5,
                    amplitude=None, out_t=None):
    """amplitude: centred rows of that scale, whose variance is below eps
    (see rms_norm_case), instead of rows around 3. out_t: the output's
    type when it differs from the input's (an f32 residual normalized into
    bf16: the rounding folded into the op)."""
    x, w = _tt([rows, cols], t), _tt([cols], t)
    y = _tt([rows, cols], out_t or t)
    s = _tt([rows], "f32")
    outs = [y] + ([s, s] if stats else [])
    args = ", %%w: %s, %%b: %s" % (w, w) if affine else ""
    opnds = " weight(%%w : %s) bias(%%b : %s)" % (w, w) if affine else ""
    res = "%y, %m, %r" if stats else "%y"
    ir = """func.func @main(%%x: %s%s) -> (%s) {
  %s = sinter.layer_norm %%x%s {epsilon = %e : f32} : %s -> %s%s
  return %s : %s
}
""" % (x, args, ", ".join(outs), res, opnds, eps, x, y,
       (" mean(%s) rstd(%s)" % (s, s)) if stats else "", res, ", ".join(outs))

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        # A large mean tests the variance's numerical care.
        x = torch.randn(rows, cols, generator=gen, device=dev)
        ins = [(3 + x if amplitude is None else amplitude * x).to(dt)]
        if affine:
            ins.append((1 + 0.1 * torch.randn(cols, generator=gen,
                                              device=dev)).to(dt))
            ins.append((0.1 * torch.randn(cols, generator=gen,
                                          device=dev)).to(dt))
        return ins

    def ref(torch, xx, ww=None, bb=None):
        xd = xx.double()
        m = xd.mean(-1, keepdim=True)
        v = ((xd - m) ** 2).mean(-1, keepdim=True)
        r = torch.rsqrt(v + eps)
        y = (xd - m) * r
        if ww is not None:
            y = y * ww.double() + bb.double()
        return [y] + ([m.squeeze(-1), r.squeeze(-1)] if stats else [])

    def torch_same_dtype(torch, xx, ww=None, bb=None):
        y = torch.nn.functional.layer_norm(xx, (cols,), ww, bb, eps)
        return [y.to(getattr(torch, TYPES[out_t])) if out_t else y]

    name = "layer_norm_%dx%d_%s%s%s%s%s" % (rows, cols, t,
                                            "_affine" if affine else "",
                                            "_stats" if stats else "",
                                            "_tinyvar" if amplitude else "",
                                            "_to_" + out_t if out_t else "")
    return name, ir, make, ref, torch_same_dtype


def softmax_case(shape, t="f32", scale=None, mask_shape=None, dim=-1):
    """softmax(scale * x + mask) over `dim` (the row kernel takes the last
    one; any other runs as three generics on the general path)."""
    dim = dim % len(shape)
    x = _tt(shape, t)
    args = ""
    opnd = ""
    if mask_shape is not None:
        m = _tt(mask_shape, "f32")
        args = ", %%m: %s" % m
        opnd = " mask(%%m : %s)" % m
    attrs = " {scale = %e : f32}" % scale if scale is not None else ""
    ir = """func.func @main(%%x: %s%s) -> %s {
  %%y = sinter.softmax %%x dim %d%s%s : %s
  return %%y : %s
}
""" % (x, args, x, dim, opnd, attrs, x, x)

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [(3 * torch.randn(*shape, generator=gen, device=dev)).to(dt)]
        if mask_shape is not None:
            m = torch.randn(*mask_shape, generator=gen, device=dev)
            m[m < -1.0] = -math.inf  # some masked-out entries
            ins.append(m)
        return ins

    def ref(torch, xx, mm=None):
        s = xx.double() * (scale if scale is not None else 1.0)
        if mm is not None:
            s = s + mm.double()
        return [torch.softmax(s, dim).nan_to_num(0.0)]

    def torch_same_dtype(torch, xx, mm=None):
        s = xx * (scale if scale is not None else 1.0)
        if mm is not None:
            s = s + mm.to(xx.dtype)
        return [torch.softmax(s, dim)]

    name = "softmax_%s_%s%s%s%s" % ("x".join(map(str, shape)), t,
                                    "_scaled" if scale else "",
                                    "_mask" if mask_shape else "",
                                    "" if dim == len(shape) - 1
                                    else "_dim%d" % dim)
    return name, ir, make, ref, torch_same_dtype
