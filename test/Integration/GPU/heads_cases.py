# Part of the Sinter project.
"""GPU cases of attention that reads its heads in place: Q, K and V as
torch-mlir emits them for Hugging Face models -- sliced out of one fused
projection (GPT-2) or taken from their own (Llama's grouped-query K and V),
split into heads and transposed to [B, H, S, D] -- and O transposed back
and merged to [B, S, H * D] for the output projection. The tensor-core
kernels read the projections and write the merged O directly (lib/GPU/
Attention/InPlaceHeads.cpp): each case's program is that one kernel, for
every loading form (cp.async on mma.sync and wgmma, TMA with `ws`), O's
stores from registers and through TMA, and persistent blocks. Each case is
as in gpu_cases.py, which collects them."""

import math

from case_common import FLAGS, LAUNCHES, WGP, _tt


def _heads(src, out, t, B, S, H, D, width, offset):
    """IR of heads [offset, offset + H) of the [B, S, width * D] projection
    %<src> as torch-mlir emits them (a slice when it holds more, the split
    into heads, the transpose to [B, H, S, D]), bound to %<out>_h."""
    whole, part = _tt([B, S, width * D], t), _tt([B, S, H * D], t)
    split, heads = _tt([B, S, H, D], t), _tt([B, H, S, D], t)
    value = "%" + src
    ir = "  %%%s_i = tensor.empty() : %s\n" % (out, heads)
    if width != H:
        ir += ("  %%%s_s = tensor.extract_slice %s[0, 0, %d] [%d, %d, %d] "
               "[1, 1, 1] : %s to %s\n" % (out, value, offset * D, B, S,
                                           H * D, whole, part))
        value = "%%%s_s" % out
    ir += ("  %%%s_e = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape "
           "[%d, %d, %d, %d] : %s into %s\n" % (out, value, B, S, H, D, part,
                                                split))
    ir += ("  %%%s_h = linalg.transpose ins(%%%s_e : %s) outs(%%%s_i : %s) "
           "permutation = [0, 2, 1, 3]\n" % (out, out, split, out, heads))
    return ir


def _projection_heads(t, B, S, Hq, Hkv, D):
    """(arguments, IR) of Q, K and V as %q_h, %k_h, %v_h taken from one fused
    [B, S, 3 * Hq * D] projection (Hq == Hkv: GPT-2's c_attn), else from a
    [B, S, Hq * D] query projection and a fused [B, S, 2 * Hkv * D]
    key/value one."""
    if Hq == Hkv:
        return ("%%qkv: %s" % _tt([B, S, 3 * Hq * D], t),
                "".join(_heads("qkv", n, t, B, S, Hq, D, 3 * Hq, i * Hq)
                        for i, n in enumerate("qkv")))
    return ("%%q: %s, %%kv: %s" % (_tt([B, S, Hq * D], t),
                                   _tt([B, S, 2 * Hkv * D], t)),
            _heads("q", "q", t, B, S, Hq, D, Hq, 0) +
            _heads("kv", "k", t, B, S, Hkv, D, 2 * Hkv, 0) +
            _heads("kv", "v", t, B, S, Hkv, D, 2 * Hkv, Hkv))


def attention_heads_case(B, S, Hq, Hkv, D, t="bf16", causal=True,
                         config=None, tag=""):
    """Causal (or not) self-attention over heads taken from projections:
    with Hq == Hkv one fused [B, S, 3 * Hq * D] projection (GPT-2's c_attn),
    else a [B, S, Hq * D] query projection and a fused [B, S, 2 * Hkv * D]
    key/value one; O merged back to [B, S, Hq * D]."""
    fused = Hq == Hkv
    o4, om = _tt([B, S, Hq, D], t), _tt([B, S, Hq * D], t)
    q4, k4 = _tt([B, Hq, S, D], t), _tt([B, Hkv, S, D], t)
    args, body = _projection_heads(t, B, S, Hq, Hkv, D)
    ir = """func.func @main(%s) -> %s {
%s  %%o = sinter.attention %%q_h, %%k_h, %%v_h%s : %s, %s, %s -> %s
  %%oi = tensor.empty() : %s
  %%ot = linalg.transpose ins(%%o : %s) outs(%%oi : %s) permutation = [0, 2, 1, 3]
  %%om = tensor.collapse_shape %%ot [[0], [1], [2, 3]] : %s into %s
  return %%om : %s
}
""" % (args, om, body, " {causal}" if causal else "", q4, k4, k4, q4, o4, q4,
       o4, o4, om, om)
    sc = 1.0 / math.sqrt(D)

    def make(torch, dev, gen):
        dt = getattr(torch, {"bf16": "bfloat16", "f16": "float16"}[t])
        if fused:
            return [torch.randn(B, S, 3 * Hq * D, generator=gen,
                                device=dev).to(dt)]
        return [torch.randn(B, S, Hq * D, generator=gen, device=dev).to(dt),
                torch.randn(B, S, 2 * Hkv * D, generator=gen,
                            device=dev).to(dt)]

    def heads(torch, *ins):
        if fused:
            q, k, v = ins[0].split(Hq * D, -1)
        else:
            q, (k, v) = ins[0], ins[1].split(Hkv * D, -1)
        q, k, v = [x.reshape(B, S, -1, D).transpose(1, 2) for x in (q, k, v)]
        rep = Hq // Hkv
        return q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)

    def attend(torch, q, k, v):
        o = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal, scale=sc)
        return [o.transpose(1, 2).reshape(B, S, Hq * D)]

    def ref(torch, *ins):
        return attend(torch, *heads(torch, *[x.double() for x in ins]))

    def torch_same_dtype(torch, *ins):
        return attend(torch, *heads(torch, *ins))

    name = "attention_heads_b%ds%dh%dkv%dd%d_%s%s%s" % (
        B, S, Hq, Hkv, D, t, "_causal" if causal else "", tag)
    if config:
        name += "_" + config.replace(",", "_").replace("=", "")
        FLAGS[name] = ["--attention-config=" + config]
    # The attention kernel alone: no transpose or slice kernel.
    LAUNCHES[name] = 1
    return name, ir, make, ref, torch_same_dtype


