# Part of the Sinter project.
"""LayerNorm/RMSNorm backward on the GPU beside its peers, in one process.

    python3 bench/bench_norm_backward.py build DIR     # here: sinterc
    python3 bench/bench_norm_backward.py run DIR [--json F]   # on the GPU
    python3 bench/bench_norm_backward.py variants DIR  # <case>_<tag> dirs
    python3 bench/bench_norm_backward.py build DIR --tag T --option=OPT ...
        # here: DIR/<case>_T compiled with sinterc's OPTs, for `variants`

Each case is the backward alone: dy, x, the forward's saved statistics
(computed by torch) and the weight in; dx, dweight (and dbias) out, all of
the storage dtype like torch's. Bytes counted: x and dy read once, dx
written once (6 bytes per bf16 element); the statistics, weights and the
column-sum scratch are left out (under 3% at these shapes). Peers: torch's
eager autograd (its native backward kernels) and torch.compile of the same
backward written out (what Inductor makes of AOTAutograd's backward graph).
Percentages are of the device-to-device copy timed the same way.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("rms", 16384, 4096), ("layer", 16384, 4096), ("layer", 8192, 768),
         ("rms", 4096, 8192)]


def name_of(kind, rows, cols):
    return "%s_norm_backward_%dx%d_bf16" % (kind, rows, cols)


def ir_of(kind, rows, cols):
    x, w, s = ("tensor<%dx%dxbf16>" % (rows, cols), "tensor<%dxbf16>" % cols,
               "tensor<%dxf32>" % rows)
    if kind == "layer":
        return """func.func @main(%%dy: %(x)s, %%x: %(x)s, %%mean: %(s)s, %%rstd: %(s)s, %%w: %(w)s) -> (%(x)s, %(w)s, %(w)s) {
  %%dx, %%dw, %%db = sinter.layer_norm_backward %%dy, %%x, %%mean, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(w)s) dbias(%(w)s)
  return %%dx, %%dw, %%db : %(x)s, %(w)s, %(w)s
}
""" % dict(x=x, w=w, s=s)
    return """func.func @main(%%dy: %(x)s, %%x: %(x)s, %%rstd: %(s)s, %%w: %(w)s) -> (%(x)s, %(w)s) {
  %%dx, %%dw = sinter.rms_norm_backward %%dy, %%x, %%rstd weight(%%w : %(w)s) : %(x)s, %(s)s -> %(x)s dweight(%(w)s)
  return %%dx, %%dw : %(x)s, %(w)s
}
""" % dict(x=x, w=w, s=s)


def build(out, tag=None, options=()):
    """Each case into out/<case> (out/<case>_<tag> with a tag), compiled
    with sinterc's `options` besides the defaults."""
    for kind, rows, cols in CASES:
        name = name_of(kind, rows, cols) + ("_" + tag if tag else "")
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "source.mlir")
        with open(src, "w") as f:
            f.write(ir_of(kind, rows, cols))
        subprocess.run(["sinterc", src, "--no-fusion", "--target=cuda:sm_90a",
                        *options, "-o", d], check=True)


def make_inputs(torch, kind, rows, cols, gen):
    """dy, x, the saved statistics and the weight of a case (bf16)."""
    dev = torch.device("cuda")
    x = torch.randn(rows, cols, generator=gen, device=dev).bfloat16()
    dy = torch.randn(rows, cols, generator=gen, device=dev).bfloat16()
    w = (1 + 0.1 * torch.randn(cols, generator=gen, device=dev)).bfloat16()
    x32 = x.float()
    if kind == "layer":
        mean = x32.mean(1)
        rstd = torch.rsqrt(x32.var(1, unbiased=False) + 1e-5)
        return [dy, x, mean, rstd, w]
    rstd = torch.rsqrt((x32 * x32).mean(1) + 1e-6)
    return [dy, x, rstd, w]


def variants(out):
    """Times every artifact under `out` named <case>_<variant> (compiled
    with other options), Sinter alone, against the copy ceiling."""
    import torch
    sys.path.insert(0, HERE)
    import timing
    import sinter.cuda as sc
    timer = timing.Timer("zero")
    gen = torch.Generator(device="cuda").manual_seed(0)
    big = torch.empty(1 << 29, dtype=torch.int32, device="cuda")
    big2 = torch.empty_like(big)
    copy = 2 * big.numel() * 4 / timer.median_p90(
        lambda: big2.copy_(big), rep=50)[0] / 1e9
    for d in sorted(os.listdir(out)):
        kind, rows, cols = next(c for c in CASES if d.startswith(name_of(*c)))
        ins = make_inputs(torch, kind, rows, cols, gen)
        fn = sc.CudaProgram(os.path.join(out, d))["main"]
        ms = timer.median_p90(lambda: fn(*ins), rep=100)[0]
        tbs = 6 * rows * cols / ms / 1e9
        print("%-50s %7.1f us %5.2f TB/s (%.0f%% of copy %.2f)"
              % (d, 1e3 * ms, tbs, 100 * tbs / copy, copy))


