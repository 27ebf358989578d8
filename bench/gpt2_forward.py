#!/usr/bin/env python3
# Part of the Sinter project.
"""GPT-2 124M forward, end to end: Sinter beside torch eager and
torch.compile, on the IR torch-mlir emits for the real Hugging Face model.

    # where the compiler is (torch, torch-mlir, transformers, sinter):
    python3 bench/gpt2_forward.py export OUT [--batch 8 --seq 1024 --layers 12]
    # on the GPU machine (torch, transformers, triton, the runtime):
    python3 bench/gpt2_forward.py run OUT [--json results.json]

`export` builds GPT2Model from GPT2Config() (124M: 12 layers, 768 wide, 12
heads, vocabulary 50257) in bf16 with attn_implementation="sdpa", passes
every weight as an argument (test/Frontends/export_corpus.py's wrapper, so
the IR holds no weights and the GPU run can use any), exports with
torch-mlir to linalg-on-tensors, and compiles it with sinterc for
cuda:sm_90a (build/bin/sinterc: the time of every stage and the census of
launches -- tuned kernels, cuBLASLt calls, general-path kernels).

`run` rebuilds the model on the GPU with the same config, runs torch eager,
torch.compile (default mode, and mode="reduce-overhead": CUDA graphs, the
peer of Sinter's graph replay) and Sinter's artifact on the same weights and
token ids, checks each against a float64 run of the same weights by the
FlashAttention rule (error at most twice eager bf16's, plus 2^-10 of the
output's magnitude), and times each with bench/timing.py (`none`: one
forward per event pair, no flush -- a forward moves far more than the L2).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "Frontends"))
sys.path.insert(0, HERE)

SEED = 0


def gpt2(layers, dtype, attn="sdpa"):
    import torch
    import transformers as tf
    cfg = tf.GPT2Config(n_layer=layers)
    torch.manual_seed(SEED)
    model = tf.GPT2Model._from_config(cfg, attn_implementation=attn,
                                      dtype=dtype)
    return model.eval()


def entry(layers, batch, seq, dtype):
    """(module taking weights then ids, example args) on the CPU."""
    import torch
    import export_corpus as ec
    model = gpt2(layers, dtype)
    g = torch.Generator().manual_seed(SEED)
    ids = torch.randint(0, model.config.vocab_size, (batch, seq), generator=g)
    call = lambda f, i: ec.hidden_state(f, input_ids=i, use_cache=False)
    return ec.model_entry(model, [ids], call)


def export(o):
    import torch
    from torch_mlir import fx
    import export_corpus as ec
    os.makedirs(o.out, exist_ok=True)
    t0 = time.time()
    module, args = entry(o.layers, o.batch, o.seq, torch.bfloat16)
    with torch.no_grad():
        # Keeping SDPA whole: torch 2.11's decomposition of it fails in
        # torch-mlir's import of HF GPT-2 at batch > 1 (export_corpus.py).
        m = fx.export_and_import(module, *args, output_type="linalg-on-tensors",
                                 func_name="forward",
                                 decomposition_table=ec.sdpa_kept_whole())
    text = str(m)
    path = os.path.join(o.out, "gpt2.linalg.mlir")
    with open(path, "w") as f:
        f.write(text)
    export_s = time.time() - t0
    print("exported %s: %.1f MB of IR in %.1f s" % (
        path, len(text) / 1e6, export_s), flush=True)
    # sinterc prints each stage's time and the census of launches.
    t0 = time.time()
    subprocess.run([os.path.join(ROOT, "build", "bin", "sinterc"), path,
                    "--target=cuda:" + o.chip, "-o",
                    os.path.join(o.out, "artifact")], check=True)
    compile_s = time.time() - t0
    print("compiled for cuda:%s in %.1f s" % (o.chip, compile_s))
    meta = dict(layers=o.layers, batch=o.batch, seq=o.seq, chip=o.chip,
                export_s=round(export_s, 1), compile_s=round(compile_s, 1))
    with open(os.path.join(o.out, "config.json"), "w") as f:
        json.dump(meta, f)


def error(got, ref):
    r = ref.double()
    scale = max(1.0, r.abs().max().item())
    return (got.double() - r).abs().max().item() / scale


def kernel_family(name):
    """Kernels grouped: Sinter's by family (`fused_12` -> fused), library
    GEMMs together, Triton's by their fused-op name."""
    import re
    if re.search(r"gemm|nvjet|cutlass|xmma|sm90_", name):
        return "gemm (cuBLAS)"
    if name.startswith("triton_"):
        return re.sub(r"_\d+$", "", name)
    return re.sub(r"_\d+$", "", name)[:60]