# (shape, config): every loading and storing form over GPT-2's fused
# projection (D64) and Llama's grouped-query heads (D128), ragged lengths.
HEADS_CASES = [
    ((2, 100, 4, 4, 64), None),  # the shipped table (sm_90a: cp.async wgmma)
    ((2, 333, 4, 4, 64), "warps=4,mtiles=1,bn=64"),  # mma.sync
    ((1, 200, 8, 2, 128), "warps=4,mtiles=2,bn=64"),
    ((2, 100, 4, 4, 64), WGP + "mbar,pp,warps=8,bn=64"),
    ((2, 333, 4, 4, 64), WGP + "mbar,pp,ws,warps=8,bn=128"),
    ((1, 200, 8, 2, 128), WGP + "mbar,pp,ws,tmastore,warps=8,bn=128"),
    ((2, 300, 6, 6, 64), WGP + "mbar,ws,tmastore,warps=12,bn=128"),
    ((1, 130, 8, 2, 128), WGP + "mbar,pp,ws,persist,tmastore,warps=8,bn=64"),
]


def attention_heads_cases():
    cases = [attention_heads_case(*shape, config=config)
             for shape, config in HEADS_CASES]
    cases.append(attention_heads_case(1, 77, 4, 4, 64, "f16", causal=False))
    return cases


def _merged(src, t, B, S, H, D):
    """IR of the [B, H, S, D] gradient %<src> as torch-mlir hands it to the
    projection's gradient: transposed to [B, S, H, D] and merged to
    [B, S, H * D], bound to %<src>_m."""
    heads, split = _tt([B, H, S, D], t), _tt([B, S, H, D], t)
    return ("  %%%s_i = tensor.empty() : %s\n"
            "  %%%s_t = linalg.transpose ins(%%%s : %s) outs(%%%s_i : %s) "
            "permutation = [0, 2, 1, 3]\n"
            "  %%%s_m = tensor.collapse_shape %%%s_t [[0], [1], [2, 3]] : %s "
            "into %s\n" % (src, split, src, src, heads, src, split, src, src,
                           split, _tt([B, S, H * D], t)))


