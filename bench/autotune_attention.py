#!/usr/bin/env python3
# Part of the Sinter project.
"""Autotune the tensor-core attention kernel's tile shapes.

Three steps, split across the two machines:

    python3 bench/autotune_attention.py build ART [--compiler sinterc]
        compile every candidate for every tuned shape (here: needs sinterc)
    python3 bench/autotune_attention.py run ART --json ART/tuning.json
        time every candidate on the GPU (triton do_bench median), check it
        against SDPA, keep the fastest correct one per shape
    python3 bench/autotune_attention.py table ART/tuning.json
        rewrite lib/GPU/Attention/AttentionConfigs.inc, the table sinterc reads

User compiles never tune: they read the shipped table. The tuned shapes are
BENCHMARKS.md's (B2 H16 S4096, bf16), one per (head dim, causal).
"""

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TABLE = os.path.join(ROOT, "lib", "GPU", "Attention", "AttentionConfigs.inc")

# B2 H16 S4096 per head dim and causality (the table's general entries),
# B16 H16 S1024 at D128 (BENCHMARKS.md's short-sequence shape: an entry
# for key sequences up to 1024 where its best tiles differ) and GPT-2 124M's
# B8 H12 S1024 at D64 (bench/gpt2_forward.py's and train_gpt2.py's), the
# last as the real model's attention reads them: heads in place in the
# fused QKV projection, O merged for the output projection (HEADS).
SHAPES = [(2, 16, 4096, d, causal) for d in (64, 128, 256)
          for causal in (False, True)] + [
    (16, 16, 1024, 128, causal) for causal in (False, True)] + [
    (8, 12, 1024, 64, causal) for causal in (False, True)]
HEADS = {(8, 12, 1024, 64)}
CANDIDATES = ["warps=%d,mtiles=%d,bn=%d" % c for c in itertools.product(
    (4, 8), (1, 2), (32, 64, 128))] + [
    "wgmma,warps=%d,mtiles=1,bn=%d" % c for c in itertools.product(
        (4, 8), (64, 128))] + [
    # 128 registers: four one-warpgroup blocks (or two of two) per SM.
    "wgmma,warps=4,mtiles=1,bn=64,maxregs=128",
    "wgmma,warps=8,mtiles=1,bn=64,maxregs=128"] + [
    # Two stages (S of tile t overlapping P V of tile t-1), with a barrier
    # per tile or mbarriers, and with ping-pong between warpgroups.
    "wgmma,pipe,%swarps=%d,mtiles=1,bn=%d%s" % (f, w, bn, r)
    for f, ws in (("", (4, 8, 12)), ("mbar,", (4, 8, 12)),
                  ("mbar,pp,", (8, 12)),
                  # Warp-specialized: a TMA producer warpgroup beside one
                  # or two consumer warpgroups.
                  ("mbar,ws,", (4, 8)), ("mbar,pp,ws,", (8,)),
                  # ... storing O through shared memory with TMA.
                  ("mbar,ws,tmastore,", (4, 8)),
                  ("mbar,pp,ws,tmastore,", (8,)))
    for w in ws for bn in (64, 128)
    for r in ([",maxregs=168"] if w == 12 else [""])] + [
    # Wider key tiles, where 240 registers hold them (FlashAttention-3
    # takes 176 keys at D128).
    "wgmma,pipe,mbar,pp,ws,warps=8,mtiles=1,bn=%d" % bn for bn in (176,)] + [
    # Persistent blocks (one per SM looping over the work items), storing
    # O from registers or through a shared tile of its own with TMA.
    "wgmma,pipe,mbar,pp,ws,persist,%swarps=8,mtiles=1,bn=%d" % (f, bn)
    for f in ("", "tmastore,") for bn in (64, 128)] + [
    # Three consumer warpgroups (192 query rows) beside the producer, at
    # 160 registers each: FlashAttention-3's shape for D64.
    "wgmma,pipe,mbar,%sws,%swarps=12,mtiles=1,bn=128" % (pp, f)
    for pp in ("", "pp,") for f in ("", "tmastore,")]


def shape_name(B, H, S, D, causal, t="bf16"):
    return "b%dh%ds%dd%d_%s%s%s" % (B, H, S, D, t, "_causal" if causal else "",
                                    "_heads" if (B, H, S, D) in HEADS else "")


