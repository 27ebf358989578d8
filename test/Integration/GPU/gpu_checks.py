#!/usr/bin/env python3
# Part of the Sinter project.
"""GPU correctness checks: build here, run on the GPU machine.

    python3 gpu_checks.py build OUT        # on the build machine (sinterc)
    python3 gpu_checks.py check OUT        # on the GPU machine (torch)

`build` compiles every case of gpu_cases.py with
`sinterc --target=cuda:<chip>` into OUT/<case>/; `check` loads each artifact
with the driver-only runtime, runs it on fresh random inputs (outputs
poisoned with NaN first) and compares with a float64 torch reference: the
error must be at most 2x torch's own error in the same dtype, plus a small
absolute floor. Library calls (the cublas_gemm entries of leftover matmuls)
must run through cuBLASLt -- or, with SINTER_CUBLASLT=off in the
environment, through their fallback kernels -- and the cases of
gpu_cases.LIBRARY_CALLS must have exactly that many in their manifest.
Exits non-zero on any failure.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))

import gpu_cases  # noqa: E402


def _poison(torch, dtype):
    """What outputs hold before a run, so that an element no kernel wrote
    fails the comparison: NaN for floats, the most negative value for
    integers, True for booleans."""
    if dtype.is_floating_point:
        return float("nan")
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).min


def selected(cases, only, skip=None):
    """The cases whose name matches the regular expression `only` and not
    `skip`."""
    return [c for c in cases if (not only or re.search(only, c[0])) and
            not (skip and re.search(skip, c[0]))]


def build(out, chip, compiler, which, only=None, skip=None):
    cases = {"check": gpu_cases.correctness_cases,
             "bench": gpu_cases.bench_cases,
             "bench-attention": gpu_cases.attention_bench_cases}[which]()
    cases = selected(cases, only, skip)
    os.makedirs(out, exist_ok=True)
    for name, ir, *_ in cases:
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "source.mlir")
        with open(src, "w") as f:
            f.write(ir)
        flags = gpu_cases.FLAGS.get(name, [])
        if chip != "sm_90a" and any("wgmma" in f for f in flags):
            print("skipped %s (wgmma needs sm_90a)" % name)
            continue
        cmd = compiler + [src, "--target=cuda:" + chip, "-o", d] + flags
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("BUILD FAIL %s\n%s%s" % (name, r.stdout, r.stderr))
            sys.exit(1)
        bad = malformed_args(os.path.join(d, "manifest.json"))
        if bad:
            print("BUILD FAIL %s: malformed launch arguments %s" % (name, bad))
            sys.exit(1)
        launches = launch_names(os.path.join(d, "manifest.json"))
        want = gpu_cases.LAUNCHES.get(name)
        if want is not None and len(launches) != want:
            print("BUILD FAIL %s: %d launches %s, expected %d" % (
                name, len(launches), launches, want))
            sys.exit(1)
        print("built %-52s %6.0f ms" % (name, 1000 * (time.time() - t0)))


def rounding_error(torch, out, ref, bound):
    """The error of `out`, an f32 value rounded to its narrower type, with
    elements that differ from `ref` by at most one unit in the last place of
    that type counted as `bound` (gpu_cases.ROUNDED)."""
    d = (out.double() - ref).abs()
    mag = ref.abs().clamp_min(torch.finfo(out.dtype).tiny)
    ulp = torch.finfo(out.dtype).eps * torch.exp2(torch.floor(torch.log2(mag)))
    d = torch.where(d <= ulp, torch.clamp(d, max=bound), d)
    return d.nan_to_num(float("inf")).max().item()


def launch_names(manifest):
    """The kernels (or library-call kinds) `manifest`'s launches run."""
    with open(manifest) as f:
        m = json.load(f)
    return [l.get("kernel", l.get("kind")) for fn in m["functions"]
            for l in fn["launches"]]


def malformed_args(manifest):
    """Launch arguments of `manifest` that are none of a buffer, a tensor
    map or a typed constant (docs/Manifest.md)."""
    with open(manifest) as f:
        m = json.load(f)
    bad = []
    for fn in m["functions"]:
        for launch in fn["launches"]:
            for a in launch.get("args", []):
                kinds = [k for k in ("arg", "temp", "tensor_map") if k in a]
                typed = a.get("type") in ("i32", "i64", "f32", "f64")
                if len(kinds) + typed != 1:
                    bad.append((launch.get("kernel", launch.get("name")), a))
    return bad


