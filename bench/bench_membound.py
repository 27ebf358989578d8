#!/usr/bin/env python3
# Part of the Sinter project.
"""Memory-bound kernels beside their peers, in one process on the GPU.

    python3 test/Integration/GPU/gpu_checks.py build-bench ART   # here
    python3 bench/bench_membound.py ART [--json F] [--png F]      # on the GPU

For each case of gpu_cases.bench_cases(): Sinter's artifact, torch eager
(composed), torch's built-in op and torch.compile, timed do_bench-style
(bench/timing.py: median of per-call CUDA events after warm-up, the L2
emptied before each call) on the same inputs; bytes = every input read
once + every output written once. Also the device-to-device copy ceiling.
Prints a table of TB/s and ratios; writes JSON (and a PNG chart when
matplotlib is available).

How each call is surrounded moves a ~60 us kernel's figure by several
points (bench/timing.py, bench/NOTES.md "session 6"). By default the
tables time `batch`: back-to-back calls between one pair of events, the
steady state of a model's stream, in which each kernel inherits its
predecessor's dirty L2 lines and leaves as many, and launches are
prepared while the previous kernel runs, as they are for the 2 ms copy
that sets the ceiling. Beside it, `zero`: triton's do_bench, one call per
event pair after zeroing a 256 MB buffer (BENCHMARKS.md's method), which
charges each call its dispatch and ~1% of foreign write-back. Each
method's percentages are against the copy ceiling timed the same way.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Integration", "GPU"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gpu_cases  # noqa: E402
import sinter.cuda as sc  # noqa: E402
import timing  # noqa: E402


def peers_for(name, ins):
    if name.startswith("rms_norm"):
        x, w = ins
        n = x.shape[-1]

        def composed(x, w):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
                    * w.float()).to(x.dtype)
        comp = torch.compile(composed)
        return {"eager composed": lambda: composed(x, w),
                "F.rms_norm": lambda: F.rms_norm(x, (n,), w, 1e-6),
                "torch.compile": lambda: comp(x, w)}
    if name.startswith("layer_norm"):
        x, w, b = ins
        n = x.shape[-1]

        def composed(x, w, b):
            xf = x.float()
            mu = xf.mean(-1, keepdim=True)
            var = ((xf - mu) ** 2).mean(-1, keepdim=True)
            return ((xf - mu) * torch.rsqrt(var + 1e-5) * w.float()
                    + b.float()).to(x.dtype)
        comp = torch.compile(composed)
        return {"eager composed": lambda: composed(x, w, b),
                "F.layer_norm": lambda: F.layer_norm(x, (n,), w, b, 1e-5),
                "torch.compile": lambda: comp(x, w, b)}
    if name.startswith("adamw"):
        n = (len(ins) - 2) // 4
        lr, step = ins[-2], ins[-1]
        out = {}
        for label, kw in (("torch fused AdamW", {"fused": True}),
                          ("torch foreach AdamW", {"foreach": True})):
            params = [torch.nn.Parameter(p.clone()) for p in ins[:n]]
            for p, g in zip(params, ins[n:2 * n]):
                p.grad = g
            opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01, **kw)
            opt.step()
            out[label] = opt.step
        return out
    if name.startswith("dropout_residual"):
        h, res = ins[0], ins[1]

        def drop_res(h, res):
            return res + F.dropout(h, p=0.1, training=True)
        comp = torch.compile(drop_res)
        return {"eager composed": lambda: drop_res(h, res),
                "torch.compile": lambda: comp(h, res)}
    if name.startswith("bias_gelu"):
        h, bias = ins

        def bg(h, bias):
            return F.gelu(h + bias, approximate="tanh")
        comp = torch.compile(bg)
        return {"eager composed": lambda: bg(h, bias),
                "torch.compile": lambda: comp(h, bias)}
    if name.startswith("reduce_sum"):
        (x,) = ins
        axis = int(name.split("_axis")[1].split("_")[0])

        def col_sum(x):
            return x.sum(axis)
        comp = torch.compile(col_sum)
        return {"torch.sum": lambda: col_sum(x),
                "torch.compile": lambda: comp(x)}
    return {}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("artifacts")
    p.add_argument("--only", default="",
                   help="run only the cases whose name contains one of these "
                   "comma-separated words")
    p.add_argument("--no-peers", action="store_true",
                   help="time Sinter's kernels only (for profilers)")
    p.add_argument("--json", default=os.path.join(HERE, "results",
                                                  "membound.json"))
    p.add_argument("--png", default=os.path.join(HERE, "results",
                                                 "membound.png"))
    p.add_argument("--timing", default="batch,zero",
                   help="comma-separated timing methods (bench/timing.py: "
                   "batch = back-to-back calls, zero = do_bench's own, "
                   "none = per call without a flush, read = per call after "
                   "a read-only flush); the first is the tables' method, "
                   "each other one adds columns (default: batch,zero)")
    a = p.parse_args()
    methods = list(dict.fromkeys(f.strip() for f in a.timing.split(",")))
    bad = [f for f in methods if f not in timing.METHODS]
    if bad or not methods:
        p.error("--timing: %r is not one of %s"
                % (",".join(bad), ", ".join(timing.METHODS)))
    dev = torch.device("cuda")
    timers = {m: timing.Timer(m) for m in methods}
    primary = methods[0]

    def t_ms(fn, rep=200, method=primary):
        return timers[method].median_p90(fn, rep=rep)
    gen = torch.Generator(device=dev).manual_seed(0)
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "date": time.strftime("%Y-%m-%d"),
            "timing": primary, "other_timings": methods[1:]}
    rows = []
    # The copy ceiling, and the same copy at the norms' size (128 MiB each
    # way, ~63 us): what a kernel of that length reaches, ramp-up and drain
    # included (for reference; percentages stay against the 4 GiB copy).
    # Both with every timing method: each method's percentages are against
    # its own ceiling.
    ceiling, small_tbs = {}, {}
    for nbytes, into in ((4 << 30, ceiling), (128 << 20, small_tbs)):
        x = torch.empty(nbytes // 4, dtype=torch.float32, device=dev)
        y = torch.empty_like(x)
        for f in methods:
            ms = t_ms(lambda: y.copy_(x), rep=100, method=f)[0]
            into[f] = 2 * nbytes / ms / 1e9
            rows.append({"case": "d2d copy %s" % ("4 GiB" if nbytes >> 30
                                                  else "128 MiB"),
                         "backend": "copy_", "ms": ms, "TBps": into[f],
                         "timing": f})
        del x, y
    print("%s, torch %s, CUDA %s, %s" % (info["gpu"], info["torch"],
                                         info["cuda"], info["date"]))
    for f in methods:
        print("timing %-5s copy ceiling: %.2f TB/s (128 MiB copy: %.2f "
              "TB/s, %.1f%%)%s" % (f, ceiling[f], small_tbs[f],
                                   100 * small_tbs[f] / ceiling[f],
                                   "  <- the tables' method" if f == primary
                                   else ""))
    copy_tbs = ceiling[primary]
    # TB/s of each base case's Sinter kernel, for its variants.
    base_tbs = {}
    for name, ir, make, ref, same in gpu_cases.bench_cases():
        if a.only and not any(w in name for w in a.only.split(",")):
            continue
        base, label = gpu_cases.VARIANTS.get(name, (name, None))
        prog = sc.CudaProgram(os.path.join(a.artifacts, name))
        fn = prog["main"]
        ins = make(torch, dev, gen)
        in_place = any("alias_of" in o for o in fn.outputs)
        tensors = [t for t in ins if isinstance(t, torch.Tensor)]
        nbytes = sum(t.numel() * t.element_size() for t in tensors) + sum(
            o["bytes"] for o in fn.outputs)
        # Correct first: against torch's own same-dtype result.
        r = ref(torch, *ins)[0]
        terr = (same(torch, *ins)[0].double() - r).abs().max().item()
        if in_place:
            # An optimizer step reruns on the same tensors: validate once.
            bound = fn.bind(*ins)
            got = bound()[0]
            call = bound
        else:
            outs = [torch.empty(tuple(o["shape"]),
                                dtype=getattr(torch, o["dtype"]), device=dev)
                    for o in fn.outputs]
            fn(*ins, out=outs)
            got = outs[0]
            call = (lambda: fn(*ins, out=outs))
        torch.cuda.synchronize()
        err = (got.double() - r).abs().max().item()
        del r
        cands = {"sinter": call}
        # Variants: only Sinter's kernel; the peers ran with the base.
        if not a.no_peers and not label:
            cands.update(peers_for(name, ins))
        res, other = {}, {}
        for backend, f in cands.items():
            f()
            ms, p90 = t_ms(f)
            res[backend] = ms
            # The other timing methods: base cases only (variants are read
            # against their base, in the table's method).
            other[backend] = {} if label else {
                fl: t_ms(f, method=fl)[0] for fl in methods[1:]}
            rows.append({"case": name, "backend": backend, "ms": ms,
                         "p90_ms": p90, "TBps": nbytes / ms / 1e9,
                         "bytes": nbytes, "base_case": base,
                         "variant": label or "base",
                         "flags": gpu_cases.FLAGS.get(name, []),
                         # Sinter's max error against the float64
                         # reference, beside torch's in the same dtype.
                         "max_err": err, "torch_same_dtype_err": terr,
                         "other_timings": {
                             fl: {"ms": oms, "TBps": nbytes / oms / 1e9}
                             for fl, oms in other[backend].items()}})
        if label:
            # One line under the base case's table: the same program with
            # the variant's flags, and its change against the base.
            tbs = nbytes / res["sinter"] / 1e9
            ref_tbs = base_tbs.get(base)
            if ref_tbs is None:
                print("\n%s  (%.1f MB moved; base case not run)"
                      % (base, nbytes / 1e6))
            print("  %-16s %9.4f %8.2f %8.1f%% %s  max err %.2e" % (
                label, res["sinter"], tbs, 100 * tbs / copy_tbs,
                "%+5.1f%% vs base" % (100 * (tbs / ref_tbs - 1))
                if ref_tbs else "", err))
            continue
        base_tbs[name] = nbytes / res["sinter"] / 1e9
        print("\n%s  (%.1f MB moved; max err %.2e, torch same-dtype %.2e)"
              % (name, nbytes / 1e6, err, terr))
        print("  %-16s %9s %8s %9s %8s" % ("backend", "ms", "TB/s",
                                           "of copy", "speed-up") +
              "".join(" | %-11s %7s %8s" % (fl, "TB/s", "of copy")
                      for fl in methods[1:]))
        for backend, ms in res.items():
            tbs = nbytes / ms / 1e9
            print("  %-16s %9.4f %8.2f %8.1f%% %7.2fx" % (
                backend, ms, tbs, 100 * tbs / copy_tbs, ms / res["sinter"]) +
                "".join(" | %19.2f %7.1f%%" % (
                    nbytes / oms / 1e9,
                    100 * nbytes / oms / 1e9 / ceiling[fl])
                    for fl, oms in other[backend].items()))
    varied = [r for r in rows if r.get("variant", "base") != "base"]
    if varied:
        bases = list(dict.fromkeys(r["base_case"] for r in varied))
        labels = ["base"] + list(dict.fromkeys(r["variant"] for r in varied))
        print("\nVariants, Sinter's kernel, %% of copy (%.2f TB/s):"
              % copy_tbs)
        w = max(len(b) for b in bases)
        lw = max(len(v) for v in labels)
        print("  %-*s" % (lw, "variant") +
              "".join("  %*s" % (w, b) for b in bases))
        for v in labels:
            cells = []
            for b in bases:
                r = next((r for r in rows if r["backend"] == "sinter" and
                          r.get("base_case") == b and
                          r.get("variant") == v), None)
                cells.append("  %*s" % (w, "%.1f%%" % (100 * r["TBps"] /
                                                       copy_tbs)
                                        if r else "-"))
            print("  %-*s" % (lw, v) + "".join(cells))
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"info": info, "copy_TBps": copy_tbs, "rows": rows}, f,
                  indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        cases = [r["case"] for r in rows if r["backend"] == "sinter"]
        backends = ["sinter", "torch.compile", "F.rms_norm", "F.layer_norm",
                    "torch fused AdamW", "eager composed"]
        fig, ax = plt.subplots(figsize=(max(9, 0.8 * len(cases)), 4.5))
        width = 0.16
        for i, bk in enumerate(backends):
            vals = [next((r["TBps"] for r in rows if r["case"] == c and
                          r["backend"] == bk), 0) for c in cases]
            ax.bar([j + i * width for j in range(len(cases))], vals, width,
                   label=bk)
        ax.axhline(copy_tbs, color="k", ls="--", label="copy ceiling")
        ax.set_xticks([j + 2 * width for j in range(len(cases))])
        ax.set_xticklabels(cases, fontsize=6, rotation=30, ha="right")
        ax.set_ylabel("TB/s")
        ax.set_title("Memory-bound kernels, %s (timing: %s)"
                     % (info["gpu"], primary))
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
    except ImportError:
        print("(matplotlib not installed: no PNG)")


if __name__ == "__main__":
    main()
