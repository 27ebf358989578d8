# Part of the Sinter project.
"""sinter.torch.attention: sinter.attention as a torch custom op with
autograd, and as a Hugging Face attention implementation.

The forward saves O and the logsumexp (never the S x S probabilities); the
backward is sinter.attention_backward, which recomputes the probabilities
from them. Shapes are SDPA's: q [B, Hq, Sq, D], k and v [B, Hkv, Skv, D]
(grouped-query attention when Hkv divides Hq), an optional additive mask
that broadcasts to [B, Hq, Sq, Skv] (a boolean mask: True = attend, as
SDPA), causal masking aligned to the bottom-right corner. Dropout draws
its mask from Philox with a seed taken from torch's generator, and the
backward drops the same elements.
"""

import torch

from . import _cache
from ._tensors import flt, tensor_type, to_numpy, from_numpy


def _attrs(causal, scale, dropout_p):
    attrs = []
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append("scale = %s : f32" % flt(scale))
    if dropout_p:
        attrs.append("dropout_p = %s : f64" % flt(dropout_p))
    return " {%s}" % ", ".join(attrs) if attrs else ""


def _program(q, k, v, mask, causal, scale, dropout_p, mask_grad):
    """The compiled program of attention_ir for q's device."""
    return _cache.program(
        attention_ir(q, k, v, mask, causal, scale, dropout_p, mask_grad),
        _cache.target_of(q.device))


def attention_ir(q, k, v, mask, causal, scale, dropout_p, mask_grad):
    """The forward (@fwd -> o, lse) and backward (@bwd -> dq, dk, dv
    [, dmask]) of one attention signature, in one program (any tensors
    with the shapes and dtypes, meta ones included)."""
    tq, tk, tv = tensor_type(q), tensor_type(k), tensor_type(v)
    to = "tensor<%dx%dx%dx%dx%s>" % (q.shape[0], q.shape[1], q.shape[2],
                                     v.shape[3], tq.rsplit("x", 1)[1][:-1])
    tl = "tensor<%dx%dx%dxf32>" % tuple(q.shape[:3])
    args, extra = ["%q: " + tq, "%k: " + tk, "%v: " + tv], ""
    tm = None
    if mask is not None:
        tm = tensor_type(mask)
        args.append("%m: " + tm)
        extra += " mask(%%m : %s)" % tm
    if dropout_p:
        args.append("%seed: i64")
        extra += " seed(%seed)"
    attrs = _attrs(causal, scale, dropout_p)
    grads = [tq, tk, tv] + ([tm] if mask_grad else [])
    names = "%dq, %dk, %dv" + (", %dm" if mask_grad else "")
    ir = """func.func @fwd(%(args)s) -> (%(to)s, %(tl)s) {
  %%o, %%lse = sinter.attention %%q, %%k, %%v%(extra)s%(attrs)s : %(tq)s, %(tk)s, %(tv)s -> %(to)s, %(tl)s
  return %%o, %%lse : %(to)s, %(tl)s
}
func.func @bwd(%%do: %(to)s, %(args)s, %%o: %(to)s, %%lse: %(tl)s) -> (%(grads)s) {
  %(names)s = sinter.attention_backward %%do, %%q, %%k, %%v, %%o, %%lse%(extra)s%(attrs)s : %(to)s, %(tq)s, %(tk)s, %(tv)s, %(to)s, %(tl)s -> %(tq)s, %(tk)s, %(tv)s%(dm)s
  return %(names)s : %(grads)s
}
""" % dict(args=", ".join(args), to=to, tl=tl, extra=extra, attrs=attrs,
           tq=tq, tk=tk, tv=tv, grads=", ".join(grads), names=names,
           dm=" dmask(%s)" % tm if mask_grad else "")
    return ir


def _inputs(q, k, v, mask, dropout_p, seed):
    """The arguments @fwd takes (and @bwd between dO and O): q, k, v, then
    the mask and the seed where the op has them."""
    return [q, k, v] + ([mask] if mask is not None else []) + \
        ([seed] if dropout_p else [])


def _call(prog, name, args):
    """Runs function `name` on `args` (tensors, and ints for the seed) in
    the program's argument order: on CUDA in torch's current stream, on the
    CPU through numpy. Returns a list of tensors."""
    fn = prog[name]
    cuda = any(isinstance(a, torch.Tensor) and a.device.type == "cuda"
               for a in args)
    if cuda:
        outs = fn(*[a.contiguous() if isinstance(a, torch.Tensor) else a
                    for a in args])
        return list(outs) if isinstance(outs, tuple) else [outs]
    outs = fn(*[to_numpy(a) if isinstance(a, torch.Tensor) else a
                for a in args])
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    return [from_numpy(o) for o in outs]


@torch.library.custom_op("sinter::attention_forward", mutates_args=())
def _forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
             mask: torch.Tensor | None, causal: bool, scale: float | None,
             dropout_p: float, seed: int) -> tuple[torch.Tensor,
                                                   torch.Tensor]:
    prog = _program(q, k, v, mask, causal, scale, dropout_p, False)
    o, lse = _call(prog, "fwd", _inputs(q, k, v, mask, dropout_p, seed))
    return o, lse


@_forward.register_fake
def _(q, k, v, mask, causal, scale, dropout_p, seed):
    o = q.new_empty(q.shape[:3] + v.shape[3:])
    return o, q.new_empty(q.shape[:3], dtype=torch.float32)


