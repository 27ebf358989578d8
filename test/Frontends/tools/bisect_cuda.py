#!/usr/bin/env python3
# Part of the Sinter project.
"""Finds the first value of a corpus model that the CUDA target computes
wrong, by compiling prefixes of the model and comparing them with the CPU
target's unfused run on the same inputs:

    # here (sinter-opt, sinterc):
    python3 test/Frontends/tools/bisect_cuda.py build NAME OUT [--stride 4]
    # on the GPU machine (torch, transformers, the runtime):
    python3 test/Frontends/tools/bisect_cuda.py check NAME OUT

NAME is a corpus file without .mlir (gpt2_eager_b2_bf16.linalg). `build`
makes OUT/<k>/{cuda,cpu} for every `stride`-th tensor value k of the
function (`sinter-opt --sinter-test-return-value=index=k` returns value k
and drops what follows); `check` runs both on the corpus inputs
(export_corpus.py) and prints each value's error, CUDA against CPU,
relative to the value's magnitude, and the first one past the dtype's
tolerance. Launch errors are caught per launch (SINTER_CUDA_SYNC=1).
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FRONTENDS = os.path.dirname(HERE)
BIN = os.path.join(FRONTENDS, "..", "..", "build", "bin")


def tool(name, *args, **kw):
    return subprocess.run([os.path.join(BIN, name)] + list(args),
                          capture_output=True, text=True, **kw)


def build(name, out, stride):
    path = os.path.join(FRONTENDS, "Inputs", name + ".mlir")
    r = tool("sinter-opt", path, "--sinter-test-return-value", "-o",
             os.devnull)
    count = int(re.search(r"remark: (\d+) tensor values", r.stderr).group(1))
    points = sorted(set(range(0, count, stride)) | {count - 1})
    built = []
    for k in points:
        d = os.path.join(out, str(k))
        os.makedirs(d, exist_ok=True)
        text = tool("sinter-opt", path,
                    "--sinter-test-return-value=index=%d" % k).stdout
        src = os.path.join(d, "prefix.mlir")
        with open(src, "w") as f:
            f.write(text)
        ok = True
        for target, extra in (("cuda:sm_90a", []), ("cpu", ["--no-fusion"])):
            sub = "cuda" if target != "cpu" else "cpu"
            r = tool("sinterc", src, "--target=" + target, "--quiet", "-o",
                     os.path.join(d, sub), *extra)
            if r.returncode:
                print("%4d %s: %s" % (k, sub, r.stderr.strip()[:200]))
                ok = False
        if ok:
            built.append(k)
        print("%4d/%d built" % (k, count), flush=True)
    with open(os.path.join(out, "points.json"), "w") as f:
        json.dump({"name": name, "points": built}, f)


def check(name, out, tolerance=None):
    os.environ.setdefault("SINTER_CUDA_SYNC", "1")
    import numpy as np
    import torch
    import sinter
    sys.path.insert(0, FRONTENDS)
    import export_corpus as ec
    meta = json.load(open(os.path.join(out, "points.json")))
    base = name.rsplit(".", 1)[0]
    torch.manual_seed(ec.SEED)
    module, args = ec.corpus()[base][0]()
    args = [a.detach().contiguous() for a in args]
    dev = [a.cuda() for a in args]
    host = [a.numpy() for a in args]
    first = None
    for k in meta["points"]:
        d = os.path.join(out, str(k))
        cpu = np.asarray(sinter.load(os.path.join(d, "cpu"))["forward"](*host))
        try:
            got = sinter.load(os.path.join(d, "cuda"))["forward"](*dev)
            torch.cuda.synchronize()
        except Exception as ex:
            print("%4d CUDA ERROR %s" % (k, str(ex).splitlines()[0][:300]))
            first = first if first is not None else k
            break
        got = got.float().cpu().double().numpy() if got.dtype == torch.bfloat16 \
            else got.cpu().numpy().astype(np.float64)
        ref = cpu.astype(np.float64)
        scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
        err = float(np.abs(got - ref).max()) / scale if ref.size else 0.0
        tol = tolerance or (3e-2 if "bf16" in name else 1e-3)
        bad = not err <= tol
        print("%4d %-12s %-18s err %.3g%s" % (
            k, str(cpu.dtype), str(list(cpu.shape)), err, "  <-- WRONG" if bad
            else ""), flush=True)
        if bad and first is None:
            first = k
    print("first wrong value: %s" % first)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["build", "check"])
    ap.add_argument("name")
    ap.add_argument("out")
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--tol", type=float,
                    help="error that marks a value wrong (default 1e-3, "
                         "3e-2 for bf16 files)")
    o = ap.parse_args()
    if o.mode == "build":
        return build(o.name, o.out, o.stride)
    return check(o.name, o.out, o.tol)


if __name__ == "__main__":
    sys.exit(main())
