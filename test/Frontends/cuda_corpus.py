#!/usr/bin/env python3
"""The real-frontend corpus on a GPU: every file that compiles for CUDA, run
on the inputs torch runs and checked by the FlashAttention rule.

    # where the compiler is (sinterc, the C API):
    python3 test/Frontends/cuda_corpus.py build OUT [--chip sm_90a]
    # on the GPU machine (torch, transformers, the runtime):
    python3 test/Frontends/cuda_corpus.py check OUT [--json results.json]

`build` compiles test/Frontends/Inputs/*.mlir into OUT/<file>/ and records
which files do not compile (with the compiler's message). `check` rebuilds
each file's model and inputs with export_corpus.py (same configs, seeds and
weights), runs torch in float64 (the reference) and in the file's dtype on
the GPU (the framework), runs Sinter's artifact on the same device tensors,
and requires Sinter's max error against the reference to be at most twice
torch's own, plus a floor of 2^-20 (f32) / 2^-10 (bf16) of the output's
magnitude (both errors are then at the dtype's rounding).
"""

import argparse
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "Inputs")


def build(out, chip):
    import sinter
    os.makedirs(out, exist_ok=True)
    status = {}
    for path in sorted(glob.glob(os.path.join(INPUTS, "*.mlir"))):
        name = os.path.basename(path)[:-len(".mlir")]
        t0 = time.time()
        try:
            sinter.compile(open(path).read(), target="cuda:" + chip,
                           out_dir=os.path.join(out, name))
            status[name] = "ok"
        except Exception as ex:  # a compile error: recorded, not fatal
            status[name] = str(ex).splitlines()[0][:300]
        print("%-45s %s (%.1f s)" % (name, status[name], time.time() - t0),
              flush=True)
    with open(os.path.join(out, "status.json"), "w") as f:
        json.dump(status, f, indent=1)
    ok = sum(v == "ok" for v in status.values())
    print("%d of %d files compile for cuda:%s" % (ok, len(status), chip))


def entry_for(name):
    """(build function, output type) of corpus file `name`."""
    sys.path.insert(0, HERE)
    import export_corpus as ec
    base, kind = name.rsplit(".", 1)
    return ec, ec.corpus()[base][0]


def check_one(ec, build_fn, artifact):
    import torch
    import sinter
    torch.manual_seed(ec.SEED)
    module, args = build_fn()
    dev = torch.device("cuda")
    call = lambda a: module(*a)

    def to(a, dtype=None):
        out = []
        for x in a:
            x = x.detach()
            if dtype is not None and x.is_floating_point():
                x = x.to(dtype)
            out.append(x.to(dev).contiguous())
        return out

    with torch.no_grad():
        ref = call(to(args, torch.float64))
        fw = call(to(args))
    ref = ref[0] if isinstance(ref, (tuple, list)) else ref
    fw = fw[0] if isinstance(fw, (tuple, list)) else fw
    prog = sinter.load(artifact)
    fn = prog["forward"]
    got = fn(*to(args))
    torch.cuda.synchronize()
    got = got[0] if isinstance(got, (tuple, list)) else got
    r = ref.double()
    scale = max(1.0, r.abs().max().item())
    e_s = (got.double() - r).abs().max().item() / scale
    e_t = (fw.double() - r).abs().max().item() / scale
    floor = 2 ** -10 if fw.dtype in (torch.bfloat16, torch.float16) else 2 ** -20
    return e_s, e_t, e_s <= 2 * e_t + floor


def check(out, json_path):
    status = json.load(open(os.path.join(out, "status.json")))
    results = {}
    failures = 0
    for name, st in sorted(status.items()):
        if st != "ok":
            results[name] = {"status": "does not compile", "why": st}
            print("%-45s does not compile: %s" % (name, st[:100]))
            continue
        try:
            ec, fn = entry_for(name)
            e_s, e_t, ok = check_one(ec, fn, os.path.join(out, name))
            results[name] = {"status": "ok" if ok else "FAIL",
                             "sinter_error": e_s, "torch_error": e_t}
            failures += not ok
            print("%-45s %s  sinter %.3g  torch %.3g" %
                  (name, "ok  " if ok else "FAIL", e_s, e_t), flush=True)
        except Exception as ex:
            failures += 1
            results[name] = {"status": "error", "why": repr(ex)[:300]}
            print("%-45s ERROR %r" % (name, ex), flush=True)
    if json_path:
        json.dump(results, open(json_path, "w"), indent=1)
    print("%d checked, %d failures" % (
        sum(r["status"] != "does not compile" for r in results.values()),
        failures))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["build", "check"])
    ap.add_argument("out")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--json")
    o = ap.parse_args()
    if o.mode == "build":
        build(o.out, o.chip)
        return 0
    return check(o.out, o.json)


if __name__ == "__main__":
    sys.exit(main())
