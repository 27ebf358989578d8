#!/usr/bin/env python3
"""The real-frontend corpus on a GPU: every file that compiles for CUDA, run
on the inputs torch runs and checked by the FlashAttention rule.

    # where the compiler is (sinterc, the C API):
    python3 test/Frontends/cuda_corpus.py build OUT [--chip sm_90a]
    # on the GPU machine (torch, transformers, the runtime):
    python3 test/Frontends/cuda_corpus.py check OUT [--json results.json]

`build` compiles test/Frontends/Inputs/*.mlir with sinterc into OUT/<file>/
and records which files do not compile (with the compiler's message).
`check` rebuilds each file's model and inputs with export_corpus.py (same
configs, seeds and weights), runs torch in float64 (the reference) and in the
file's dtype on the GPU (the framework), runs Sinter's artifact on the same
device tensors, and requires Sinter's max error against the reference, over
every output, to be at most twice torch's own plus a floor of 2^-20 (f32) /
2^-10 (bf16) of the output's magnitude (both errors are then at the dtype's
rounding). Train-mode files are checked against the CPU target's unfused
run of the same IR instead (TRAIN_TOLERANCE).
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
    """Compiles with build/bin/sinterc (no GPU needed here)."""
    import subprocess
    sinterc = os.path.join(HERE, "..", "..", "build", "bin", "sinterc")
    os.makedirs(out, exist_ok=True)
    status = {}
    for path in sorted(glob.glob(os.path.join(INPUTS, "*.mlir"))):
        name = os.path.basename(path)[:-len(".mlir")]
        t0 = time.time()
        r = subprocess.run([sinterc, path, "--target=cuda:" + chip, "--quiet",
                            "-o", os.path.join(out, name)],
                           capture_output=True, text=True)
        if r.returncode == 0 and is_train(name):
            # The reference of a train-mode file: the same IR (the same RNG
            # bits) unfused on the CPU.
            r = subprocess.run([sinterc, path, "--target=cpu", "--no-fusion",
                                "--quiet", "-o",
                                os.path.join(out, name, CPU_REFERENCE)],
                               capture_output=True, text=True)
        # A compile error is recorded (its first line), not fatal.
        status[name] = "ok" if r.returncode == 0 else (
            r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0][:300]
        print("%-45s %s (%.1f s)" % (name, status[name], time.time() - t0),
              flush=True)
    with open(os.path.join(out, "status.json"), "w") as f:
        json.dump(status, f, indent=1)
    ok = sum(v == "ok" for v in status.values())
    print("%d of %d files compile for cuda:%s" % (ok, len(status), chip))


# Train-mode files draw dropout masks from torch-mlir's own RNG (an LCG seed
# in an ml_program.global and a hash of the element index), not torch's:
# their reference is the CPU target's unfused run of the same IR, within
# TRAIN_TOLERANCE of the output's magnitude (f32 rounding, no RNG noise).
CPU_REFERENCE = "cpu-reference"
TRAIN_TOLERANCE = 1e-4


def is_train(name):
    return "_train" in name


def entry_for(name):
    """(build function, output type) of corpus file `name`."""
    sys.path.insert(0, HERE)
    import export_corpus as ec
    base, kind = name.rsplit(".", 1)
    return ec, ec.corpus()[base][0]


def outputs(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def errors(got, ref):
    """Max |got - ref| of each output, relative to max(1, |ref|)."""
    out = []
    for g, r in zip(got, ref):
        r = r.double()
        if not r.numel():
            out.append(0.0)
            continue
        scale = max(1.0, r.abs().max().item())
        out.append((g.double().to(r.device) - r).abs().max().item() / scale)
    return out


def max_error(got, ref):
    """The worst of errors(got, ref); each output's when some is large."""
    each = errors(got, ref)
    if len(each) > 1 and max(each) > 1e-3:
        print("    per output: %s" % ", ".join("%.3g" % e for e in each))
    return max(each) if each else 0.0


def check_one(ec, build_fn, artifact, train):
    """(Sinter's error, the framework's error, within the rule) over every
    output of the file's function."""
    import numpy as np
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

    got = outputs(sinter.load(artifact)["forward"](*to(args)))
    torch.cuda.synchronize()
    if train:
        cpu = sinter.load(os.path.join(artifact, CPU_REFERENCE))["forward"]
        ref = [torch.from_numpy(np.asarray(o))
               for o in outputs(cpu(*[a.detach().numpy() for a in args]))]
        e_s = max_error(got, ref)
        return e_s, 0.0, e_s <= TRAIN_TOLERANCE
    with torch.no_grad():
        ref = outputs(call(to(args, torch.float64)))
        fw = outputs(call(to(args)))
    # torch-mlir returns the inputs a model mutates in place (AdamW's step
    # counter) before its own results: compare the model's results.
    got = got[len(got) - len(ref):]
    e_s = max_error(got, ref)
    e_t = max_error(fw, ref)
    narrow = fw[0].dtype in (torch.bfloat16, torch.float16)
    floor = 2 ** -10 if narrow else 2 ** -20
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
            e_s, e_t, ok = check_one(ec, fn, os.path.join(out, name),
                                     is_train(name))
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
