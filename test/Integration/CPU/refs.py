# Part of the Sinter project.
"""Independent float64 numpy references for the CPU integration tests.

Written from the op descriptions in SinterOps.td (the contract), not from
the lowering: every reference upcasts its inputs to float64.
"""

import os
import sys

import numpy as np

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bf16 cases are skipped without ml_dtypes
    ml_dtypes = None
    BF16 = None


# --------------------------------------------------------------------------
# Test plumbing
# --------------------------------------------------------------------------

def rng(test_name):
    """A fresh generator; prints its seed (set $SINTER_TEST_SEED to replay)."""
    seed = os.environ.get("SINTER_TEST_SEED")
    seed = int(seed) if seed else int.from_bytes(os.urandom(4), "little")
    print("%s: SINTER_TEST_SEED=%d" % (test_name, seed))
    sys.stdout.flush()
    return np.random.default_rng(seed)


def mlir_type(dtype):
    """The MLIR element type of a numpy dtype."""
    dtype = np.dtype(dtype)
    if BF16 is not None and dtype == BF16:
        return "bf16"
    return {"float16": "f16", "float32": "f32", "float64": "f64",
            "int32": "i32", "int64": "i64", "bool": "i1"}[dtype.name]


def tensor_type(shape, dtype):
    dims = "".join("%dx" % d for d in shape)
    return "tensor<%s%s>" % (dims, mlir_type(dtype))


def random(gen, shape, dtype, low=-1.0, high=1.0):
    """Uniform random values in [low, high), stored in `dtype`."""
    return gen.uniform(low, high, size=shape).astype(dtype)


def unit_roundoff(dtype):
    dtype = np.dtype(dtype)
    if BF16 is not None and dtype == BF16:
        return 2.0 ** -8
    return float(np.finfo(dtype).eps) / 2


def assert_close(name, got, want, atol, rtol=0.0):
    """Fails with the worst element when |got - want| > atol + rtol*|want|."""
    got64 = np.asarray(got).astype(np.float64)
    want64 = np.asarray(want).astype(np.float64)
    assert got64.shape == want64.shape, (name, got64.shape, want64.shape)
    same_inf = np.isinf(want64) & (got64 == want64)
    with np.errstate(invalid="ignore"):
        err = np.where(same_inf, 0.0, np.abs(got64 - want64))
    bound = atol + rtol * np.abs(np.where(same_inf, 0.0, want64))
    bad = ~(err <= bound)  # NaN counts as bad
    if bad.any():
        idx = np.unravel_index(np.argmax(np.where(bad, 1.0, 0.0) *
                                         np.nan_to_num(err, nan=np.inf)),
                               err.shape)
        raise AssertionError(
            "%s: %d of %d elements out of tolerance; worst at %s: got %r, "
            "want %r (atol %g, rtol %g)"
            % (name, int(bad.sum()), bad.size, tuple(int(i) for i in idx),
               got64[idx], want64[idx], atol, rtol))
    print("%s: ok (max err %.3g)" % (name, float(np.max(err, initial=0.0))))


def rounded(x, dtype):
    """`x` rounded to `dtype` and back to float64 (a same-dtype result)."""
    return np.asarray(x).astype(dtype).astype(np.float64)


# --------------------------------------------------------------------------
# Philox4x32-10 (dropout)
# --------------------------------------------------------------------------

_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)


def philox_draws(offsets, seed):
    """The 16-bit draw of every offset o: half o % 2 (low first) of word
    (o % 8) // 2 of Philox4x32-10 at counter (o // 8, 0) with key `seed`;
    the 128-bit counter's words are (lo(o//8), hi(o//8), 0, 0) and the
    key's (lo(seed), hi(seed))."""
    offsets = np.asarray(offsets, dtype=np.uint64)
    block = offsets >> np.uint64(3)
    c0 = block & _MASK32
    c1 = block >> np.uint64(32)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    seed = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    k0 = seed & _MASK32
    k1 = seed >> np.uint64(32)
    for r in range(10):
        if r:
            k0 = (k0 + _PHILOX_W0) & _MASK32
            k1 = (k1 + _PHILOX_W1) & _MASK32
        p0 = _PHILOX_M0 * c0
        p1 = _PHILOX_M1 * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & _MASK32
        hi1, lo1 = p1 >> np.uint64(32), p1 & _MASK32
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    words = np.stack([c0, c1, c2, c3])
    index = ((offsets & np.uint64(7)) >> np.uint64(1)).astype(np.intp)
    word = np.take_along_axis(words, index[None, ...], axis=0)[0]
    shift = (offsets & np.uint64(1)) * np.uint64(16)
    return ((word >> shift) & np.uint64(0xFFFF)).astype(np.uint32)


