# Part of the Sinter project.
"""Runs @guarded, @plain and @guard_fused of the original and the sinter-online-logsumexp
rewritten module on the CPU (the merged reduction serially) and checks that
they agree: rows of finite values, all -inf (an empty sum), one and two
+inf, values near -200 (no 0 * inf in the rescale) and a NaN.

    python online_logsumexp.py ORIGINAL.mlir REWRITTEN.mlir
"""

import sys

import ml_dtypes
import numpy as np

import sinter


def rows():
    gen = np.random.default_rng(7)
    x = (gen.standard_normal((6, 1000)) * 4).astype(np.float32)
    x[1] = -np.inf
    x[2, 333] = np.inf
    x[3, 1] = x[3, 999] = np.inf
    x[4] -= 200
    x[5, 500] = np.nan
    return x


def agree(name, got, want):
    # Equal infinities and NaNs agree; finite values to f32 rounding of a
    # sum taken in another order.
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    close = np.isclose(got, want, rtol=1e-5, atol=0)
    ok = bool(np.all(same | close))
    print("%s %s" % (name, "ok" if ok else "FAIL: %s vs %s" % (got, want)))
    return ok


def main():
    original = sinter.compile(open(sys.argv[1]).read(), fusion=False)
    rewritten = sinter.compile(open(sys.argv[2]).read(), fusion=False)
    x = rows()
    ok = True
    m0, s0 = original["guarded"](x)
    m1, s1 = rewritten["guarded"](x)
    ok &= agree("guarded max", m1, m0)
    ok &= agree("guarded sum", s1, s0)
    ok &= agree("plain sum", rewritten["plain"](x), original["plain"](x))
    xb = x.astype(ml_dtypes.bfloat16)
    ok &= agree("guard_fused sum", rewritten["guard_fused"](xb),
                original["guard_fused"](xb))
    print("ALL AGREE" if ok else "DISAGREE")


if __name__ == "__main__":
    main()
