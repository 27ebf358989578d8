# Part of the Sinter project.
"""Run one compiled CUDA artifact's `main` a few times on random inputs, for
ncu, nsys and compute-sanitizer:

    python3 bench/profile/run_once.py ARTIFACT_DIR [--calls N]

Floating inputs are standard normal (the logsumexp of an attention backward
too: its rows are then not normalized, which changes no kernel's work);
integer inputs (seeds) are 1."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import torch  # noqa: E402
import sinter.cuda as sc  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("artifact")
    p.add_argument("--calls", type=int, default=3)
    a = p.parse_args()
    fn = sc.CudaProgram(a.artifact)["main"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    args = []
    for spec in fn.inputs:
        dtype = getattr(torch, spec["dtype"])
        shape = tuple(spec["shape"])
        if dtype.is_floating_point:
            args.append(torch.randn(shape, generator=gen, device="cuda",
                                    dtype=dtype))
        else:
            args.append(torch.ones(shape, device="cuda", dtype=dtype))
    for _ in range(a.calls):
        fn(*args)
    torch.cuda.synchronize()
    print("ran %s %d times" % (a.artifact, a.calls))


if __name__ == "__main__":
    main()