def kernel_profile(fn, reps=5):
    """GPU time per forward by kernel family (torch.profiler's CUPTI trace
    sees the runtime's driver launches too), largest first."""
    import collections
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    fam = collections.defaultdict(lambda: [0.0, 0])
    single = []
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = getattr(e, "cuda_time_total", 0)
        if t <= 0 or e.key.startswith("Memcpy") or e.key.startswith("Memset"):
            continue
        f = fam[kernel_family(e.key)]
        f[0] += t / 1e3 / reps
        f[1] += e.count / reps
        single.append((t / 1e3 / reps, e.count / reps, e.key[:50]))
    print("  %-50s %9s %6s" % ("slowest kernels", "ms/fwd", "calls"))
    for ms, n, key in sorted(single, reverse=True)[:12]:
        print("  %-50s %9.3f %6.0f" % (key, ms, n))
    rows = sorted(fam.items(), key=lambda kv: -kv[1][0])
    total = sum(v[0] for _, v in rows)
    print("  %-40s %9s %8s" % ("kernels per forward", "ms", "launches"))
    for k, (ms, n) in rows[:15]:
        print("  %-40s %9.3f %8.0f" % (k, ms, n))
    print("  %-40s %9.3f %8.0f" % ("total", total, sum(v[1] for _, v in rows)))
    return {k: {"ms": round(v[0], 4), "launches": v[1]} for k, v in rows}


def run(o):
    import torch
    import sinter
    from timing import Timer
    meta = json.load(open(os.path.join(o.out, "config.json")))
    dev = torch.device("cuda")
    module, args = entry(meta["layers"], meta["batch"], meta["seq"],
                         torch.bfloat16)
    args = [a.to(dev).contiguous() for a in args]
    prog = sinter.load(os.path.join(o.out, "artifact"))
    bound = prog["forward"].bind(*args)
    eager = lambda: module(*args)
    compiled_module = torch.compile(module)
    compiled = lambda: compiled_module(*args)
    # torch.compile's CUDA-graph mode: the peer of Sinter's graph replay.
    graphed_module = torch.compile(module, mode="reduce-overhead")
    graphed = lambda: graphed_module(*args)
    results = dict(meta, gpu=torch.cuda.get_device_name(),
                   torch=torch.__version__)
    with torch.no_grad():
        ref = module(*[a.double() if a.is_floating_point() else a
                       for a in args])
        t0 = time.time()
        out_c = compiled()
        results["torch_compile_first_call_s"] = time.time() - t0
        for _ in range(3):  # cudagraph trees record on a later call
            out_g = graphed()
        outs = dict(eager=eager(), torch_compile=out_c, sinter=bound(),
                    torch_compile_graphs=out_g.clone())
        torch.cuda.synchronize()
        tol = None
        for name, out in outs.items():
            results[name + "_error"] = error(out, ref)
        tol = 2 * results["eager_error"] + 2 ** -10
        results["sinter_ok"] = results["sinter_error"] <= tol
        timer = Timer("none")
        for name, fn in (("eager", eager), ("torch_compile", compiled),
                         ("torch_compile_graphs", graphed),
                         ("sinter", bound)):
            med, p90 = timer.median_p90(fn, warmup=200, rep=1000)
            results[name + "_ms"] = med
            results[name + "_p90_ms"] = p90
            print("%-14s %8.3f ms (p90 %.3f)  error %.3g" % (
                name, med, p90, results[name + "_error"]), flush=True)
        # The same artifact replayed as a CUDA graph (SINTER_CUDA_GRAPH=1:
        # the runtime captures the launches on the second call).
        os.environ["SINTER_CUDA_GRAPH"] = "1"
        for _ in range(3):
            out_g = bound()
        torch.cuda.synchronize()
        results["sinter_graph_error"] = error(out_g, ref)
        results["sinter_graph_ok"] = results["sinter_graph_error"] <= tol
        med, p90 = timer.median_p90(bound, warmup=200, rep=1000)
        results["sinter_graph_ms"], results["sinter_graph_p90_ms"] = med, p90
        print("%-14s %8.3f ms (p90 %.3f)  error %.3g" % (
            "sinter (graph)", med, p90, results["sinter_graph_error"]),
            flush=True)
        del os.environ["SINTER_CUDA_GRAPH"]
        if o.profile:
            for name, fn in (("torch_compile", compiled), ("sinter", bound)):
                results[name + "_kernels"] = kernel_profile(fn)
    results["speedup_vs_torch_compile"] = (results["torch_compile_ms"] /
                                           results["sinter_ms"])
    results["speedup_vs_eager"] = results["eager_ms"] / results["sinter_ms"]
    results["graph_speedup_vs_torch_compile"] = (results["torch_compile_ms"] /
                                                 results["sinter_graph_ms"])
    results["graph_speedup_vs_torch_compile_graphs"] = (
        results["torch_compile_graphs_ms"] / results["sinter_graph_ms"])
    tokens = meta["batch"] * meta["seq"]
    print("Sinter: %.2fx torch.compile, %.2fx eager; %.0f tokens/ms; "
          "correct: %s" % (results["speedup_vs_torch_compile"],
                           results["speedup_vs_eager"],
                           tokens / results["sinter_ms"], results["sinter_ok"]))
    if o.json:
        with open(o.json, "w") as f:
            json.dump(results, f, indent=1)
    print("Sinter as a CUDA graph: %.2fx torch.compile, %.2fx torch.compile "
          "with CUDA graphs; correct: %s" % (
              results["graph_speedup_vs_torch_compile"],
              results["graph_speedup_vs_torch_compile_graphs"],
              results["sinter_graph_ok"]))
    return 0 if results["sinter_ok"] and results["sinter_graph_ok"] else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["export", "run"])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--json")
    ap.add_argument("--profile", action="store_true",
                    help="GPU time per kernel family (torch.profiler)")
    o = ap.parse_args()
    if o.mode == "export":
        export(o)
        return 0
    return run(o)


if __name__ == "__main__":
    sys.exit(main())
