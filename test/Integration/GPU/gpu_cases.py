# Part of the Sinter project.
"""The GPU correctness cases: sinter programs and their torch references.

Shared by gpu_checks.py (correctness on the device) and bench/ (timing).
Each case is (name, mlir_text, make_inputs(torch, device, gen),
reference(torch, *inputs) -> list of float32/float64 tensors).
"""

import math
import os
import sys

from case_common import (  # noqa: F401
    FLAGS, LAUNCHES, LIBRARY_CALLS, ROUNDED, TYPES, WG, WGP, _tt)
from general_cases import (  # noqa: F401
    unfused_mlp_case,
    reduce_sum_case,
    reduce_max_case,
    count_case,
    logsumexp_case,
    bool_mask_case,
    qkv_heads_case,
    fpowi_case,
    combined_casts_case,
    odd_slice_case,
    dropout_residual_case,
    residual_norm_case,
)
from matmul_cases import (  # noqa: F401
    linear_bias_case,
    mlp_gelu_case,
    matmul_transposed_b_case,
    matmul_case,
    matmul_cases,
)
from row_cases import (  # noqa: F401
    rms_norm_case,
    layer_norm_case,
    softmax_case,
)
from backward_cases import backward_cases  # noqa: E402
from movement_cases import (  # noqa: E402
    concat_heads_case,
    concat_rows_case,
    odd_rows_case,
    padded_chain_case,
    padded_logits_case,
    sliced_statistics_case,
)
from heads_cases import (  # noqa: E402
    attention_backward_heads_cases, attention_heads_cases)
from attention_sweeps import (  # noqa: E402
    PERSISTENT_CASES,
    TWO_STAGE_CASES,
    TWO_STAGE_SHAPES,
)


def bias_gelu_case(rows, cols, t="bf16", form="tanh"):
    x, b = _tt([rows, cols], t), _tt([cols], t)
    if form == "tanh":
        body = """    %c0 = arith.constant 0.797884583 : f32
    %c1 = arith.constant 0.044715 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x2 = arith.mulf %s, %s : f32
    %x3 = arith.mulf %x2, %s : f32
    %t0 = arith.mulf %x3, %c1 : f32
    %t1 = arith.addf %s, %t0 : f32
    %t2 = arith.mulf %t1, %c0 : f32
    %th = math.tanh %t2 : f32
    %t3 = arith.addf %th, %one : f32
    %t4 = arith.mulf %s, %half : f32
    %g = arith.mulf %t4, %t3 : f32"""
    else:
        body = """    %rs2 = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t0 = arith.mulf %s, %rs2 : f32
    %e = math.erf %t0 : f32
    %t1 = arith.addf %e, %one : f32
    %t2 = arith.mulf %s, %half : f32
    %g = arith.mulf %t2, %t1 : f32"""
    st = TYPES[t]
    ext = ("%%a = arith.extf %%xv : %s to f32\n    %%c = arith.extf %%bv : %s to f32"
           % (t, t)) if t != "f32" else "%a = arith.addf %xv, %zero : f32\n    %c = arith.addf %bv, %zero : f32"
    trunc = ("%%r = arith.truncf %%g : f32 to %s" % t) if t != "f32" else "%r = arith.addf %g, %zero : f32"
    ir = """func.func @main(%%x: %s, %%b: %s) -> %s {
  %%y = sinter.fused ins(%%x, %%b : %s, %s) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%%xv: %s, %%bv: %s):
    %%zero = arith.constant 0.0 : f32
    %s
    %%s = arith.addf %%a, %%c : f32
%s
    %s
    sinter.yield %%r : %s
  } -> %s
  return %%y : %s
}
""" % (x, b, x, x, b, t, t, ext, body, trunc, t, x, x)

    def make(torch, dev, gen):
        dt = getattr(torch, st)
        return [torch.randn(rows, cols, generator=gen, device=dev).to(dt),
                torch.randn(cols, generator=gen, device=dev).to(dt)]

    def ref(torch, xx, bb):
        s = xx.double() + bb.double()
        return [torch.nn.functional.gelu(s, approximate=form if form == "tanh" else "none")]

    def torch_same_dtype(torch, xx, bb):
        return [torch.nn.functional.gelu(xx + bb, approximate=form if form == "tanh" else "none")]

    name = "bias_gelu_%s_%dx%d_%s" % (form, rows, cols, t)
    return name, ir, make, ref, torch_same_dtype