def dropout_keep(shape, seed, p):
    """The keep mask of dropout over a row-major iteration space: a draw is
    kept iff it is at least floor(p * 2^16)."""
    offsets = np.arange(int(np.prod(shape)), dtype=np.uint64).reshape(shape)
    threshold = min(int(np.floor(p * 2.0 ** 16)), 0xFFFF)
    return philox_draws(offsets, seed) >= np.uint32(threshold)


# --------------------------------------------------------------------------
# Operator references (float64)
# --------------------------------------------------------------------------

def f64(x):
    return np.asarray(x).astype(np.float64)


def softmax(x, dim, scale=1.0, mask=None):
    s = f64(x) * scale
    if mask is not None:
        s = s + f64(mask)
    m = np.max(s, axis=dim, keepdims=True)
    all_masked = np.isneginf(m)
    e = np.exp(s - np.where(all_masked, 0.0, m))
    total = np.sum(e, axis=dim, keepdims=True)
    return np.where(all_masked, 0.0, e / np.where(all_masked, 1.0, total))


def layer_norm(x, normalized_rank=1, weight=None, bias=None, eps=1e-5):
    x = f64(x)
    axes = tuple(range(x.ndim - normalized_rank, x.ndim))
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * f64(weight)
    if bias is not None:
        y = y + f64(bias)
    lead = x.shape[:x.ndim - normalized_rank]
    return y, mean.reshape(lead), rstd.reshape(lead)


def rms_norm(x, normalized_rank=1, weight=None, eps=1e-6):
    x = f64(x)
    axes = tuple(range(x.ndim - normalized_rank, x.ndim))
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + eps)
    y = x * rstd
    if weight is not None:
        y = y * f64(weight)
    return y, rstd.reshape(x.shape[:x.ndim - normalized_rank])


def adamw(p, g, m, v, lr, step, beta1=0.9, beta2=0.999, eps=1e-8,
          weight_decay=0.01):
    p, g, m, v = f64(p), f64(g), f64(m), f64(v)
    p = p * (1 - lr * weight_decay)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** step)
    v_hat = v / (1 - beta2 ** step)
    p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return p, m, v


