# Part of the Sinter project.
"""A smoke test of an installed Sinter (docs/Wheel.md): where the package,
its libraries and the CUDA toolkit it compiles with come from; a LayerNorm
plus residual compiled for the CPU and, where torch sees a GPU, for that GPU
and run on torch tensors, against numpy / torch.

    python3 tools/wheel/smoke.py
"""

import os
import sys
import time

import numpy as np

import sinter
from sinter import _capi, _paths

IR = """
func.func @main(%%x: tensor<%(n)dx%(d)dx%(t)s>, %%w: tensor<%(d)dx%(t)s>,
                %%b: tensor<%(d)dx%(t)s>) -> tensor<%(n)dx%(d)dx%(t)s> {
  %%y = sinter.layer_norm %%x weight(%%w : tensor<%(d)dx%(t)s>)
      bias(%%b : tensor<%(d)dx%(t)s>) {epsilon = 1.0e-5 : f32}
      : tensor<%(n)dx%(d)dx%(t)s> -> tensor<%(n)dx%(d)dx%(t)s>
  %%e = tensor.empty() : tensor<%(n)dx%(d)dx%(t)s>
  %%r = linalg.add ins(%%y, %%x : tensor<%(n)dx%(d)dx%(t)s>, tensor<%(n)dx%(d)dx%(t)s>)
      outs(%%e : tensor<%(n)dx%(d)dx%(t)s>) -> tensor<%(n)dx%(d)dx%(t)s>
  return %%r : tensor<%(n)dx%(d)dx%(t)s>
}
"""


def reference(x, w, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b + x


def main():
    print("sinter %s from %s" % (_capi.build_id(),
                                 os.path.dirname(sinter.__file__)))
    print("compiler library:", sinter.library_path())
    print("CUDA toolkit:", _paths.use_bundled_cuda_toolkit()
          or "/usr/local/cuda (if present)")
    rng = np.random.default_rng(0)
    n, d = 64, 768
    x = rng.standard_normal((n, d), dtype=np.float32)
    w = rng.standard_normal(d, dtype=np.float32)
    b = rng.standard_normal(d, dtype=np.float32)
    t0 = time.time()
    got = sinter.compile(IR % dict(n=n, d=d, t="f32")).run("main", x, w, b)
    err = float(np.abs(got - reference(x, w, b)).max())
    print("cpu: compiled and ran in %.2f s, max error %.2e" % (
        time.time() - t0, err))
    ok = err < 1e-4
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        from sinter.torch._cache import target_of
        dev = torch.device("cuda")
        target = target_of(dev)
        t0 = time.time()
        prog = sinter.compile(IR % dict(n=n, d=d, t="bf16"), target=target)
        xs = [torch.from_numpy(a).to(dev, torch.bfloat16) for a in (x, w, b)]
        out = prog.run("main", *xs)
        want = reference(*[a.float().cpu().numpy() for a in xs])
        cerr = float(np.abs(out.float().cpu().numpy() - want).max())
        print("%s: compiled and ran in %.2f s, max error %.2e (bf16)" % (
            target, time.time() - t0, cerr))
        ok = ok and cerr < 0.1
    print("smoke:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