def adamw_case(shapes, lr=1e-3, step=5.0, beta1=0.9, beta2=0.999, eps=1e-8,
               wd=0.01, name=None):
    """One sinter.adamw over tensors of `shapes` (f32 params and state);
    lr and step are runtime scalars."""
    n = len(shapes)
    ts = [_tt(s, "f32") for s in shapes]
    args = []
    for role in ("p", "g", "m", "v"):
        args += ["%%%s%d: %s" % (role, i, t) for i, t in enumerate(ts)]
    lists = []
    for key, role in (("params", "p"), ("grads", "g"), ("exp_avgs", "m"),
                      ("exp_avg_sqs", "v")):
        lists.append("%s(%s : %s)" % (key, ", ".join("%%%s%d" % (role, i)
                                                     for i in range(n)),
                                      ", ".join(ts)))
    outs = ts * 3
    ir = """func.func @main(%s, %%lr: f32, %%t: f32) -> (%s) {
  %%r:%d = sinter.adamw %s lr(%%lr) step(%%t) {beta1 = %e : f64, beta2 = %e : f64, eps = %e : f64, weight_decay = %e : f64}
  return %s : %s
}
""" % (", ".join(args), ", ".join(outs), 3 * n, " ".join(lists), beta1, beta2,
       eps, wd, ", ".join("%%r#%d" % i for i in range(3 * n)), ", ".join(outs))

    def make(torch, dev, gen):
        ins = {}
        for role in ("p", "g", "m", "v"):
            ins[role] = [torch.randn(*s, generator=gen, device=dev)
                         for s in shapes]
        ins["v"] = [v.abs() * 1e-2 for v in ins["v"]]
        ins["m"] = [m * 1e-1 for m in ins["m"]]
        return ins["p"] + ins["g"] + ins["m"] + ins["v"] + [lr, step]

    def split(xs):
        return xs[:n], xs[n:2 * n], xs[2 * n:3 * n], xs[3 * n:4 * n]

    def ref(torch, *xs):
        ps, gs, ms, vs = split(xs)
        outp, outm, outv = [], [], []
        for p, g, m, v in zip(ps, gs, ms, vs):
            p, g, m, v = p.double(), g.double(), m.double(), v.double()
            p = p * (1 - lr * wd)
            m = beta1 * m + (1 - beta1) * g
            v = beta2 * v + (1 - beta2) * g * g
            bc1 = 1 - beta1 ** step
            bc2 = 1 - beta2 ** step
            p = p - (lr / bc1) * m / (v.sqrt() / math.sqrt(bc2) + eps)
            outp.append(p)
            outm.append(m)
            outv.append(v)
        return outp + outm + outv

    def torch_same_dtype(torch, *xs):
        ps, gs, ms, vs = [[t.clone() for t in l] for l in split(xs)]
        torch._fused_adamw_(ps, gs, ms, vs, [], [torch.tensor(step, device=ps[0].device)] * n,
                            lr=lr, beta1=beta1, beta2=beta2, weight_decay=wd,
                            eps=eps, amsgrad=False, maximize=False)
        return ps + ms + vs

    name = name or "adamw_%d_tensors" % n
    return name, ir, make, ref, torch_same_dtype