def run(out, json_path):
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, HERE)
    import timing
    import sinter.cuda as sc
    dev = torch.device("cuda")
    timer = timing.Timer("zero")
    batch = timing.Timer("batch")
    gen = torch.Generator(device=dev).manual_seed(0)
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "date": time.strftime("%Y-%m-%d"), "timing": "zero, batch"}
    big = torch.empty(1 << 29, dtype=torch.int32, device=dev)  # 2 GiB
    big2 = torch.empty_like(big)
    copy = {m: 2 * big.numel() * 4 / t.median_p90(lambda: big2.copy_(big),
                                                   rep=50)[0] / 1e9
            for m, t in (("zero", timer), ("batch", batch))}
    print("copy ceiling: %.2f TB/s (zero), %.2f TB/s (batch)"
          % (copy["zero"], copy["batch"]))
    rows_out = []
    for kind, rows, cols in CASES:
        name = name_of(kind, rows, cols)
        fn = sc.CudaProgram(os.path.join(out, name))["main"]
        ins = make_inputs(torch, kind, rows, cols, gen)
        dy, x, w = ins[0], ins[1], ins[-1]
        eps = 1e-5 if kind == "layer" else 1e-6

        def written_out(dy, x, *stats_w):
            # The backward as AOTAutograd decomposes it (f32 math).
            w = stats_w[-1].float()
            xf, g = x.float(), dy.float() * w
            if kind == "layer":
                m, r = stats_w[0][:, None], stats_w[1][:, None]
                xhat = (xf - m) * r
                dx = r * (g - g.mean(1, keepdim=True)
                          - xhat * (g * xhat).mean(1, keepdim=True))
                return (dx.bfloat16(), (dy.float() * xhat).sum(0).bfloat16(),
                        dy.float().sum(0).bfloat16())
            r = stats_w[0][:, None]
            xhat = xf * r
            dx = r * (g - xhat * (g * xhat).mean(1, keepdim=True))
            return dx.bfloat16(), (dy.float() * xhat).sum(0).bfloat16()
        compiled = torch.compile(written_out)
        xr = x.clone().requires_grad_()
        wr = w.clone().requires_grad_()
        if kind == "layer":
            br = torch.zeros_like(w).requires_grad_()
            y = F.layer_norm(xr, (cols,), wr, br, eps)
            params = [xr, wr, br]
        else:
            y = F.rms_norm(xr, (cols,), wr, eps)
            params = [xr, wr]

        def eager():
            return torch.autograd.grad(y, params, dy, retain_graph=True)
        got = fn(*ins)
        want = [g.double() for g in written_out(dy.double(), x.double(),
                                                *[s.double() for s in
                                                  ins[2:]])]
        # Tolerance: twice torch's own error (eager autograd) + 1e-3.
        theirs = eager()
        errs = []
        for g, r, t in zip(got, want, theirs):
            e = (g.double() - r).abs().max().item()
            te = (t.double() - r).abs().max().item()
            errs.append((e, te))
            assert e <= 2 * te + 1e-3 * (1 + r.abs().max().item()), (name, e,
                                                                     te)
        nbytes = 6 * rows * cols
        res = {"case": name, "bytes": nbytes, "errors": errs}
        for label, f in (("sinter", lambda: fn(*ins)), ("torch eager", eager),
                         ("torch.compile", lambda: compiled(*ins))):
            for m, t in (("zero", timer), ("batch", batch)):
                ms = t.median_p90(f, rep=100)[0]
                tbs = nbytes / ms / 1e9
                res["%s %s ms" % (label, m)] = ms
                res["%s %s TB/s" % (label, m)] = tbs
        rows_out.append(res)
        print("%-40s" % name + "".join(
            " | %s %.1f us %.2f TB/s (%.0f%%)" % (
                label, 1e3 * res["%s zero ms" % label],
                res["%s zero TB/s" % label],
                100 * res["%s zero TB/s" % label] / copy["zero"])
            for label in ("sinter", "torch eager", "torch.compile")))
        print("%-40s" % "  (batch)" + "".join(
            " | %s %.1f us %.2f TB/s (%.0f%%)" % (
                label, 1e3 * res["%s batch ms" % label],
                res["%s batch TB/s" % label],
                100 * res["%s batch TB/s" % label] / copy["batch"])
            for label in ("sinter", "torch eager", "torch.compile")))
        print("  errors (sinter, torch eager) per output:",
              ", ".join("%.2e/%.2e" % e for e in errs))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"info": info, "copy_TBps": copy, "rows": rows_out}, f,
                      indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["build", "run", "variants"])
    p.add_argument("dir")
    p.add_argument("--json")
    p.add_argument("--tag", help="build: name the cases <case>_TAG")
    p.add_argument("--option", action="append", default=[],
                   help="build: a sinterc option (repeatable)")
    a = p.parse_args()
    if a.mode == "build":
        build(a.dir, a.tag, a.option)
    elif a.mode == "variants":
        variants(a.dir)
    else:
        run(a.dir, a.json)


if __name__ == "__main__":
    main()