def gelu_tanh(x):
    x = f64(x)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    from math import erf
    x = f64(x)
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def _attention_probs(q, k, scale, causal, mask):
    """The softmax probabilities of sinter.attention's scores in float64
    (bottom-right causal alignment, GQA by head groups; rows without a
    visible key give 0), with k repeated over the group, the scale, the row
    max `m`, the row sum `total` and the `empty` rows."""
    B, Hq, Sq, D = q.shape
    Hkv, Skv = k.shape[1], k.shape[2]
    if scale is None:
        scale = 1.0 / np.sqrt(D)
    kr = np.repeat(k, Hq // Hkv, axis=1)
    s = scale * np.einsum("bhid,bhjd->bhij", q, kr)
    if mask is not None:
        s = s + np.broadcast_to(f64(mask), s.shape)
    if causal:
        i = np.arange(Sq)[:, None]
        j = np.arange(Skv)[None, :]
        s = np.where(j > i + (Skv - Sq), -np.inf, s)
    m = np.max(s, axis=-1, keepdims=True)
    empty = np.isneginf(m)
    e = np.exp(s - np.where(empty, 0.0, m))
    total = np.sum(e, axis=-1, keepdims=True)
    p = np.where(empty, 0.0, e / np.where(empty, 1.0, total))
    return p, kr, scale, m, total, empty


def attention(q, k, v, scale=None, causal=False, mask=None, dropout_p=0.0,
              seed=None):
    """Returns (out, lse) as in sinter.attention: bottom-right causal
    alignment, GQA by head groups, fully masked rows give 0 and -inf."""
    q, k, v = f64(q), f64(k), f64(v)
    B, Hq, Sq, _ = q.shape
    Skv = k.shape[2]
    p, _, _, m, total, empty = _attention_probs(q, k, scale, causal, mask)
    v = np.repeat(v, Hq // k.shape[1], axis=1)
    with np.errstate(divide="ignore"):
        lse = np.where(empty, -np.inf, np.where(empty, 0.0, m) +
                       np.log(np.where(empty, 1.0, total)))[..., 0]
    if dropout_p > 0.0:
        keep = dropout_keep((B, Hq, Sq, Skv), seed, dropout_p)
        p = np.where(keep, p / (1.0 - dropout_p), 0.0)
    return np.einsum("bhij,bhjd->bhid", p, v), lse


# --------------------------------------------------------------------------
# Same-dtype error (the tolerance rule of DESIGN.md)
# --------------------------------------------------------------------------

def same_dtype_error(want64, dtype, naive=None):
    """The error of a same-dtype computation against the float64 reference:
    of `naive` (a computation in `dtype`) when given, else of rounding the
    exact result once to `dtype`."""
    naive = rounded(want64, dtype) if naive is None else f64(naive)
    diff = np.abs(np.where(np.isinf(want64), 0.0,
                           naive - np.where(np.isinf(want64), 0.0, want64)))
    return float(np.max(diff, initial=0.0))


def lowp_tolerance(want64, dtype, f32_atol, naive=None):
    """Tolerance of a kernel storing `dtype` and computing in f32: at most
    twice the same-dtype error, plus the f32 arithmetic allowance."""
    if np.dtype(dtype) == np.float32:
        return f32_atol
    return 2.0 * same_dtype_error(want64, dtype, naive) + f32_atol


def attention_naive(q, k, v, dtype, scale=None, causal=False, mask=None):
    """Attention as a framework computes it in `dtype` (S, P and the output
    rounded to `dtype`, arithmetic in f32): the same-dtype baseline."""
    q32, k32, v32 = (np.asarray(t).astype(np.float32) for t in (q, k, v))
    B, Hq, Sq, D = q32.shape
    Hkv, Skv = k32.shape[1], k32.shape[2]
    scale = 1.0 / np.sqrt(D) if scale is None else scale
    k32 = np.repeat(k32, Hq // Hkv, axis=1)
    v32 = np.repeat(v32, Hq // Hkv, axis=1)
    s = (np.float32(scale) * np.einsum("bhid,bhjd->bhij", q32, k32))
    s = s.astype(dtype).astype(np.float32)
    if mask is not None:
        s = s + np.asarray(mask).astype(np.float32)
    if causal:
        i = np.arange(Sq)[:, None]
        j = np.arange(Skv)[None, :]
        s = np.where(j > i + (Skv - Sq), -np.inf, s)
    p = softmax(s, -1).astype(dtype).astype(np.float32)
    return np.einsum("bhij,bhjd->bhid", p, v32).astype(dtype)


def attention_clauses(mask_type, dropout_p, causal, scale):
    """What a sinter.attention (or attention_backward) with these options
    adds to its function: extra arguments, operand clauses (mask, seed) and
    the attribute dict."""
    args, extra, attrs = [], "", []
    if mask_type:
        args.append("%m: " + mask_type)
        extra += " mask(%%m : %s)" % mask_type
    if dropout_p:
        args.append("%seed: i64")
        extra += " seed(%seed)"
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append("scale = %s : f32" % flt(np.float32(scale)))
    if dropout_p:
        attrs.append("dropout_p = %s : f64" % flt(dropout_p))
    return args, extra, (" {%s}" % ", ".join(attrs) if attrs else "")


def compile_ops(ir):
    """Compiles sinter-op IR as written (no fusion pipeline)."""
    import sinter
    return sinter.compile(ir, fusion=False)


def flt(x):
    """A float literal MLIR parses (always with a mantissa dot)."""
    return "%.9e" % float(x)


# --------------------------------------------------------------------------
# Backward references (float64), from the op descriptions of
# SinterBackwardOps.td: the gradients of the forward references above.
# --------------------------------------------------------------------------

def softmax_backward(dy, y, dim, scale=1.0):
    dy, y = f64(dy), f64(y)
    return scale * y * (dy - np.sum(dy * y, axis=dim, keepdims=True))


def layer_norm_backward(dy, x, normalized_rank=1, weight=None, eps=1e-5):
    """(dx, dweight, dbias) of layer_norm with the statistics recomputed in
    float64."""
    dy, x = f64(dy), f64(x)
    axes = tuple(range(x.ndim - normalized_rank, x.ndim))
    lead = tuple(range(x.ndim - normalized_rank))
    mean = np.mean(x, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(np.mean((x - mean) ** 2, axis=axes, keepdims=True)
                         + eps)
    xhat = (x - mean) * rstd
    g = dy * f64(weight) if weight is not None else dy
    dx = rstd * (g - np.mean(g, axis=axes, keepdims=True)
                 - xhat * np.mean(g * xhat, axis=axes, keepdims=True))
    return dx, np.sum(dy * xhat, axis=lead), np.sum(dy, axis=lead)


def rms_norm_backward(dy, x, normalized_rank=1, weight=None, eps=1e-6):
    dy, x = f64(dy), f64(x)
    axes = tuple(range(x.ndim - normalized_rank, x.ndim))
    lead = tuple(range(x.ndim - normalized_rank))
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + eps)
    xhat = x * rstd
    g = dy * f64(weight) if weight is not None else dy
    dx = rstd * (g - xhat * np.mean(g * xhat, axis=axes, keepdims=True))
    return dx, np.sum(dy * xhat, axis=lead)


def attention_backward(do, q, k, v, scale=None, causal=False, mask=None,
                       dropout_p=0.0, seed=None):
    """(dq, dk, dv, dmask) of `attention`, the probabilities recomputed in
    float64; dmask has the mask's shape (None without a mask)."""
    do, q, k, v = f64(do), f64(q), f64(k), f64(v)
    B, Hq, Sq, D = q.shape
    Hkv, Skv = k.shape[1], k.shape[2]
    group = Hq // Hkv
    p, kr, scale, _, _, _ = _attention_probs(q, k, scale, causal, mask)
    vr = np.repeat(v, group, axis=1)
    keep = (dropout_keep((B, Hq, Sq, Skv), seed, dropout_p)
            if dropout_p > 0.0 else np.ones(p.shape, bool))
    r = 1.0 / (1.0 - dropout_p)
    pd = np.where(keep, p * r, 0.0)
    dv = np.einsum("bhij,bhid->bhjd", pd, do)
    dpd = np.einsum("bhid,bhjd->bhij", do, vr)
    dp = np.where(keep, dpd * r, 0.0)
    ds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True))
    dq = scale * np.einsum("bhij,bhjd->bhid", ds, kr)
    dk = scale * np.einsum("bhij,bhid->bhjd", ds, q)
    fold = lambda t: t.reshape(B, Hkv, group, *t.shape[2:]).sum(axis=2)
    dmask = None
    if mask is not None:
        mshape = np.shape(mask)
        lead = 4 - len(mshape)
        red = tuple(d for d in range(4)
                    if d < lead or (mshape[d - lead] == 1 and ds.shape[d] != 1))
        dmask = np.sum(ds, axis=red, keepdims=True).reshape(mshape)
    return dq, fold(dk), fold(dv), dmask


class LogLines:
    """Collects the messages of logger `name` (sinter.torch's by default)
    at INFO and above while installed: `with LogLines() as log: ...` then
    `log.lines`; `echo` also prints each one."""

    def __init__(self, name="sinter.torch", echo=False):
        import logging

        class _Handler(logging.Handler):
            def emit(handler, record):
                self.lines.append(record.getMessage())
                if echo:
                    print(record.getMessage())

        self.lines = []
        self._logger = logging.getLogger(name)
        self._handler = _Handler()

    def __enter__(self):
        import logging
        self._logger.addHandler(self._handler)
        self._level = self._logger.level
        self._logger.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc):
        self._logger.removeHandler(self._handler)
        self._logger.setLevel(self._level)
        return False