def attention_case(B, Hq, Hkv, Sq, Skv, D, t="bf16", causal=False,
                   mask_shape=None, lse=False, scale=None, Dv=None,
                   dropout_p=0.0, seed=42, config=None, mask_t="f32"):
    Dv = Dv or D
    q, k = _tt([B, Hq, Sq, D], t), _tt([B, Hkv, Skv, D], t)
    v, o = _tt([B, Hkv, Skv, Dv], t), _tt([B, Hq, Sq, Dv], t)
    lt = _tt([B, Hq, Sq], "f32")
    args = "%%q: %s, %%k: %s, %%v: %s" % (q, k, v)
    opnd = ""
    if mask_shape is not None:
        m = _tt(mask_shape, mask_t)
        args += ", %%m: %s" % m
        opnd = " mask(%%m : %s)" % m
    attrs = []
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append("scale = %e : f32" % scale)
    if dropout_p:
        attrs.append("dropout_p = %e : f64" % dropout_p)
        args += ", %seed: i64"
        opnd += " seed(%seed)"
    res = "%o, %l" if lse else "%o"
    outs = [o, lt] if lse else [o]
    ir = """func.func @main(%s) -> (%s) {
  %s = sinter.attention %%q, %%k, %%v%s%s : %s, %s, %s -> %s
  return %s : %s
}
""" % (args, ", ".join(outs), res, opnd,
       (" {%s}" % ", ".join(attrs)) if attrs else "", q, k, v,
       ", ".join(outs), res, ", ".join(outs))
    sc = scale if scale is not None else 1.0 / math.sqrt(D)

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [torch.randn(B, Hq, Sq, D, generator=gen, device=dev).to(dt),
               torch.randn(B, Hkv, Skv, D, generator=gen, device=dev).to(dt),
               torch.randn(B, Hkv, Skv, Dv, generator=gen, device=dev).to(dt)]
        if mask_shape is not None:
            ins.append(torch.randn(*mask_shape, generator=gen,
                                   device=dev).to(getattr(torch,
                                                          TYPES[mask_t])))
        if dropout_p:
            ins.append(seed)
        return ins

    def scores_mask(torch, dev):
        i = torch.arange(Sq, device=dev)[:, None]
        j = torch.arange(Skv, device=dev)[None, :]
        return j <= i + (Skv - Sq)  # bottom-right aligned

    def expand(torch, x):
        return x.repeat_interleave(Hq // Hkv, dim=1)

    def ref(torch, qq, kk, vv, mm=None, *rest):
        if mask_shape is None:
            mm = None  # the optional slot holds the seed
        if dropout_p:
            import refs
            o, l = refs.attention(
                qq.float().cpu().numpy(), kk.float().cpu().numpy(),
                vv.float().cpu().numpy(), scale=sc, causal=causal,
                mask=None if mm is None else mm.float().cpu().numpy(),
                dropout_p=dropout_p, seed=seed)
            out = [torch.from_numpy(o).to(qq.device)]
            return out + ([torch.from_numpy(l).to(qq.device)] if lse else [])
        s = (qq.double() @ expand(torch, kk).double().transpose(-1, -2)) * sc
        if mm is not None:
            s = s + mm.double()
        if causal:
            s = s.masked_fill(~scores_mask(torch, qq.device), -math.inf)
        lse_ = torch.logsumexp(s, -1)
        p = torch.softmax(s, -1).nan_to_num(0.0)
        out = [p @ expand(torch, vv).double()]
        return out + ([lse_] if lse else [])

    def torch_same_dtype(torch, qq, kk, vv, mm=None, *rest):
        if mask_shape is None:
            mm = None
        if dropout_p:
            # The naive computation in the storage dtype, same mask.
            import refs
            s_ = (qq @ expand(torch, kk).transpose(-1, -2)) * sc
            if mm is not None:
                s_ = s_ + mm.to(qq.dtype)
            if causal:
                s_ = s_.masked_fill(~scores_mask(torch, qq.device), -math.inf)
            p_ = torch.softmax(s_.float(), -1).nan_to_num(0.0).to(qq.dtype)
            keep = torch.from_numpy(refs.dropout_keep(
                (B, Hq, Sq, Skv), seed, dropout_p)).to(qq.device)
            p_ = torch.where(keep, p_ / (1 - dropout_p), torch.zeros_like(p_))
            return [p_ @ expand(torch, vv)]
        am = None
        if mm is not None:
            am = mm.to(qq.dtype).expand(B, Hq, Sq, Skv)
        if causal:
            bias = torch.zeros(Sq, Skv, device=qq.device, dtype=qq.dtype)
            bias = bias.masked_fill(~scores_mask(torch, qq.device), -math.inf)
            am = bias if am is None else am + bias
        return [torch.nn.functional.scaled_dot_product_attention(
            qq, expand(torch, kk), expand(torch, vv), attn_mask=am,
            scale=sc)]

    name = "attention_b%dh%dkv%d_q%dk%dd%d_%s%s%s%s%s" % (
        B, Hq, Hkv, Sq, Skv, D, t, "_causal" if causal else "",
        ("_mask" + ("" if mask_t == "f32" else mask_t)) if mask_shape else "",
        "_lse" if lse else "",
        "_dropout" if dropout_p else "")
    if config:
        # Runs with this tile configuration instead of the shipped table's.
        name += "_" + config.replace(",", "_").replace("=", "")
        FLAGS[name] = ["--attention-config=" + config]
    return name, ir, make, ref, torch_same_dtype


def gpt_block_case():
    """examples/gpt_block.mlir end to end (fused by sinterc's pipeline):
    two LayerNorms, causal attention, projections, GELU MLP, residuals."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "..", "examples", "gpt_block.mlir")
    with open(path) as f:
        ir = f.read()
    B, T, C, H = 2, 64, 128, 4
    shapes = [(B, T, C), (C,), (C,), (C, 3 * C), (3 * C,), (C, C), (C,),
              (C,), (C,), (C, 4 * C), (4 * C,), (4 * C, C), (C,)]

    def make(torch, dev, gen):
        ins = []
        for i, shp in enumerate(shapes):
            t = torch.randn(*shp, generator=gen, device=dev)
            if len(shp) == 2:
                t = t / shp[0] ** 0.5  # weights
            elif i in (1, 7):
                t = 1 + 0.1 * t  # LayerNorm weights
            else:
                t = 0.1 * t if i else t
            ins.append(t)
        return ins

    def block(torch, x, ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w,
              ln2_b, fc_w, fc_b, mproj_w, mproj_b):
        F = torch.nn.functional
        h = F.layer_norm(x, (C,), ln1_w, ln1_b, 1e-5)
        q, k, v = (h @ attn_w + attn_b).split(C, -1)
        heads = [t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v)]
        y = F.scaled_dot_product_attention(*heads, is_causal=True)
        y = y.transpose(1, 2).reshape(B, T, C)
        x = x + y @ proj_w + proj_b
        h = F.layer_norm(x, (C,), ln2_w, ln2_b, 1e-5)
        h = F.gelu(h @ fc_w + fc_b, approximate="tanh")
        return x + h @ mproj_w + mproj_b

    def ref(torch, *ins):
        return [block(torch, *[t.double() for t in ins])]

    def torch_same_dtype(torch, *ins):
        return [block(torch, *ins)]

    # The four projections (qkv, attention out, MLP up and down) run
    # through cuBLASLt.
    LIBRARY_CALLS["gpt_block_f32"] = 4
    return "gpt_block_f32", ir, make, ref, torch_same_dtype


def two_stage_case(form, shape, tiles):
    """The attention case of TWO_STAGE_SHAPES[shape] with the two-stage
    wgmma form `form` and tiles `tiles`."""
    args, kwargs = TWO_STAGE_SHAPES[shape]
    return attention_case(*args, **kwargs, config=WGP + form + tiles)


def correctness_cases():
    cases = []
    for rows, cols in [(1, 768), (17, 4096), (113, 100), (7, 1000), (64, 8192)]:
        cases.append(rms_norm_case(rows, cols, "bf16"))
    cases.append(rms_norm_case(33, 512, "f32", weight=False, rstd=True))
    cases.append(rms_norm_case(5, 2048, "f16", rstd=True))
    for rows, cols in [(1, 768), (127, 768), (17, 4096), (3, 257)]:
        cases.append(layer_norm_case(rows, cols, "bf16"))
    cases.append(layer_norm_case(65, 1024, "f32", affine=False, stats=True))
    cases.append(layer_norm_case(9, 320, "f16", stats=True))
    # An f32 residual normalized straight into bf16 (training graphs under
    # bf16 autocast: the rounding folded into the op), odd rows and columns.
    cases.append(layer_norm_case(8192, 768, "f32", stats=True, out_t="bf16"))
    cases.append(layer_norm_case(33, 100, "f32", out_t="bf16"))
    # Variance ~1e-6 beside eps 1e-5 (LayerNorm) / mean square 1e-6 beside
    # 1e-6 (RMSNorm): epsilon's placement decides the result.
    cases.append(rms_norm_case(17, 4096, "bf16", amplitude=1e-3))
    cases.append(rms_norm_case(33, 512, "f32", weight=False, rstd=True,
                               amplitude=1e-3))
    cases.append(layer_norm_case(127, 768, "bf16", amplitude=1e-3))
    cases.append(layer_norm_case(65, 1024, "f32", affine=False, stats=True,
                                 amplitude=1e-3))
    cases.append(softmax_case([4, 8, 113], "f32"))
    cases.append(softmax_case([2, 4, 17, 257], "bf16", scale=0.125,
                              mask_shape=[17, 257]))
    cases.append(softmax_case([3, 1024], "f16", mask_shape=[3, 1]))
    cases.append(softmax_case([2, 5, 4096], "bf16", scale=0.5))
    # Over a leading axis (channels; a column softmax with a masked column).
    cases.append(softmax_case([2, 64, 7, 9], "bf16", dim=1))
    cases.append(softmax_case([300, 129], "f32", scale=0.5, mask_shape=[1, 129],
                              dim=0))
    for form in ("tanh", "erf"):
        cases.append(bias_gelu_case(113, 768, "bf16", form))
        cases.append(bias_gelu_case(64, 100, "f32", form))
    cases.append(bias_gelu_case(17, 3072, "f16", "tanh"))
    cases.append(adamw_case([[1000], [16, 16], [12293], [70000]]))
    cases.append(dropout_residual_case(113, 768))
    cases.append(dropout_residual_case(7, 100, "f32", p=0.5))
    cases.append(dropout_residual_case(64, 4096, "f16", p=0.25))
    # Slots of two elements (a word of two draws, picked from its call) and
    # of one (a call per element).
    cases.append(dropout_residual_case(9, 102, "f32", p=0.3))
    cases.append(dropout_residual_case(5, 33, "bf16", p=0.2))
    cases.append(gpt_block_case())
    cases.append(unfused_mlp_case())
    cases.append(unfused_mlp_case(64, 128, 130, "bf16"))
    # Leftover reductions and transposed matmuls: the serial kernel.
    cases.append(reduce_sum_case([77, 1000], 1, "f32"))
    # Rows as vectors of 8 bf16; a block per row (64 rows) with vectors.
    cases.append(reduce_sum_case([77, 1000], 1, "bf16"))
    cases.append(reduce_sum_case([64, 50264], 1, "bf16", form="extf"))
    cases.append(reduce_sum_case([300, 1000], 0, "bf16"))
    cases.append(reduce_sum_case([300, 1000], 0, "bf16", form="extf"))
    cases.append(reduce_max_case([6, 333, 40], 1, "f32"))
    # A warp per output element (256 points or more): a cross-entropy's
    # row max and row sum over GPT-2's vocabulary, bf16 rows summed in f32,
    # and a column sum whose lanes stride over rows.
    cases.append(reduce_max_case([64, 50257], 1, "f32"))
    cases.append(reduce_sum_case([64, 50257], 1, "f32"))
    cases.append(reduce_sum_case([9, 4099], 1, "bf16", form="extf"))
    cases.append(reduce_sum_case([1000, 300], 0, "f32"))
    # GPT-2's bias gradients (B8 T1024): the column form's 16 chunks, and a
    # ragged column count (its last block's lanes past the end).
    cases.append(reduce_sum_case([8192, 768], 0, "bf16", form="extf"))
    cases.append(reduce_sum_case([4099, 2309], 0, "bf16"))
    # Lanes of 8 bf16 (16-byte loads: the MLP's 3072 columns), of 4 f32,
    # and vectors over a leading parallel dimension (a [4, 3072] result).
    cases.append(reduce_sum_case([8192, 3072], 0, "bf16"))
    cases.append(reduce_sum_case([4097, 2304], 0, "f32"))
    cases.append(reduce_sum_case([4, 2048, 3072], 1, "bf16", form="extf"))
    # Few long reductions take a block per element (a loss's sum, its
    # count of labels): the warps' totals meet in shared memory; integer
    # sums split too (a warp per row).
    cases.append(reduce_sum_case([8193], 0, "f32"))
    cases.append(reduce_sum_case([3, 5000], 1, "bf16"))
    cases.append(reduce_max_case([2, 40000], 1, "f32"))
    cases.append(count_case([8192]))
    cases.append(count_case([500, 300]))
    # A logsumexp's two reductions as one online pass (a warp per row).
    cases.append(logsumexp_case(40, 50257))
    cases.append(logsumexp_case(7, 1000, guard=False))
    # Over a slice of a padded product, read in place (and copied out).
    cases.append(sliced_statistics_case(40, 50264, 50257))
    cases.append(sliced_statistics_case(300, 1032, 1025))
    cases.append(padded_logits_case(40, 50264, 50257))
    cases.append(padded_logits_case(33, 1032, 1025))
    cases.append(padded_logits_case(9, 40, 29, start=3))
    cases.append(sliced_statistics_case(9, 700, 613, start=5, copy=False))
    # Rows read as vectors (RowVectorReduction.cpp): GPT-2's statistics
    # (8 bf16 a lane, one point past the last vector), 4 f32 with three
    # past it, 2 bf16 from an offset of 2.
    cases.append(sliced_statistics_case(40, 50264, 50257, copy=False,
                                        t="bf16"))
    cases.append(sliced_statistics_case(9, 700, 611, start=4, copy=False))
    cases.append(sliced_statistics_case(9, 700, 613, start=2, copy=False,
                                        t="bf16"))
    cases.append(bool_mask_case())
    cases.append(odd_slice_case())
    # Rows of odd length: slots across rows (GPT-2's logits sliced from
    # their padded product, and a chain over them).
    cases.append(odd_slice_case(rows=64, cols=1010, start=0, width=1001))
    cases.append(odd_rows_case())
    # High pads as elementwise kernels (PadKernel.cpp): GPT-2's
    # cross-entropy gradient padded to 16-byte rows for the lm_head's
    # GEMMs (its body in the pad's kernel), rows padded with a nonzero
    # value, both dimensions, and the copy of an argument.
    cases.append(padded_chain_case(300, 1001, 0, 7))
    cases.append(padded_chain_case(257, 64, 7, 0, "f32", "generic", -1.5))
    cases.append(padded_chain_case(33, 100, 3, 4, "bf16", "fused", 2.0))
    cases.append(padded_chain_case(129, 77, 2, 3, "f32", "copy"))
    # Concatenations as one kernel per part (ConcatKernel.cpp): GPT-2's
    # dQ/dK/dV joined through their transposes, and odd rows.
    cases.append(concat_heads_case())
    cases.append(concat_rows_case())
    cases.append(fpowi_case())
    cases.append(combined_casts_case())
    cases.append(linear_bias_case())
    cases.append(linear_bias_case(rounded_first=True))
    cases.append(mlp_gelu_case())
    cases.append(mlp_gelu_case(backward=True))
    cases.append(qkv_heads_case())
    cases.append(matmul_transposed_b_case(100, 96, 200, "f32"))
    cases.append(matmul_transposed_b_case(64, 128, 130, "bf16"))
    cases.append(matmul_transposed_b_case(33, 64, 40, "bf16", batch=2))
    # Leftover matmuls with default maps: cuBLASLt, and the kernel alone.
    cases += matmul_cases()
    cases += [
        attention_case(1, 2, 2, 1, 1, 64),
        attention_case(2, 4, 2, 17, 17, 64, causal=True, lse=True),
        attention_case(1, 2, 2, 113, 127, 128, causal=True),
        attention_case(1, 2, 1, 127, 113, 64, causal=True, lse=True),
        attention_case(2, 2, 2, 257, 257, 128, mask_shape=[1, 1, 257, 257]),
        attention_case(1, 4, 4, 128, 128, 64, "f16", causal=True),
        attention_case(1, 3, 1, 65, 200, 32, "f32", mask_shape=[200],
                       lse=True, scale=0.3),
        attention_case(2, 8, 2, 1023, 1023, 128, causal=True),
        # The table's D128 kernels at the edges of their O tiles: one query
        # row (decode, GQA; the short-sequence entry: persistent blocks, O
        # stored with TMA, 63 of the 64 rows clipped) and 5 rows over 2000
        # keys (the general entry), with lse.
        attention_case(2, 8, 2, 1, 77, 128, lse=True),
        attention_case(1, 4, 4, 5, 2000, 128, lse=True),
        attention_case(1, 4, 2, 77, 130, 64, causal=True, lse=True,
                       dropout_p=0.2),
        # Tensor-core tile shapes beyond the table's, and the CUDA-core
        # kernel on shapes the table sends to the tensor cores.
        attention_case(1, 4, 2, 300, 333, 128, causal=True, lse=True,
                       config="warps=4,mtiles=2,bn=64"),
        attention_case(2, 2, 2, 190, 190, 64, config="warps=8,mtiles=1,bn=32"),
        attention_case(1, 2, 2, 257, 129, 64, "f16", causal=True,
                       mask_shape=[257, 129], config="warps=4,mtiles=1,bn=128"),
        attention_case(1, 2, 1, 200, 200, 256, causal=True, lse=True),
        attention_case(1, 2, 2, 130, 130, 128, causal=True, lse=True,
                       config="cuda-cores"),
        attention_case(1, 2, 2, 64, 64, 128, dropout_p=0.1,
                       config="warps=4,mtiles=1,bn=64"),
        # sm_90a warpgroup MMA (wgmma): ragged tails, causal both ways,
        # GQA, two warpgroups per block, masks, lse, dropout, f16.
        attention_case(1, 2, 2, 64, 64, 64, config=WG + "warps=4,bn=64"),
        attention_case(2, 4, 2, 300, 333, 128, causal=True, lse=True,
                       config=WG + "warps=4,bn=64"),
        attention_case(1, 2, 1, 257, 190, 64, causal=True, lse=True,
                       config=WG + "warps=8,bn=128"),
        attention_case(1, 4, 4, 200, 200, 128, config=WG + "warps=8,bn=64"),
        attention_case(1, 2, 2, 129, 129, 64, "f16", causal=True,
                       mask_shape=[129, 129], config=WG + "warps=4,bn=128"),
        attention_case(1, 4, 2, 77, 130, 128, causal=True, lse=True,
                       dropout_p=0.2, config=WG + "warps=4,bn=64"),
        # The shipped table's kernels with dropout drawn by groups of four
        # keys, and with a bf16 [B,1,S,S] mask (the training variants that
        # bench_attention.py times).
        attention_case(2, 4, 4, 300, 512, 128, dropout_p=0.1),
        attention_case(1, 4, 4, 1024, 1024, 64, causal=True, dropout_p=0.1),
        attention_case(2, 4, 4, 300, 512, 128, mask_shape=[2, 1, 300, 512],
                       mask_t="bf16"),
    ]
    cases += backward_cases()
    # The key-tile kernel's other form (sm_90a runs wgmma by default).
    cases += [variant(c, "mmasync", ["--cuda-attention-backward=mma-sync"])
              for c in backward_cases() if c[0] in MMA_SYNC_BACKWARD]
    cases += [two_stage_case(*c) for c in TWO_STAGE_CASES]
    cases += attention_heads_cases()
    cases += attention_backward_heads_cases()
    # Residual adds computed by the norm kernel (ragged rows, odd columns).
    cases += [residual_norm_case(8192 // 64, 768),
              residual_norm_case(33, 4096, "f16", "rms_norm"),
              residual_norm_case(7, 100, "f32")]
    # Persistent warp-specialized blocks: with --cuda-sm-count=3 each block
    # takes several work items (the barriers' phases run across items;
    # causal items without keys in between).
    cases += [variant(two_stage_case(*c), "sm3", ["--cuda-sm-count=3"])
              for c in PERSISTENT_CASES]
    cases.append(adamw_case([[4096]] * 40, lr=3e-4, step=1.0, wd=0.0,
                            name="adamw_40_tensors_two_launches"))
    # Cache-hint variants of the memory-bound kernels (bench/NOTES.md): the
    # inline-PTX loads and stores must give the same results, also on
    # predicated rows, and f16/f32 rows and narrow tensors that keep plain
    # accesses.
    for hint in CACHE_HINTS:
        cases.append(with_cache_hint(rms_norm_case(17, 4096, "bf16"), hint))
        cases.append(with_cache_hint(
            adamw_case([[1000], [16, 16], [12293], [70000]]), hint))
    cases.append(with_cache_hint(layer_norm_case(3, 257, "bf16"),
                                 "evict-first"))
    cases.append(with_cache_hint(layer_norm_case(127, 768, "bf16"),
                                 "evict-first"))
    cases.append(with_cache_hint(rms_norm_case(7, 1000, "bf16"),
                                 "streaming"))
    cases.append(with_cache_hint(
        layer_norm_case(65, 1024, "f32", affine=False, stats=True),
        "evict-first"))
    cases.append(with_cache_hint(
        softmax_case([2, 4, 17, 257], "bf16", scale=0.125,
                     mask_shape=[17, 257]), "evict-first"))
    cases.append(with_cache_hint(softmax_case([2, 5, 4096], "bf16",
                                              scale=0.5), "no-allocate"))
    cases += persistent_cases()
    return cases


def persistent_cases():
    """Correctness of the persistent row and AdamW kernels (sinterc
    --cuda-row-persistent / --cuda-adamw-persistent; bench/NOTES.md). Most
    run on a grid shrunk to one or two blocks (SMALL) so that every block
    loops over several row groups / chunks, with a partial last group, a
    prefetch past the end and, for RMSNorm, reused reduction slots."""
    small = ["--cuda-sm-count=2", "--cuda-persistent-ctas=1"]
    one = ["--cuda-sm-count=1", "--cuda-persistent-ctas=1"]
    cases = []

    def rows(case, modes, extra=(), tag=""):
        for m in modes:
            cases.append(variant(case, "rowp%d%s" % (m, tag),
                                 ["--cuda-row-persistent=%d" % m]
                                 + list(extra)))

    # 17 rows, two per block (9 groups, the last half empty), 128 lanes per
    # row: RMSNorm's reduction through shared memory, row after row.
    rows(rms_norm_case(17, 4096, "bf16"), (1, 2, 3), small, "-small")
    # The chip-sized grid: one group per block, the prefetch predicated off.
    rows(rms_norm_case(17, 4096, "bf16"), (2,))
    # Odd columns: scalar accesses, a third vector partly past the row end.
    rows(layer_norm_case(3, 257, "bf16"), (1, 2, 3), one, "-one")
    rows(layer_norm_case(127, 768, "bf16"), (1, 2), small, "-small")
    # 100 columns: 4-element vectors, the last one per lane out of the row.
    rows(rms_norm_case(113, 100, "bf16"), (2, 3), small, "-small")
    # f32 (no conversion, weights not carried), statistics outputs.
    rows(layer_norm_case(65, 1024, "f32", affine=False, stats=True), (2,),
         small, "-small")
    rows(rms_norm_case(33, 512, "f32", weight=False, rstd=True), (1, 2),
         small, "-small")
    # f16 weights carried packed, two warps per row, one block.
    rows(rms_norm_case(5, 2048, "f16", rstd=True), (1, 2), one, "-one")
    # Four vectors per thread (the default is two).
    rows(rms_norm_case(17, 4096, "bf16"), (1, 2, 3),
         small + ["--cuda-row-vectors=4"], "-rv4-small")
    rows(layer_norm_case(127, 768, "bf16"), (2, 3),
         small + ["--cuda-row-vectors=4"], "-rv4-small")
    # The row kernels with four vectors per thread, not persistent.
    cases.append(variant(rms_norm_case(17, 4096, "bf16"), "rv4",
                         ["--cuda-row-vectors=4"]))
    cases.append(variant(layer_norm_case(127, 768, "bf16"), "rv4",
                         ["--cuda-row-vectors=4"]))
    # Softmax shares the loop: masks along the row and per row, scale.
    rows(softmax_case([2, 4, 17, 257], "bf16", scale=0.125,
                      mask_shape=[17, 257]), (1, 2), small, "-small")
    rows(softmax_case([3, 1024], "f16", mask_shape=[3, 1]), (2,), one,
         "-one")
    rows(softmax_case([2, 5, 4096], "bf16", scale=0.5), (3,), small,
         "-small")
    # AdamW: mixed shapes (four groups, 16-byte and scalar vectors, ragged
    # chunks), several tensors of one shape (the buffer switch), two
    # launches.
    mixed = adamw_case([[1000], [16, 16], [12293], [70000]])
    for m in (0, 1, 2):
        cases.append(variant(mixed, "adamwp%d" % m,
                             ["--cuda-adamw-persistent=%d" % m]))
        cases.append(variant(mixed, "adamwp%d-small" % m,
                             ["--cuda-adamw-persistent=%d" % m] + small))
    cases.append(variant(adamw_case([[12293]] * 5, name="adamw_5x12293"),
                         "adamwp2-small",
                         ["--cuda-adamw-persistent=2"] + small))
    cases.append(variant(adamw_case([[70000]] * 3, name="adamw_3x70000"),
                         "adamwp2-one", ["--cuda-adamw-persistent=2"] + one))
    cases.append(variant(adamw_case([[4096]] * 40, lr=3e-4, step=1.0, wd=0.0,
                                    name="adamw_40_tensors_two_launches"),
                         "adamwp0", ["--cuda-adamw-persistent=0"]))
    return cases


def attention_bench_cases():
    """The attention shapes of BENCHMARKS.md (bf16 forward)."""
    return [attention_case(2, 16, 16, 4096, 4096, 64),
            attention_case(2, 16, 16, 4096, 4096, 64, causal=True),
            attention_case(2, 16, 16, 4096, 4096, 128),
            attention_case(2, 16, 16, 4096, 4096, 128, causal=True),
            attention_case(16, 16, 16, 1024, 1024, 128),
            attention_case(1, 16, 16, 16384, 16384, 128),
            attention_case(1, 16, 16, 16384, 16384, 128, causal=True)
            ] + attention_training_bench_cases()


def attention_training_bench_cases():
    """The forward's training variants of the issue's shape (B2 H16 S4096
    D128 bf16): dropout 0.1 (plain and causal) and an additive [B,1,S,S]
    bf16 mask, timed beside the same variant of the peers."""
    shape = (2, 16, 16, 4096, 4096, 128)
    drop = attention_case(*shape, dropout_p=0.1)
    return [drop,
            # Half-width key tiles: fewer live registers beside the Philox
            # words.
            variant(drop, "bn64", ["--attention-config=wgmma,pipe,mbar,pp,"
                                   "ws,tmastore,warps=8,mtiles=1,bn=64"]),
            attention_case(*shape, causal=True, dropout_p=0.1),
            attention_case(*shape, mask_shape=[2, 1, 4096, 4096],
                           mask_t="bf16")]


# Tensor-core backward cases also run with the mma.sync key-tile kernel.
MMA_SYNC_BACKWARD = {
    "attention_backward_2x4x2x200x333x128_bf16",
    "attention_backward_1x2x2x100x300x128_f16_causal",
    "attention_backward_2x12x12x1024x1024x64_bf16_causal",
    "attention_backward_2x4x2x100x130x64_bf16_causal_constmask",
    "attention_backward_2x4x2x200x336x128_bf16_causal_dropout",
    "attention_backward_1x4x4x77x130x64_bf16_causal_dropout",
}


# Variants of a case: the same program compiled with extra sinterc flags,
# named <case>_<label>; by variant name, (base case name, label).
# bench_membound.py times a variant right after its base case (Sinter alone,
# no peers) and tabulates the variants of each base case.
VARIANTS = {}


def variant(case, label, flags):
    """`case` compiled with the extra sinterc `flags`, named <case>_<label>."""
    name = case[0] + "_" + label
    FLAGS[name] = FLAGS.get(case[0], []) + list(flags)
    VARIANTS[name] = (case[0], label)
    return (name,) + tuple(case[1:])


def variants(case, flag_sets):
    """`case`, then one variant per (label, flags) of `flag_sets`."""
    return [case] + [variant(case, label, flags)
                     for label, flags in flag_sets.items()]


# Values of sinterc --cuda-cache-hints other than the default "none".
CACHE_HINTS = ["evict-first", "no-allocate", "l2-256b", "streaming"]


def with_cache_hint(case, hint):
    """`case` compiled with --cuda-cache-hints=`hint`, named
    <case>_hint-<hint>."""
    return variant(case, "hint-" + hint, ["--cuda-cache-hints=" + hint])


def hint_variants(case, hints=None):
    """`case`, then one variant per cache hint."""
    return variants(case, {"hint-" + h: ["--cuda-cache-hints=" + h]
                           for h in (hints or CACHE_HINTS)})


def _row_flags(mode, vectors=2, ctas=0):
    return (["--cuda-row-persistent=%d" % mode] if mode else []) + (
        ["--cuda-row-vectors=%d" % vectors] if vectors != 2 else []) + (
        ["--cuda-persistent-ctas=%d" % ctas] if ctas else [])


# Variants of the norms and AdamW timed by bench_membound.py beside the
# defaults (two 16-byte vectors per thread in the row kernels, the
# prefetching persistent AdamW): the previous defaults (rv4: four vectors
# per thread; adamwp0: up to 1024 AdamW blocks), and the runner-up of the
# persistent AdamW (adamwp2-c5: five blocks per SM). The persistent row
# kernels (rowp<mode>, --cuda-row-persistent) lost 3-14% in the run of
# 2026-11-29 (bench/NOTES.md) and are checked for correctness only.
ROW_BENCH_VARIANTS = {
    "rv4": _row_flags(0, 4),
}
ADAMW_BENCH_VARIANTS = {
    "adamwp0": ["--cuda-adamw-persistent=0"],
    "adamwp2-c5": ["--cuda-adamw-persistent=2", "--cuda-persistent-ctas=5"],
}


def bench_cases():
    """The memory-bound shapes of BENCHMARKS.md. RMSNorm, LayerNorm and
    AdamW (short of 90% of copy) also come with their persistent variants
    (<case>_<label>), timed right after their base case. (The cache-hint
    variants, hint_variants(), were timed twice and lost: bench/NOTES.md.)"""
    return (variants(rms_norm_case(16384, 4096, "bf16"), ROW_BENCH_VARIANTS) +
            variants(layer_norm_case(16384, 4096, "bf16"),
                     ROW_BENCH_VARIANTS) +
            [bias_gelu_case(16384, 8192, "bf16", "tanh"),
             dropout_residual_case(16384, 8192, "bf16", p=0.1)] +
            variants(adamw_case([[1 << 20]] * 300, name="adamw_300x1M"),
                     ADAMW_BENCH_VARIANTS) +
            # The bias gradients of GPT-2's training step (B8 T1024): its
            # MLP's, attention's QKV and residual stream's column sums.
            [reduce_sum_case([8192, n], 0, "bf16") for n in (3072, 2304, 768)])