def check(out, seed, only=None, skip=None, kernels_only=False):
    import torch
    import sinter.cuda as sc
    dev = torch.device("cuda")
    failures = 0
    print("seed %d, %s, torch %s" % (seed, torch.cuda.get_device_name(),
                                      torch.__version__))
    # Library calls run through cuBLASLt (torch, imported first, has loaded
    # it) unless SINTER_CUBLASLT turns them off: then the fallback kernels.
    lt_ok, lt_status = sc.cublaslt_status()
    want_library = os.environ.get("SINTER_CUBLASLT", "") not in (
        "0", "off", "OFF", "none", "false")
    print("cuBLASLt: %s; library calls must run %s" % (
        lt_status, "through cuBLASLt" if want_library
        else "their fallback kernels"))
    for name, ir, make, ref, same in selected(gpu_cases.correctness_cases(),
                                              only, skip):
        gen = torch.Generator(device=dev).manual_seed(seed)
        prog = sc.CudaProgram(os.path.join(out, name))
        # Each case has one public function (main, or the example's own).
        fn = (prog["main"] if "main" in prog.functions
              else next(iter(prog.functions.values())))
        ins = make(torch, dev, gen)
        gemms = sum(1 for l in fn.launches if l.get("kind") == "cublas_gemm")
        if kernels_only:
            # Under the sanitizers: Sinter's kernels alone, no reference
            # (torch's cuBLAS references crash racecheck on CUDA 13.0).
            outs = fn(*ins)
            outs = list(outs) if isinstance(outs, tuple) else [outs]
            torch.cuda.synchronize()
            print("RAN  %s" % name)
            continue
        # References first: in-place outputs (AdamW) overwrite the inputs.
        refs = ref(torch, *ins)
        theirs = same(torch, *ins)
        if any("alias_of" in o for o in fn.outputs):
            outs = fn(*ins)
            outs = list(outs) if isinstance(outs, tuple) else [outs]
        else:
            outs = [torch.full(tuple(o["shape"]),
                               _poison(torch, getattr(torch, o["dtype"])),
                               dtype=getattr(torch, o["dtype"]), device=dev)
                    for o in fn.outputs]
            fn(*ins, out=outs)
        torch.cuda.synchronize()
        ok = True
        notes = []
        worst = (0.0, 0.0)
        # Which path the library calls took (one run of the function).
        expected = gpu_cases.LIBRARY_CALLS.get(name)
        if expected is not None and gemms != expected:
            ok = False
            notes.append("manifest has %d cublas_gemm entries, expected %d"
                         % (gemms, expected))
        if gemms:
            counts = prog.library_counts()
            lib, fb = counts["library_calls"], counts["fallback_launches"]
            if (lib, fb) != ((gemms, 0) if want_library else (0, gemms)):
                ok = False
                notes.append("library calls: %d cuBLASLt, %d fallback of %d"
                             " (%s)" % (lib, fb, gemms,
                                        counts["last_fallback"] or "-"))
            else:
                notes.append("%d %s" % (gemms, "cuBLASLt" if want_library
                                        else "fallback"))
        for k, (o, r) in enumerate(zip(outs, refs)):
            def dist(x, y):
                # Equal values (including equal infinities, e.g. lse = -inf
                # for a row that sees no key) are exact.
                d = (x - y).abs()
                return torch.where(x == y, torch.zeros_like(d), d)
            err = dist(o.double(), r).nan_to_num(float("inf")).max().item()
            if k < len(theirs):
                # Where torch's own result is not finite (a fully masked
                # softmax row gives NaN in torch, zeros by Sinter's
                # definition) the reference alone judges.
                terr = dist(theirs[k].double(), r).nan_to_num(0.0).max().item()
            else:  # statistics outputs: f32 on both sides
                terr = dist(r.float().double(), r).nan_to_num(0.0).max().item()
            bound = 2 * terr + 1e-5 * (1 + r.abs().max().item())
            judged = err
            if k in gpu_cases.ROUNDED.get(name, ()):
                judged = rounding_error(torch, o, r, bound)
            if len(outs) <= 4:
                notes.append("out%d err %.2e (torch %.2e)%s" % (
                    k, err, terr, "" if judged == err else
                    " (elements one unit off in the last place: roundings)"))
            worst = max(worst, (err, terr))
            if not judged <= bound:
                ok = False
                notes.append("out%d err %.2e > bound %.2e" % (k, err, bound))
        if len(outs) > 4:
            notes.append("%d outputs, worst err %.2e (torch %.2e)"
                         % (len(outs), worst[0], worst[1]))
        failures += not ok
        print("%s %-52s %s" % ("PASS" if ok else "FAIL", name, ", ".join(notes)))
    print("%d failures" % failures)
    return failures


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("mode", choices=["build", "check", "build-bench",
                                    "build-bench-attention"])
    p.add_argument("out")
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--compiler", default="sinterc",
                   help="compiler command (default: sinterc on PATH)")
    p.add_argument("--seed", type=int,
                   default=int(os.environ.get("SINTER_TEST_SEED",
                                              int(time.time()) % 100000)))
    p.add_argument("--only", help="regular expression: the cases whose "
                   "names match (default: all)")
    p.add_argument("--skip", help="regular expression: leave out the cases "
                   "whose names match")
    p.add_argument("--kernels-only", action="store_true",
                   help="run Sinter's kernels without computing references "
                   "(for compute-sanitizer)")
    a = p.parse_args()
    if a.mode == "build":
        build(a.out, a.chip, a.compiler.split(), "check", a.only, a.skip)
    elif a.mode == "build-bench":
        build(a.out, a.chip, a.compiler.split(), "bench", a.only)
    elif a.mode == "build-bench-attention":
        build(a.out, a.chip, a.compiler.split(), "bench-attention", a.only)
    else:
        sys.exit(1 if check(a.out, a.seed, a.only, a.skip, a.kernels_only)
                 else 0)


if __name__ == "__main__":
    main()
