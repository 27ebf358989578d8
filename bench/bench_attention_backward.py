# Part of the Sinter project.
"""Attention backward on the GPU beside its peers, in one process.

    python3 bench/bench_attention_backward.py build DIR   # here: sinterc
    python3 bench/bench_attention_backward.py run DIR [--json F]  # on the GPU

Each case is the backward alone: dO, Q, K, V, and the forward's O and
logsumexp (from torch, in f32) in; dQ, dK, dV out, bf16. Then forward and
backward together ("fwd+bwd"): Sinter's forward saving O and the
logsumexp, then its backward, against one SDPA call and its
torch.autograd.grad per peer (FLOPs 14 B H Sq Skv D, halved with causal:
the forward's four and the backward's ten). FLOPs counted as
FlashAttention's benchmarks count them: the five products, 10 B H Sq Skv D
(half with causal) -- 2.5x the forward. Peers: torch's SDPA backward with
the cuDNN and the flash (FlashAttention-2) backends, timed as
torch.autograd.grad of the SDPA output (their backward kernels plus the
small kernels around them, as Sinter's three launches are). Errors: the
max error of each gradient against float64 autograd of attention written
out, beside cuDNN's own.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# B, H, S, D, causal, dropout p: GPT-2 124M's attention (B8 T1024), and
# the ../shared/BENCHMARKS.md shapes; the training variant with dropout 0.1
# (the mask regenerated in the kernels; peers with the same dropout_p).
CASES = [(8, 12, 1024, 64, True, 0.0), (2, 16, 4096, 128, False, 0.0),
         (2, 16, 4096, 128, True, 0.0), (16, 16, 1024, 64, False, 0.0),
         (8, 12, 1024, 64, True, 0.1), (2, 16, 4096, 128, False, 0.1)]
SEED = 0x5EED


def name_of(B, H, S, D, causal, dropout_p=0.0):
    return "attention_backward_b%dh%ds%dd%d%s%s" % (
        B, H, S, D, "_causal" if causal else "",
        "_dropout" if dropout_p else "")


def _types_of(B, H, S, D, causal, dropout_p=0.0):
    """The IR's tensor types, attributes and seed argument of a case."""
    attrs = (["causal"] if causal else []) + (
        ["dropout_p = %r : f64" % dropout_p] if dropout_p else [])
    return dict(t="tensor<%dx%dx%dx%dxbf16>" % (B, H, S, D),
                l="tensor<%dx%dx%dxf32>" % (B, H, S),
                attr=" {%s}" % ", ".join(attrs) if attrs else "",
                seed=", %seed: i64" if dropout_p else "",
                use=" seed(%seed)" if dropout_p else "")


def ir_of(B, H, S, D, causal, dropout_p=0.0):
    return """func.func @main(%%do: %(t)s, %%q: %(t)s, %%k: %(t)s, %%v: %(t)s, %%o: %(t)s, %%lse: %(l)s%(seed)s) -> (%(t)s, %(t)s, %(t)s) {
  %%dq, %%dk, %%dv = sinter.attention_backward %%do, %%q, %%k, %%v, %%o, %%lse%(use)s%(attr)s : %(t)s, %(t)s, %(t)s, %(t)s, %(t)s, %(l)s -> %(t)s, %(t)s, %(t)s
  return %%dq, %%dk, %%dv : %(t)s, %(t)s, %(t)s
}
""" % _types_of(B, H, S, D, causal, dropout_p)


# The key-tile kernel's forms: label -> extra sinterc flags ("sinter" is
# the default, wgmma on sm_90a).
FORMS = {"sinter": [],
         "sinter mma.sync": ["--cuda-attention-backward=mma-sync"]}


def form_dir(out, name, label):
    return os.path.join(out, name + ("" if label == "sinter" else
                                     "_" + label.split()[-1]))


def forward_ir_of(B, H, S, D, causal, dropout_p=0.0):
    """The training forward: O and the logsumexp the backward reads."""
    return """func.func @main(%%q: %(t)s, %%k: %(t)s, %%v: %(t)s%(seed)s) -> (%(t)s, %(l)s) {
  %%o, %%l = sinter.attention %%q, %%k, %%v%(use)s%(attr)s : %(t)s, %(t)s, %(t)s -> %(t)s, %(l)s
  return %%o, %%l : %(t)s, %(l)s
}
""" % _types_of(B, H, S, D, causal, dropout_p)