def attention_backward_heads_case(B, S, Hq, Hkv, D, t="bf16", causal=True,
                                  deterministic=False, flags=None, tag="",
                                  concat=False):
    """The attention backward over heads taken from projections (as in
    attention_heads_case) with dO as the output projection's input gradient
    hands it: [B, S, Hq * D] split into heads and transposed. Its kernels
    read Q, K, V and dO in place (InPlaceHeads.cpp's backward plan): the
    program is the forward's kernel and the backward's three, no transpose
    or slice kernel. Returns dQ, dK, dV as [B, H, S, D], or (`concat`) as
    the projection's gradient does: transposed back, merged and joined to
    [B, S, (Hq + 2 Hkv) * D], which the kernels write in place."""
    fused = Hq == Hkv
    q4, k4 = _tt([B, Hq, S, D], t), _tt([B, Hkv, S, D], t)
    tl, dom = _tt([B, Hq, S], "f32"), _tt([B, S, Hq * D], t)
    args, body = _projection_heads(t, B, S, Hq, Hkv, D)
    body += _heads("do", "do", t, B, S, Hq, D, Hq, 0)
    attrs = [a for a, on in (("deterministic", deterministic),
                             ("causal", causal)) if on]
    fwd_attr = " {causal}" if causal else ""
    bwd_attr = " {%s}" % ", ".join(attrs) if attrs else ""
    results, tail = "%s, %s, %s" % (q4, k4, k4), \
        "  return %%dq, %%dk, %%dv : %s, %s, %s\n" % (q4, k4, k4)
    if concat:
        joined = _tt([B, S, (Hq + 2 * Hkv) * D], t)
        tail = "".join(_merged(g, t, B, S, h, D)
                       for g, h in (("dq", Hq), ("dk", Hkv), ("dv", Hkv)))
        tail += ("  %%g = tensor.concat dim(2) %%dq_m, %%dk_m, %%dv_m : (%s, "
                 "%s, %s) -> %s\n  return %%g : %s\n" % (
                     _tt([B, S, Hq * D], t), _tt([B, S, Hkv * D], t),
                     _tt([B, S, Hkv * D], t), joined, joined))
        results = joined
    ir = """func.func @main(%s, %%do: %s) -> (%s) {
%s  %%o, %%lse = sinter.attention %%q_h, %%k_h, %%v_h%s : %s, %s, %s -> %s, %s
  %%dq, %%dk, %%dv = sinter.attention_backward %%do_h, %%q_h, %%k_h, %%v_h, %%o, %%lse%s : %s, %s, %s, %s, %s, %s -> %s, %s, %s
%s}
""" % (args, dom, results, body, fwd_attr, q4, k4, k4, q4, tl, bwd_attr,
       q4, q4, k4, k4, q4, tl, q4, k4, k4, tail)
    sc = 1.0 / math.sqrt(D)

    def make(torch, dev, gen):
        dt = getattr(torch, {"bf16": "bfloat16", "f16": "float16"}[t])
        widths = [3 * Hq * D] if fused else [Hq * D, 2 * Hkv * D]
        return [torch.randn(B, S, w, generator=gen, device=dev).to(dt)
                for w in widths + [Hq * D]]

    def grads(torch, dtype, *ins):
        xs = [a.detach().to(dtype) for a in ins[:-1]]
        if fused:
            q, k, v = xs[0].split(Hq * D, -1)
        else:
            q, (k, v) = xs[0], xs[1].split(Hkv * D, -1)
        q, k, v = [x.reshape(B, S, -1, D).transpose(1, 2).detach()
                   .requires_grad_() for x in (q, k, v)]
        rep = Hq // Hkv
        o = torch.nn.functional.scaled_dot_product_attention(
            q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1),
            is_causal=causal, scale=sc)
        o.backward(ins[-1].to(dtype).reshape(B, S, Hq, D).transpose(1, 2))
        if concat:
            return [torch.cat([g.grad.transpose(1, 2).reshape(B, S, -1)
                               for g in (q, k, v)], -1)]
        return [q.grad, k.grad, v.grad]

    name = "attention_backward_heads_b%ds%dh%dkv%dd%d_%s%s%s%s%s" % (
        B, S, Hq, Hkv, D, t, "_causal" if causal else "",
        "_deterministic" if deterministic else "", "_concat" if concat else "",
        tag)
    if flags:
        FLAGS[name] = flags
    # The forward's kernel and the backward's three: no transpose kernel.
    LAUNCHES[name] = 4
    return (name, ir, make,
            lambda torch, *a: grads(torch, torch.float64, *a),
            lambda torch, *a: grads(torch, a[0].dtype, *a))


def attention_backward_heads_cases():
    """GPT-2's fused projection (D64) and grouped-query heads (D128), ragged
    lengths, on wgmma (the default on sm_90a), mma.sync and the
    deterministic query-tile kernel."""
    mma_sync = ["--cuda-attention-backward=mma-sync"]
    return [
        attention_backward_heads_case(2, 100, 4, 4, 64),
        attention_backward_heads_case(1, 200, 8, 2, 128, causal=False),
        attention_backward_heads_case(2, 333, 4, 4, 64, flags=mma_sync,
                                      tag="_mmasync"),
        attention_backward_heads_case(1, 130, 8, 2, 128, "f16",
                                      deterministic=True),
        # dQ, dK and dV written into their concatenation (GPT-2's c_attn
        # gradient; grouped-query parts of two sizes).
        attention_backward_heads_case(2, 100, 4, 4, 64, concat=True),
        attention_backward_heads_case(1, 200, 8, 2, 128, causal=False,
                                      concat=True),
        attention_backward_heads_case(2, 333, 4, 4, 64, flags=mma_sync,
                                      tag="_mmasync", concat=True),
        attention_backward_heads_case(1, 130, 8, 2, 128, "f16",
                                      deterministic=True, concat=True),
    ]