@torch.library.custom_op("sinter::attention_backward", mutates_args=())
def _backward(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
              v: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
              mask: torch.Tensor | None, causal: bool, scale: float | None,
              dropout_p: float, seed: int,
              mask_grad: bool) -> list[torch.Tensor]:
    prog = _program(q, k, v, mask, causal, scale, dropout_p, mask_grad)
    return _call(prog, "bwd",
                 [do] + _inputs(q, k, v, mask, dropout_p, seed) + [o, lse])


@_backward.register_fake
def _(do, q, k, v, o, lse, mask, causal, scale, dropout_p, seed, mask_grad):
    # Dense, as the programs return them (empty_like would promise the
    # strides of a transposed q).
    grads = [q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)]
    if mask_grad:
        grads.append(mask.new_empty(mask.shape))
    return grads


def _setup_context(ctx, inputs, output):
    q, k, v, mask, causal, scale, dropout_p, seed = inputs
    o, lse = output
    ctx.save_for_backward(q, k, v, mask, o, lse)
    ctx.flags = (causal, scale, dropout_p, seed,
                 mask is not None and mask.requires_grad)


def _autograd_backward(ctx, do, dlse):
    q, k, v, mask, o, lse = ctx.saved_tensors
    causal, scale, dropout_p, seed, mask_grad = ctx.flags
    grads = _backward(do.contiguous(), q, k, v, o, lse, mask, causal, scale,
                      dropout_p, seed, mask_grad)
    dmask = grads[3] if mask_grad else None
    return grads[0], grads[1], grads[2], dmask, None, None, None, None


_forward.register_autograd(_autograd_backward, setup_context=_setup_context)


def _check_arguments(q, k, v, attn_mask, dropout_p):
    """SDPA's shape rules, said in SDPA's terms before any IR is built."""
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise ValueError("sinter.torch.attention: %s must be a 4-d tensor "
                             "[batch, heads, seq, head_dim], got %s" % (
                                 name, tuple(t.shape) if isinstance(
                                     t, torch.Tensor) else type(t).__name__))
    if not (q.dtype == k.dtype == v.dtype) or q.dtype not in (
            torch.float32, torch.float16, torch.bfloat16):
        raise ValueError("sinter.torch.attention: query, key and value must "
                         "share one dtype of f32, f16 or bf16, got %s, %s, %s"
                         % (q.dtype, k.dtype, v.dtype))
    if not (q.device == k.device == v.device):
        raise ValueError("sinter.torch.attention: query, key and value are on "
                         "%s, %s and %s" % (q.device, k.device, v.device))
    B, Hq, _, D = q.shape
    if k.shape[0] != B or v.shape[0] != B or k.shape[3] != D or \
            k.shape[:3] != v.shape[:3]:
        raise ValueError("sinter.torch.attention: shapes do not match: query "
                         "%s, key %s, value %s" % (tuple(q.shape),
                                                   tuple(k.shape),
                                                   tuple(v.shape)))
    if k.shape[1] == 0 or Hq % k.shape[1]:
        raise ValueError("sinter.torch.attention: %d query heads are not a "
                         "multiple of %d key/value heads" % (Hq, k.shape[1]))
    if attn_mask is not None:
        try:
            torch.broadcast_shapes(tuple(attn_mask.shape),
                                   (B, Hq, q.shape[2], k.shape[2]))
        except RuntimeError:
            raise ValueError("sinter.torch.attention: a mask of shape %s does "
                             "not broadcast to [batch, heads, q_len, k_len] "
                             "= %s" % (tuple(attn_mask.shape),
                                       (B, Hq, q.shape[2], k.shape[2]))) \
                from None
    if not 0.0 <= float(dropout_p) < 1.0:
        raise ValueError("sinter.torch.attention: dropout_p must be in [0, 1),"
                         " got %r" % (dropout_p,))


def attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
              scale=None, training=True, generator=None):
    """Scaled dot-product attention (SDPA's arguments) on Sinter's kernels.

    A boolean `attn_mask` (True = attend) becomes an additive 0 / -inf mask
    of q's dtype. `dropout_p` applies when `training`; its seed is drawn
    from `generator` (torch's default generator when None).
    """
    _check_arguments(q, k, v, attn_mask, dropout_p)
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros(attn_mask.shape, dtype=q.dtype,
                                device=q.device).masked_fill(
                                    ~attn_mask, float("-inf"))
    p = float(dropout_p) if training else 0.0
    seed = 0
    if p > 0.0:
        seed = int(torch.randint(0, 2 ** 62, (), generator=generator,
                                 device="cpu"))
    o, _ = _forward(q, k, v, attn_mask, bool(is_causal),
                    None if scale is None else float(scale), p, seed)
    return o


def hf_attention_forward(module, query, key, value, attention_mask,
                         dropout=0.0, scaling=None, is_causal=None, **kwargs):
    """A Hugging Face attention implementation (transformers'
    AttentionInterface): q/k/v [B, H, S, D] in, [B, S, H, D] out."""
    if attention_mask is not None and attention_mask.ndim == 4:
        attention_mask = attention_mask[:, :, :, :key.shape[-2]]
    if is_causal is None:
        is_causal = (query.shape[2] > 1 and attention_mask is None
                     and getattr(module, "is_causal", True))
    out = attention(query, key, value, attn_mask=attention_mask,
                    dropout_p=dropout, is_causal=is_causal, scale=scaling,
                    training=module.training)
    return out.transpose(1, 2).contiguous(), None


def register_hf_attention(name="sinter"):
    """Registers `name` (attn_implementation="sinter") with transformers."""
    from transformers import AttentionInterface
    AttentionInterface.register(name, hf_attention_forward)