def forward_dir(out, name):
    return os.path.join(out, name + "_forward")


def compile_to(d, ir, flags=()):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "source.mlir")
    with open(src, "w") as f:
        f.write(ir)
    subprocess.run(["sinterc", src, "--no-fusion", "--target=cuda:sm_90a",
                    "-o", d] + list(flags), check=True)


def build(out):
    for case in CASES:
        for label, flags in FORMS.items():
            compile_to(form_dir(out, name_of(*case), label), ir_of(*case),
                       flags)
        compile_to(forward_dir(out, name_of(*case)), forward_ir_of(*case))


def time_forward_backward(timer, res, fwd, bwd, peers_fb, args, flops):
    """Sinter's forward then backward, and each peer's SDPA call and
    autograd.grad, timed as one step each (res gains "<label> fwd+bwd")."""
    q, k, v, do, seed = args

    def sinter_fb():
        o, lse = fwd(q, k, v, *seed)
        return bwd(do, q, k, v, o, lse, *seed)
    for label, f in [("sinter", sinter_fb)] + list(peers_fb.items()):
        ms = timer.median_p90(f, rep=100)[0]
        res[label + " fwd+bwd ms"] = ms
        res[label + " fwd+bwd TFLOP/s"] = flops / ms / 1e9


def reference(torch, q, k, v, do, causal, dtype):
    """Gradients of attention written out, in `dtype`."""
    xs = [a.detach().to(dtype).requires_grad_() for a in (q, k, v)]
    s = (xs[0] @ xs[1].transpose(-1, -2)) * q.shape[-1] ** -0.5
    if causal:
        S = q.shape[2]
        hide = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(hide, float("-inf"))
    (torch.softmax(s, -1) @ xs[2]).backward(do.to(dtype))
    return [a.grad for a in xs]


def forward_stats(torch, q, k, v, causal):
    """O (bf16) and the logsumexp (f32) of the forward, per head."""
    o = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    S = q.shape[2]
    for b in range(q.shape[0]):
        s = (q[b].float() @ k[b].float().transpose(-1, -2)) * q.shape[-1] ** -0.5
        if causal:
            hide = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
            s = s.masked_fill(hide, float("-inf"))
        lse[b] = torch.logsumexp(s, -1)
        o[b] = (torch.softmax(s, -1) @ v[b].float()).to(q.dtype)
    return o, lse


def flex_peer(torch, q, k, v, do, causal):
    """FlexAttention (torch.compile'd flex_attention, a causal block mask
    where the case is causal): its backward alone (autograd.grad of one
    forward) and its forward+backward. No dropout (FlexAttention has
    none)."""
    from torch.nn.attention.flex_attention import (create_block_mask,
                                                   flex_attention)
    # The backward alone is timed by calling it again on one forward's
    # graph (retain_graph), which AOTAutograd's donated buffers forbid.
    import torch._functorch.config as functorch_config
    functorch_config.donated_buffer = False
    flex = torch.compile(flex_attention)
    mask = None
    if causal:
        B, H, S = q.shape[:3]
        mask = create_block_mask(lambda b, h, i, j: i >= j, None, None, S, S,
                                 device=q.device)
    xs = [a.clone().requires_grad_() for a in (q, k, v)]
    y = flex(*xs, block_mask=mask)

    def grad():
        return torch.autograd.grad(y, xs, do, retain_graph=True)

    def step():
        return torch.autograd.grad(flex(*xs, block_mask=mask), xs, do)
    return grad, step


