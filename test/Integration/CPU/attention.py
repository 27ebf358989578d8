# sinter.attention on the CPU against an independent float64 reference:
# ragged and tile-multiple sequence lengths, causal (bottom-right aligned)
# and not, GQA/MQA, additive masks, f16/bf16 storage, lse, dropout.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: ALL PASSED

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402

gen = refs.rng("attention")
T = refs.tensor_type


def attention_ir(B, Hq, Hkv, Sq, Skv, D, dtype, causal=False, mask=None,
                 scale=None, lse=False, dropout_p=0.0):
    tq, tk = T((B, Hq, Sq, D), dtype), T((B, Hkv, Skv, D), dtype)
    tl = T((B, Hq, Sq), np.float32)
    tm = T(mask[0], mask[1]) if mask is not None else None
    more, extra, attr_dict = refs.attention_clauses(tm, dropout_p, causal,
                                                    scale)
    args = ["%q: " + tq, "%k: " + tk, "%v: " + tk] + more
    operands = "%q, %k, %v" + extra
    results = [tq] + ([tl] if lse else [])
    names = "%o, %lse" if lse else "%o"
    return """
func.func @attn({args}) -> ({results}) {{
  {names} = sinter.attention {operands}{attrs} : {tq}, {tk}, {tk} -> {rtypes}
  return {names} : {rtypes}
}}
""".format(args=", ".join(args), results=", ".join(results), names=names,
           operands=operands, attrs=attr_dict, tq=tq, tk=tk,
           rtypes=", ".join(results))


def check(name, B, Hq, Hkv, Sq, Skv, D, dtype=np.float32, causal=False,
          mask_shape=None, mask_dtype=np.float32, scale=None, lse=True):
    if dtype is None:
        print("%s: skipped (no ml_dtypes)" % name)
        return
    mask = (mask_shape, mask_dtype) if mask_shape else None
    prog = refs.compile_ops(attention_ir(B, Hq, Hkv, Sq, Skv, D, dtype,
                                         causal, mask, scale, lse))
    q = refs.random(gen, (B, Hq, Sq, D), dtype)
    k = refs.random(gen, (B, Hkv, Skv, D), dtype)
    v = refs.random(gen, (B, Hkv, Skv, D), dtype)
    args = [q, k, v]
    m = None
    if mask_shape:
        m = refs.random(gen, mask_shape, mask_dtype, -2, 2)
        args.append(m)
    got = prog.run("attn", *args)
    out, got_lse = got if lse else (got, None)
    assert out.dtype == np.dtype(dtype), out.dtype
    want, want_lse = refs.attention(q, k, v, scale, causal, m)
    naive = None
    if np.dtype(dtype) != np.float32:
        naive = refs.attention_naive(q, k, v, dtype, scale, causal, m)
    tol = refs.lowp_tolerance(want, dtype, 2e-5, naive)
    refs.assert_close(name + " out", out, want, atol=tol)
    if lse:
        refs.assert_close(name + " lse", got_lse, want_lse, atol=2e-5,
                          rtol=1e-5)


F16, BF16 = np.float16, refs.BF16

# Sequence sweep: 1, ragged (17, 113, 127, 257) and tile multiples (64, 128).
check("s1 d64", 1, 2, 2, 1, 1, 64)
check("s17 causal", 1, 2, 2, 17, 17, 64, causal=True)
check("s113 causal gqa f16", 2, 4, 2, 113, 113, 64, F16, causal=True)
check("s127x257 mqa mask", 1, 4, 1, 127, 257, 64,
      mask_shape=(1, 1, 127, 257))
check("s257 causal d32", 1, 2, 2, 257, 257, 32, causal=True)
check("s64x128 causal bf16 row-mask", 1, 2, 2, 64, 128, 64, BF16,
      causal=True, mask_shape=(128,), mask_dtype=BF16)
check("s128 d128 bf16", 1, 2, 1, 128, 128, 128, BF16)
check("s128 causal f16 mask", 2, 2, 2, 128, 128, 64, F16, causal=True,
      mask_shape=(2, 1, 128, 128), mask_dtype=F16)
check("s17 scale no-lse", 1, 2, 2, 17, 113, 64, scale=0.3, lse=False)
# Sq > Skv with a bottom-right causal diagonal: the first Sq - Skv query
# rows see no key (zeros, lse = -inf).
check("s113x17 causal empty rows", 1, 2, 2, 113, 17, 64, causal=True)

check("s1x257 causal f16", 1, 2, 2, 1, 257, 64, F16, causal=True)
check("s1023 causal", 1, 1, 1, 1023, 1023, 64, causal=True)
# An empty causal row must read as lse = -inf, not as a finite number.
prog = refs.compile_ops(attention_ir(1, 1, 1, 5, 2, 16, np.float32,
                                     causal=True, lse=True))
q, k, v = (refs.random(gen, s, np.float32)
           for s in ((1, 1, 5, 16), (1, 1, 2, 16), (1, 1, 2, 16)))
out, lse = prog.run("attn", q, k, v)
assert np.all(np.isneginf(lse[0, 0, :3])) and np.all(out[0, 0, :3] == 0), \
    (lse, out[0, 0, :3])
assert np.all(np.isfinite(lse[0, 0, 3:]))
print("empty causal rows: ok")


def check_dropout(name, B, Hq, Hkv, Sq, Skv, D, p, dtype=np.float32,
                  causal=False, mask_shape=None):
    """Exactly the Philox mask of the contract (stream offset
    ((b*Hq + h)*Sq + i)*Skv + j), reproducible by seed."""
    mask = (mask_shape, dtype) if mask_shape else None
    prog = refs.compile_ops(attention_ir(B, Hq, Hkv, Sq, Skv, D, dtype,
                                         causal, mask, lse=True,
                                         dropout_p=p))
    q = refs.random(gen, (B, Hq, Sq, D), dtype)
    k = refs.random(gen, (B, Hkv, Skv, D), dtype)
    v = refs.random(gen, (B, Hkv, Skv, D), dtype)
    m = refs.random(gen, mask_shape, dtype) if mask_shape else None
    seed = int(gen.integers(0, 2 ** 63))
    args = [q, k, v] + ([m] if mask_shape else [])
    out, lse = prog.run("attn", *args, seed)
    want, want_lse = refs.attention(q, k, v, None, causal, m, p, seed)
    naive = None
    tol = 2e-5
    if np.dtype(dtype) != np.float32:
        # The same-dtype baseline without dropout bounds the rounding.
        base, _ = refs.attention(q, k, v, None, causal, m)
        naive = refs.attention_naive(q, k, v, dtype, None, causal, m)
        tol = 2 * refs.same_dtype_error(base, dtype, naive) / (1 - p) + 2e-5
    refs.assert_close(name + " out", out, want, atol=tol)
    refs.assert_close(name + " lse (before dropout)", lse, want_lse,
                      atol=2e-5, rtol=1e-5)
    out2, _ = prog.run("attn", *args, seed)
    assert np.array_equal(out, out2), "same seed, different output"
    out3, _ = prog.run("attn", *args, seed ^ (1 << 40))
    assert not np.array_equal(out, out3), "different seeds, same output"
    print(name + " reproducible: ok")


check_dropout("dropout", 1, 2, 2, 64, 64, 32, 0.25)
check_dropout("dropout gqa causal ragged", 2, 4, 2, 17, 33, 64, 0.1,
              causal=True)
check_dropout("dropout f16 mask", 1, 2, 1, 65, 127, 64, 0.5, F16,
              mask_shape=(1, 1, 65, 127))

print("ALL PASSED")