def source(B, H, S, D, causal, t="bf16"):
    if (B, H, S, D) in HEADS:
        # main(qkv [B, S, 3HD]) -> [B, S, HD] (test/Integration/GPU/
        # heads_cases.py's IR).
        sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "GPU"))
        import heads_cases
        return heads_cases.attention_heads_case(B, S, H, H, D, t, causal)[1]
    ty = "tensor<%dx%dx%dx%dx%s>" % (B, H, S, D, t)
    return """func.func @main(%%q: %s, %%k: %s, %%v: %s) -> %s {
  %%o = sinter.attention %%q, %%k, %%v%s : %s, %s, %s -> %s
  return %%o : %s
}
""" % (ty, ty, ty, ty, " {causal}" if causal else "", ty, ty, ty, ty, ty)


def build(art, compiler, chip, only=None):
    os.makedirs(art, exist_ok=True)
    for shape in SHAPES:
        sname = shape_name(*shape)
        if only and not re.search(only, sname):
            continue
        src = os.path.join(art, sname + ".mlir")
        with open(src, "w") as f:
            f.write(source(*shape))
        for cfg in CANDIDATES:
            d = os.path.join(art, sname, cfg.replace(",", "_").replace("=",
                                                                       ""))
            os.makedirs(d, exist_ok=True)
            t0 = time.time()
            r = subprocess.run(compiler.split() + [
                src, "--target=cuda:" + chip, "--quiet",
                "--attention-config=" + cfg, "-o", d],
                capture_output=True, text=True)
            status = "ok" if r.returncode == 0 else "rejected"
            with open(os.path.join(d, "config.txt"), "w") as f:
                f.write(cfg + "\n" + status + "\n" + r.stderr)
            print("%-28s %-26s %-8s %5.0f ms%s" % (
                sname, cfg, status, 1000 * (time.time() - t0),
                "" if r.returncode == 0 else
                "  (" + next((l for l in r.stderr.splitlines()
                              if "error:" in l), r.stderr)[-90:] + ")"))


def run(art, out_json):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torch
    import torch.nn.functional as F
    from triton.testing import do_bench
    import sinter.cuda as sc
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)
    results = {"device": torch.cuda.get_device_name(),
               "torch": torch.__version__,
               "date": time.strftime("%Y-%m-%d"), "shapes": {}}
    for B, H, S, D, causal in SHAPES:
        sname = shape_name(B, H, S, D, causal)
        if not os.path.isdir(os.path.join(art, sname)):
            continue
        heads = (B, H, S, D) in HEADS
        if heads:
            qkv = torch.randn(B, S, 3 * H * D, generator=gen,
                              device=dev).to(torch.bfloat16)
            q, k, v = (x.view(B, S, H, D).transpose(1, 2)
                       for x in qkv.split(H * D, -1))
            ins = [qkv]
        else:
            q, k, v = (torch.randn(B, H, S, D, generator=gen, device=dev)
                       .to(torch.bfloat16) for _ in range(3))
            ins = [q, k, v]
        want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        if heads:
            want = want.transpose(1, 2).reshape(B, S, H * D)
        flops = 4 * B * H * S * S * D / (2 if causal else 1)
        rows = []
        for cfg_dir in sorted(os.listdir(os.path.join(art, sname))):
            d = os.path.join(art, sname, cfg_dir)
            cfg, status = open(os.path.join(d, "config.txt")).read().split(
                "\n")[:2]
            if status != "ok":
                continue
            try:
                fn = sc.CudaProgram(d)["main"]
                out = torch.full_like(want, float("nan"))
                fn(*ins, out=out)
                torch.cuda.synchronize()
            except Exception as e:  # e.g. too many resources for a launch
                print("%-28s %-26s does not run: %s" % (
                    sname, cfg, str(e).splitlines()[0][:100]))
                rows.append({"config": cfg, "ms": None, "TFLOPs": 0.0,
                             "rel_err": None, "ok": False,
                             "error": str(e).splitlines()[0]})
                continue
            err = ((out.float() - want.float()).norm() /
                   want.float().norm()).item()
            ms = do_bench(lambda: fn(*ins, out=out), warmup=25, rep=100,
                          return_mode="median")
            ok = err == err and err < 2e-2
            rows.append({"config": cfg, "ms": ms,
                         "TFLOPs": flops / ms / 1e9, "rel_err": err,
                         "ok": ok})
            print("%-28s %-26s %8.3f ms %7.1f TFLOP/s err %.1e%s" % (
                sname, cfg, ms, flops / ms / 1e9, err,
                "" if ok else "  WRONG"))
        good = [r for r in rows if r["ok"]]
        best = min(good, key=lambda r: r["ms"]) if good else None
        results["shapes"][sname] = {"B": B, "H": H, "S": S, "D": D,
                                    "causal": causal, "candidates": rows,
                                    "best": best}
        if best:
            print("  best: %s %.1f TFLOP/s" % (best["config"],
                                                best["TFLOPs"]))
    with open(out_json, "w") as f:
        json.dump(results, f, indent=1)