def run(out, json_path, only=None, flex=False):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sys.path.insert(0, HERE)
    import timing
    import sinter.cuda as sc
    dev = torch.device("cuda")
    timer = timing.Timer("zero")
    gen = torch.Generator(device=dev).manual_seed(0)
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version(),
            "date": time.strftime("%Y-%m-%d"), "timing": "zero"}
    rows = []
    for case in CASES:
        B, H, S, D, causal, dropout_p = case
        name = name_of(*case)
        if only and not re.search(only, name):
            continue
        seed = [SEED] if dropout_p else []
        fns = {label: sc.CudaProgram(form_dir(out, name, label))["main"]
               for label in FORMS}
        fn = fns["sinter"]
        q, k, v, do = [torch.randn(B, H, S, D, generator=gen, device=dev,
                                   dtype=torch.bfloat16) for _ in range(4)]
        o, lse = forward_stats(torch, q, k, v, causal)
        flops = 10.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        res = {"case": name, "flops": flops}
        got = fn(do, q, k, v, o, lse, *seed)
        peers, peers_fb = {}, {}
        for label, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                               ("flash2", SDPBackend.FLASH_ATTENTION)):
            qr, kr, vr = [a.clone().requires_grad_() for a in (q, k, v)]
            with sdpa_kernel(backend):
                y = F.scaled_dot_product_attention(qr, kr, vr,
                                                   is_causal=causal,
                                                   dropout_p=dropout_p)

            def grad(y=y, xs=(qr, kr, vr)):
                return torch.autograd.grad(y, xs, do, retain_graph=True)
            peers[label] = grad

            def step(backend=backend, xs=(qr, kr, vr)):
                with sdpa_kernel(backend):
                    y = F.scaled_dot_product_attention(
                        *xs, is_causal=causal, dropout_p=dropout_p)
                return torch.autograd.grad(y, xs, do)
            peers_fb[label] = step
        if flex and not dropout_p:
            peers["flex"], peers_fb["flex"] = flex_peer(torch, q, k, v, do,
                                                        causal)
        errs = None
        # (Dropout's numerics are the GPU checks': backward_cases.py.)
        if B * H * S * S <= (1 << 28) and not dropout_p:
            want = reference(torch, q, k, v, do, causal, torch.float64)
            theirs = peers["cudnn"]()
            errs = []
            for g, r, t in zip(got, want, theirs):
                e = (g.double() - r).abs().max().item()
                te = (t.double() - r).abs().max().item()
                errs.append((e, te))
            res["errors (sinter, cudnn)"] = errs
        if errs:
            # The other form agrees with the default one within the
            # reference's error (the sums run in other orders).
            other = fns["sinter mma.sync"](do, q, k, v, o, lse, *seed)
            res["errors (sinter mma.sync)"] = [
                (g.double() - r).abs().max().item()
                for g, r in zip(other, want)]
        for label, f in [(label, lambda f=f: f(do, q, k, v, o, lse, *seed))
                         for label, f in fns.items()] + list(peers.items()):
            ms = timer.median_p90(f, rep=100)[0]
            res[label + " ms"] = ms
            res[label + " TFLOP/s"] = flops / ms / 1e9
        fwd = sc.CudaProgram(forward_dir(out, name))["main"]
        if errs:
            # The chain's gradients: Sinter's own O and logsumexp in.
            o2, lse2 = fwd(q, k, v)
            res["errors (sinter fwd+bwd)"] = [
                (g.double() - r).abs().max().item()
                for g, r in zip(fn(do, q, k, v, o2, lse2), want)]
        time_forward_backward(timer, res, fwd, fn, peers_fb,
                              (q, k, v, do, seed), flops * 1.4)
        rows.append(res)
        print("%-44s" % name + "".join(
            " | %s %.3f ms %.0f TFLOP/s" % (label, res[label + " ms"],
                                            res[label + " TFLOP/s"])
            for label in list(FORMS) + list(peers)))
        print("%-44s" % "  fwd+bwd" + "".join(
            " | %s %.3f ms %.0f TFLOP/s" % (
                label, res[label + " fwd+bwd ms"],
                res[label + " fwd+bwd TFLOP/s"])
            for label in ["sinter"] + list(peers_fb)))
        if errs:
            print("  max errors (sinter / cudnn) dq dk dv:",
                  ", ".join("%.2e/%.2e" % e for e in errs))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"info": info, "rows": rows}, f, indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["build", "run"])
    p.add_argument("dir")
    p.add_argument("--json")
    p.add_argument("--only", help="regular expression: the cases to time")
    p.add_argument("--flex", action="store_true",
                   help="FlexAttention too (compiled per case: ~30 s each)")
    a = p.parse_args()
    if a.mode == "build":
        build(a.dir)
    else:
        run(a.dir, a.json, a.only, a.flex)


if __name__ == "__main__":
    main()
