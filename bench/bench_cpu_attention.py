#!/usr/bin/env python3
# Part of the Sinter project.
"""sinter.attention on the CPU backend beside numpy.

    python3 bench/bench_cpu_attention.py [B H S D [causal]]

Sinter's CPU lowering of sinter.attention (a FlashAttention-2 loop nest
over 64 x 64 tiles, sinter-lower-to-loops) against the same attention
composed in numpy f32 (Q K^T through BLAS, a softmax, P V through BLAS),
on the same inputs. Prints the best of 5 runs, GFLOP/s (4 B H S^2 D,
halved for causal) and each one's error against a float64 reference.
The default shape is the bundled example's (examples/gpt_block.mlir).
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import sinter  # noqa: E402
from bench_cpu_matmul import best  # noqa: E402


def composed(q, k, v, causal):
    """Attention in the dtype of q: scores, a row softmax, P V."""
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]).astype(q.dtype)
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s,
                     np.array(-np.inf, dtype=s.dtype))
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def main():
    args = sys.argv[1:]
    causal = "causal" in args
    dims = [int(x) for x in args if x != "causal"]
    B, H, S, D = dims if len(dims) == 4 else (2, 4, 64, 32)
    if not args:
        causal = True
    t = "tensor<%dx%dx%dx%dxf32>" % (B, H, S, D)
    ir = """func.func @attn(%%q: %s, %%k: %s, %%v: %s) -> %s {
  %%o = sinter.attention %%q, %%k, %%v %s: %s, %s, %s -> %s
  return %%o : %s
}""" % (t, t, t, t, "{causal} " if causal else "", t, t, t, t, t)
    prog = sinter.compile(ir, fusion=False)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((B, H, S, D), dtype=np.float32)
               for _ in range(3))
    ref = composed(*(x.astype(np.float64) for x in (q, k, v)), causal)
    flop = 4.0 * B * H * S * S * D / (2 if causal else 1)
    print("attention B%d H%d S%d D%d f32%s, %d CPU cores, %s" % (
        B, H, S, D, " causal" if causal else "", os.cpu_count(),
        time.strftime("%Y-%m-%d")))
    for label, fn in (("sinter (cpu)", lambda: prog.run("attn", q, k, v)),
                      ("numpy f32 composed",
                       lambda: composed(q, k, v, causal))):
        err = np.abs(fn() - ref).max()
        t = best(fn)
        print("  %-20s %8.1f us %7.1f GFLOP/s  max err %.2e" % (
            label, 1e6 * t, flop / t / 1e9, err))


if __name__ == "__main__":
    main()
