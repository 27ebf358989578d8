#!/usr/bin/env python3
# Part of the Sinter project.
"""A few attention tile configurations beside SDPA's cuDNN and flash (FA2)
backends, in one process: the probes behind bench/NOTES.md's "wgmma v7"
(ws) and "persist" figures.

    python3 bench/compare_attention_configs.py build ART \\
        --shape 2,16,4096,128 --shape 2,16,4096,128,causal \\
        --config table --config wgmma,pipe,mbar,pp,ws,warps=8,bn=128
        (here: sinterc; "table" = no --attention-config, the shipped pick)
    python3 bench/compare_attention_configs.py run ART [--no-time]
        (on the GPU: each config's error against a float64 SDPA reference,
        beside torch's own bf16 error, and its TFLOP/s beside the peers;
        --no-time checks only, e.g. under compute-sanitizer)

Unlike autotune_attention.py this times the peers too, so ratios come from
one run; it writes nothing into the tree.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from autotune_attention import shape_name, source  # noqa: E402


def build(art, compiler, chip, shapes, configs):
    for spec in shapes:
        parts = spec.split(",")
        B, H, S, D = (int(x) for x in parts[:4])
        causal = parts[4:] == ["causal"]
        name = shape_name(B, H, S, D, causal)
        os.makedirs(os.path.join(art, name), exist_ok=True)
        src = os.path.join(art, name, "source.mlir")
        with open(src, "w") as f:
            f.write(source(B, H, S, D, causal))
        with open(os.path.join(art, name, "shape.json"), "w") as f:
            json.dump([B, H, S, D, causal], f)
        for i, cfg in enumerate(configs):
            d = os.path.join(art, name, "c%02d" % i)
            flags = [] if cfg == "table" else ["--attention-config=" + cfg]
            subprocess.run(compiler.split() + [
                src, "--target=cuda:" + chip, "--quiet", "-o", d] + flags,
                check=True)
            with open(os.path.join(d, "config.txt"), "w") as f:
                f.write(cfg + "\n")
            print("built %s %s" % (name, cfg))


def run(art, time_it):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench
    import sinter.cuda as sc
    dev = torch.device("cuda")
    bad = 0
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    for name in sorted(os.listdir(art)):
        d = os.path.join(art, name)
        if not os.path.isfile(os.path.join(d, "shape.json")):
            continue
        B, H, S, D, causal = json.load(open(os.path.join(d, "shape.json")))
        g = torch.Generator(device=dev).manual_seed(0)
        q, k, v = (torch.randn(B, H, S, D, generator=g, device=dev)
                   .to(torch.bfloat16) for _ in range(3))
        ref = F.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), is_causal=causal).float()
        flops = 4 * B * H * S * S * D / (2 if causal else 1)

        def tflops(fn):
            if not time_it:
                return 0.0
            return flops / do_bench(fn, warmup=50, rep=300,
                                    return_mode="median") / 1e9
        print(name)
        torch_err = None
        for backend, label in ((SDPBackend.CUDNN_ATTENTION, "SDPA cuDNN"),
                               (SDPBackend.FLASH_ATTENTION, "SDPA FA2")):
            with sdpa_kernel(backend):
                def fn():
                    return F.scaled_dot_product_attention(
                        q, k, v, is_causal=causal)
                err = (fn().float() - ref).abs().max().item()
                torch_err = err if torch_err is None else min(torch_err, err)
                print("  %-48s %7.1f TFLOP/s  err %.2e" % (
                    label, tflops(fn), err))
        for c in sorted(x for x in os.listdir(d) if x.startswith("c")):
            cfg = open(os.path.join(d, c, "config.txt")).read().strip()
            fn = sc.CudaProgram(os.path.join(d, c))["main"]
            out = torch.full_like(q, float("nan"))
            fn(q, k, v, out=out)
            torch.cuda.synchronize()
            err = (out.float() - ref).abs().max().item()
            ok = err <= 2 * torch_err
            bad += not ok
            print("  %-48s %7.1f TFLOP/s  err %.2e%s" % (
                cfg, tflops(lambda: fn(q, k, v, out=out)), err,
                "" if ok else "  WRONG (torch bf16 %.2e)" % torch_err))
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("step", choices=["build", "run"])
    p.add_argument("art")
    p.add_argument("--compiler", default=os.path.join(
        HERE, "..", "build", "bin", "sinterc"))
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--shape", action="append", default=[],
                   help="B,H,S,D[,causal] (repeatable)")
    p.add_argument("--config", action="append", default=[],
                   help="an --attention-config, or 'table' (repeatable)")
    p.add_argument("--no-time", action="store_true")
    a = p.parse_args()
    if a.step == "build":
        if not a.shape or not a.config:
            p.error("build needs --shape and --config")
        build(a.art, a.compiler, a.chip, a.shape, a.config)
    else:
        sys.exit(1 if run(a.art, not a.no_time) else 0)


if __name__ == "__main__":
    main()