def table(tuning_json, out=TABLE, chip_min=80):
    res = json.load(open(tuning_json))
    lines = open(TABLE).read().split("\n")
    head = [l for l in lines if l.startswith("//")]
    body = []

    def picks(s):
        # The best mma.sync tiles serve sm_80 and later; where a wgmma
        # configuration (sm_90a only) is faster, it gets its own entry.
        good = [c for c in s["candidates"] if c["ok"]]
        out = {}
        mma = [c for c in good if "wgmma" not in c["config"]]
        if mma:
            out[chip_min] = max(mma, key=lambda c: c["TFLOPs"])
        if good:
            best = max(good, key=lambda c: c["TFLOPs"])
            if "wgmma" in best["config"]:
                out[90] = best
        return out

    # The longest sequence tuned per (head dim, causal) gives the general
    # entries (any length); a shorter one adds an entry for sequences up
    # to its length where its pick for a chip differs.
    shapes = sorted(res["shapes"].values(),
                    key=lambda s: (s["D"], s["causal"], -s["S"]))
    general = {}
    for s in shapes:
        key = (s["D"], s["causal"])
        max_seq = 0 if key not in general else s["S"]
        mine = picks(s)
        if not max_seq:
            general[key] = mine
        for sm, c in sorted(mine.items()):
            if max_seq:
                # The entry that would serve this length otherwise.
                fallback = general[key].get(sm) or general[key].get(chip_min)
                if fallback and fallback["config"] == c["config"]:
                    continue
            # Measured in bf16; f16 runs the same instructions.
            body.append('SINTER_ATTENTION_CONFIG(%d, "bf16/f16", %d, %s, %d, '
                        '"%s")  // %.0f TFLOP/s (B%d H%d S%d), %s, %s' % (
                            sm, s["D"], "true" if s["causal"] else "false",
                            max_seq, c["config"], c["TFLOPs"], s["B"],
                            s["H"], s["S"], res["device"], res["date"]))
    with open(out, "w") as f:
        f.write("\n".join(head) + "\n\n" + "\n".join(body) + "\n")
    print("wrote %d entries to %s" % (len(body), out))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("step", choices=["build", "run", "table"])
    p.add_argument("path", help="artifact directory (build/run) or "
                   "tuning JSON (table)")
    p.add_argument("--compiler", default=os.path.join(ROOT, "build", "bin",
                                                      "sinterc"))
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--json", help="where run writes its results (default "
                   "PATH/tuning.json)")
    p.add_argument("--out", default=TABLE, help="where table writes the "
                   "table (default: lib/GPU/Attention/AttentionConfigs.inc)")
    p.add_argument("--only", help="build: the shapes whose names match this "
                   "regular expression (e.g. 's1024')")
    p.add_argument("--merge-into", help="run: also write the timed shapes "
                   "into this tuning JSON, replacing its entries for them")
    a = p.parse_args()
    if a.step == "build":
        build(a.path, a.compiler, a.chip, a.only)
    elif a.step == "run":
        out = a.json or os.path.join(a.path, "tuning.json")
        run(a.path, out)
        if a.merge_into:
            merged = json.load(open(a.merge_into))
            merged["shapes"].update(json.load(open(out))["shapes"])
            with open(a.merge_into, "w") as f:
                json.dump(merged, f, indent=1)
    else:
        table(a.path, a.out)


if __name__ == "__main__":
    main()
