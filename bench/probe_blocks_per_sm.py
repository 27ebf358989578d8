# Part of the Sinter project.
"""What if a kernel ran more blocks per SM? The attention backward's
key-tile kernel, asked by `.minnctapersm N` to fit N blocks, timed beside
ptxas' own choice, in one process.

    python3 bench/probe_blocks_per_sm.py build DIR [N ...]   # here
    python3 bench/probe_blocks_per_sm.py run DIR             # on the GPU

`build` compiles bench_attention_backward.py's D64 cases (GPT-2's causal
shape, B16 H16 S1024 and GPT-2's with dropout; 62 KB of shared memory a
block, room for three) into DIR/<case>_c0, and for each N (default 3) a
copy DIR/<case>_c<N> whose key-tile kernel's PTX asks for N blocks, its
cubin re-made by the toolkit's ptxas and its SHA256SUMS rewritten. It
prints ptxas' registers and spills of each. `run` checks that every copy
computes what _c0 does (dQ's f32 atomics make the order of its sums vary:
within 1e-2 of it) and times them beside cuDNN's backward
(bench/NOTES.md, session 16: at 3 blocks ptxas takes 160-168 registers
with 256-292 bytes of spills, where it chose 194-216 for 2 blocks).
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_attention_backward as bab  # noqa: E402

CASES = [c for c in bab.CASES if c[3] == 64]
PTXAS = os.path.join(os.environ.get("SINTER_CUDA_PATH", "/usr/local/cuda"),
                     "bin", "ptxas")
KEY_TILE_KERNEL = re.compile(r"\.visible \.entry (attention_backward_\d+_1)\(")


def ptxas_report(log, kernel):
    """`<registers> registers, <spill stores> bytes spilled` of `kernel`."""
    part = log.split("Compiling entry function '%s'" % kernel)[1]
    part = part.split("Compiling entry function")[0]
    regs = re.search(r"Used (\d+) registers", part).group(1)
    spill = re.search(r"(\d+) bytes spill stores", part).group(1)
    return "%s registers, %s bytes spilled" % (regs, spill)


def patched_copy(src, dst, blocks):
    """`src` with its key-tile kernel asking for `blocks` blocks per SM."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    ptx = os.path.join(dst, "kernels.ptx")
    text = open(ptx).read()
    kernel = KEY_TILE_KERNEL.search(text)
    body = text.index("{", kernel.end())
    if blocks:
        text = text[:body] + ".minnctapersm %d\n" % blocks + text[body:]
    with open(ptx, "w") as f:
        f.write(text)
    log = subprocess.run([PTXAS, "-arch=sm_90a", "-v", ptx, "-o",
                          os.path.join(dst, "kernels.cubin")],
                         capture_output=True, text=True, check=True).stderr
    with open(os.path.join(dst, "SHA256SUMS"), "w") as f:
        for name in ("manifest.json", "kernels.cubin", "kernels.ptx"):
            with open(os.path.join(dst, name), "rb") as g:
                f.write("%s  %s\n" % (hashlib.sha256(g.read()).hexdigest(),
                                      name))
    return ptxas_report(log, kernel.group(1))


def build(out, counts):
    for case in CASES:
        name = bab.name_of(*case)
        base = os.path.join(out, name + "_base")
        bab.compile_to(base, bab.ir_of(*case))
        for n in [0] + counts:
            print("%s_c%d: %s" % (name, n, patched_copy(
                base, os.path.join(out, "%s_c%d" % (name, n)), n)))
        shutil.rmtree(base)


def run(out):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import timing
    import sinter.cuda as sc
    timer = timing.Timer("zero")
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(torch.cuda.get_device_name())
    for case in CASES:
        B, H, S, D, causal, p = case
        name = bab.name_of(*case)
        dirs = sorted(d for d in os.listdir(out)
                      if re.fullmatch(re.escape(name) + r"_c\d+", d))
        seed = [bab.SEED] if p else []
        q, k, v, do = [torch.randn(B, H, S, D, generator=gen, device="cuda",
                                   dtype=torch.bfloat16) for _ in range(4)]
        o, lse = bab.forward_stats(torch, q, k, v, causal)
        flops = 10.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        fns = {d: sc.CudaProgram(os.path.join(out, d))["main"] for d in dirs}
        want = [g.float() for g in fns[name + "_c0"](do, q, k, v, o, lse,
                                                      *seed)]
        for d, f in fns.items():
            got = f(do, q, k, v, o, lse, *seed)
            err = max((g.float() - w).abs().max().item()
                      for g, w in zip(got, want))
            assert err <= 1e-2, (d, err)
        qr, kr, vr = [a.clone().requires_grad_() for a in (q, k, v)]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            y = F.scaled_dot_product_attention(qr, kr, vr, is_causal=causal,
                                               dropout_p=p)
        timed = [(d, lambda f=f: f(do, q, k, v, o, lse, *seed))
                 for d, f in fns.items()]
        timed.append(("cudnn", lambda: torch.autograd.grad(
            y, (qr, kr, vr), do, retain_graph=True)))
        for rep in range(2):
            print(name + "".join(
                " | %s %.4f ms %.0f TFLOP/s" % (
                    d.rsplit("_", 1)[-1], ms, flops / ms / 1e9)
                for d, ms in ((d, timer.median_p90(f, rep=100)[0])
                              for d, f in timed)), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["build", "run"])
    p.add_argument("dir")
    p.add_argument("counts", nargs="*", type=int, default=[3])
    a = p.parse_args()
    if a.mode == "build":
        build(a.dir, a.counts)
    else:
        run(a.dir)


if __name__ == "__main__":
    main()
