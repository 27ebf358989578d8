# Part of the Sinter project.
"""The Python half of `make run` (called by examples/run.sh).

Summarises sinter-opt's fusion report and the fused IR, then compiles the
GPT-2 block of examples/gpt_block.mlir through the `sinter` package twice
(fused and unfused), runs both on the CPU on random inputs, and compares them
with each other and with an independent float64 numpy implementation of the
block. When a CUDA device and torch are present the block is also compiled
for cuda:sm_90a and run on torch tensors; otherwise sinterc shows the CUDA
artifact it would run. Exits non-zero when an error exceeds the tolerance.
"""

import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

# Errors are measured as max|a - b| / max|ref|; f32 kernels with different
# summation orders agree to ~1e-6 here, so 1e-4 leaves ample margin while
# still catching any real miscompile.
TOLERANCE = 1e-4
RUNS = 20
WARMUP = 3

# Argument names and shapes of @gpt_block (examples/gpt_block.mlir).
B, T, C, H, MLP = 2, 64, 128, 4, 512
D = C // H
EPS = 1e-5
ARGS = [
    ("x", (B, T, C)), ("ln1_w", (C,)), ("ln1_b", (C,)),
    ("attn_w", (C, 3 * C)), ("attn_b", (3 * C,)),
    ("proj_w", (C, C)), ("proj_b", (C,)),
    ("ln2_w", (C,)), ("ln2_b", (C,)),
    ("fc_w", (C, MLP)), ("fc_b", (MLP,)),
    ("mproj_w", (MLP, C)), ("mproj_b", (C,)),
]


def section(title):
    print()
    print(("== %s " % title).ljust(78, "="))


# ---------------------------------------------------------------------------
# Fusion report and op census.
# ---------------------------------------------------------------------------

def summarize_report(path):
    with open(path) as f:
        report = json.load(f)
    fusions = report.get("fusions", [])
    print("-- fusion report (%d fusions) " % len(fusions) + "-" * 48)
    print("  %-14s %5s" % ("pattern", "count"))
    for pattern, count in sorted(report.get("patterns", {}).items()):
        print("  %-14s %5d" % (pattern, count))
    print()
    print("  %-18s %-26s %14s" % ("fused op", "source location",
                                  "bytes avoided"))
    for entry in fusions:
        # "path/gpt_block.mlir:101:10" -> "gpt_block.mlir:101:10"
        loc = os.path.basename(entry.get("location", "?"))
        print("  %-18s %-26s %14s" % (entry.get("op", "?"), loc,
                                      "{:,}".format(entry.get(
                                          "bytes_avoided", 0))))
    total = report.get("total_bytes_avoided",
                       sum(e.get("bytes_avoided", 0) for e in fusions))
    print("  %-45s %14s  (%.2f MiB)" % ("total", "{:,}".format(total),
                                        total / 2**20))


_OP_RE = re.compile(r"^\s*(?:%[\w:#, %]+=\s*)?([a-z_]+\.[a-z_.]+)\b")


def census(ir_text):
    """Counts the ops of the sinter, linalg and tensor dialects (the ones
    that make up the program; arith/math inside fused bodies are skipped)."""
    counts = collections.Counter()
    for line in ir_text.splitlines():
        m = _OP_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        if name.split(".")[0] in ("sinter", "linalg", "tensor") and \
                name != "sinter.yield":
            counts[name] += 1
    compute = ["sinter.layer_norm", "sinter.attention", "sinter.softmax",
               "sinter.rms_norm", "sinter.fused", "linalg.matmul",
               "linalg.batch_matmul", "linalg.generic"]
    always = ("sinter.layer_norm", "sinter.attention", "sinter.fused",
              "linalg.matmul", "linalg.generic")
    compute = [k for k in compute if k in always or counts[k]]
    compute += sorted(k for k in counts if k not in compute and
                      k.startswith("sinter."))
    layout = sorted(k for k in counts if k not in compute)
    fmt = lambda keys: ", ".join("%d %s" % (counts[k], k) for k in keys)
    return counts, "compute: %s\n  layout : %s" % (fmt(compute), fmt(layout))


# ---------------------------------------------------------------------------
# Inputs and the float64 reference.
# ---------------------------------------------------------------------------

def make_inputs(seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for name, shape in ARGS:
        if name == "x":
            a = rng.standard_normal(shape)
        elif name.startswith("ln") and name.endswith("_w"):
            a = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name.endswith("_b"):
            a = 0.1 * rng.standard_normal(shape)
        else:  # weight matrices [fan_in, fan_out]
            a = rng.standard_normal(shape) / np.sqrt(shape[0])
        arrays.append(np.ascontiguousarray(a, dtype=np.float32))
    return arrays


def reference_block(x, ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b,
                    ln2_w, ln2_b, fc_w, fc_b, mproj_w, mproj_b):
    """nanoGPT's Block in float64: x + attn(ln1(x)), then + mlp(ln2(.))."""
    f = lambda a: np.asarray(a, dtype=np.float64)

    def layer_norm(v, w, b):
        mu = v.mean(-1, keepdims=True)
        var = ((v - mu) ** 2).mean(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + EPS) * f(w) + f(b)

    x = f(x)
    qkv = layer_norm(x, ln1_w, ln1_b) @ f(attn_w) + f(attn_b)
    q, k, v = (qkv[..., i * C:(i + 1) * C].reshape(B, T, H, D)
               .transpose(0, 2, 1, 3) for i in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf,
                      scores)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    y = (p @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
    x = x + y @ f(proj_w) + f(proj_b)
    h = layer_norm(x, ln2_w, ln2_b) @ f(fc_w) + f(fc_b)
    h = 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) *
                                 (h + 0.044715 * h ** 3)))
    return x + h @ f(mproj_w) + f(mproj_b)


def errors(got, ref):
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        raise SystemExit("shape mismatch: %s vs %s" % (got.shape, ref.shape))
    if not np.all(np.isfinite(got)):
        return float("inf"), float("inf")
    abs_err = float(np.max(np.abs(got - ref)))
    return abs_err, abs_err / max(float(np.max(np.abs(ref))), 1e-30)


def median_time(fn, runs=RUNS, warmup=WARMUP, sync=None):
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Checker:
    def __init__(self):
        self.failures = []

    def line(self, label, got, ref):
        abs_err, rel_err = errors(got, ref)
        ok = rel_err <= TOLERANCE
        if not ok:
            self.failures.append(label)
        print("  %-28s max abs err %9.3e   rel %9.3e   %s"
              % (label, abs_err, rel_err, "ok" if ok else
                 "FAIL (> %.0e)" % TOLERANCE))


# ---------------------------------------------------------------------------
# CUDA.
# ---------------------------------------------------------------------------

def cuda_section(args, source, inputs, cpu_out, check):
    section("4. CUDA (target cuda:sm_90a)")
    import sinter
    import sinter.cuda
    has_device = sinter.cuda.cuda_available()
    try:
        import torch
    except ImportError:
        torch = None
    if has_device and torch is not None:
        t0 = time.perf_counter()
        prog = sinter.compile(source, target="cuda:sm_90a",
                              source_name=args.example)
        compile_s = time.perf_counter() - t0
        tensors = [torch.from_numpy(a).cuda() for a in inputs]
        out = prog.run("gpt_block", *tensors)
        torch.cuda.synchronize()
        print("  compile %.2f s; device: %s" % (compile_s,
                                                torch.cuda.get_device_name()))
        if hasattr(prog, "library_counts"):
            counts = prog.library_counts()
            print("  matmuls: %d through cuBLASLt, %d fallback kernels%s"
                  % (counts["library_calls"], counts["fallback_launches"],
                     " (%s)" % counts["last_fallback"]
                     if counts["last_fallback"] else ""))
        check.line("cuda vs CPU (fused)", out.cpu().numpy(), cpu_out)
        t = median_time(lambda: prog.run("gpt_block", *tensors),
                        sync=torch.cuda.synchronize)
        print("  %-28s %9.1f us per call (median of %d)" % ("cuda", t * 1e6,
                                                          RUNS))
        return
    why = ("no GPU is visible" if not has_device else
           "torch is not installed")
    print("  %s, so the CUDA run is skipped; compiling the artifact only:"
          % why)
    out_dir = os.path.join(args.tmp, "cuda-artifact")
    cmd = [os.path.join(args.build_dir, "bin", "sinterc"), args.example,
           "--target=cuda:sm_90a", "-o", out_dir]
    print("  $ sinterc examples/gpt_block.mlir --target=cuda:sm_90a -o "
          "<tmp>/cuda-artifact")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    compile_s = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout + proc.stderr)
        check.failures.append("sinterc --target=cuda:sm_90a")
        print("  sinterc failed (exit %d)" % proc.returncode)
        return
    for name in sorted(os.listdir(out_dir)):
        size = os.path.getsize(os.path.join(out_dir, name))
        print("    %-16s %10s bytes" % (name, "{:,}".format(size)))
    with open(os.path.join(out_dir, "manifest.json")) as f:
        manifest = json.load(f)
    for fn in manifest.get("functions", []):
        launches = fn.get("launches", [])
        # A library call (a cuBLASLt GEMM) records its fallback kernel.
        library = [l for l in launches if l.get("kind", "kernel") != "kernel"]
        kernels = sorted({l.get("fallback", l).get("kernel")
                          for l in launches})
        temps = fn.get("temps", 0)
        temps = temps if isinstance(temps, int) else len(temps)
        print("  %s: %d launches (%d kernels; %d cuBLASLt GEMMs with "
              "fallback kernels), %d temporaries; sinterc took %.2f s"
              % (fn.get("name"), len(launches), len(kernels), len(library),
                 temps, compile_s))


# ---------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--example", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--fused-ir", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--seed", type=int, default=None,
                        help="input seed (default: $SINTER_TEST_SEED, else "
                        "random)")
    args = parser.parse_args()

    summarize_report(args.report)
    with open(args.fused_ir) as f:
        counts, line = census(f.read())
    print()
    print("-- op census of the fused IR " + "-" * 49)
    print("  " + line)

    import sinter
    with open(args.example) as f:
        source = f.read()

    section("2. Compile for the CPU (sinter.compile)")
    print("  libSinterCAPI: %s" % sinter.library_path())
    progs = {}
    for fusion in (True, False):
        label = "fused" if fusion else "unfused"
        t0 = time.perf_counter()
        progs[label] = sinter.compile(source, target="cpu", fusion=fusion,
                                      source_name=args.example)
        print("  %-8s compile %6.2f s" % (label, time.perf_counter() - t0))

    section("3. Run on the CPU")
    seed = args.seed
    if seed is None and os.environ.get("SINTER_TEST_SEED"):
        seed = int(os.environ["SINTER_TEST_SEED"])
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    print("  seed %d (rerun with SINTER_TEST_SEED=%d)" % (seed, seed))
    inputs = make_inputs(seed)
    outs = {k: p.run("gpt_block", *inputs) for k, p in progs.items()}
    ref = reference_block(*inputs)
    print("  output %s %s, max |ref| %.3f; rel = max abs err / max |ref|, "
          "tolerance %.0e"
          % (outs["fused"].dtype, "x".join(map(str, outs["fused"].shape)),
             float(np.max(np.abs(ref))), TOLERANCE))
    print()
    check = Checker()
    check.line("fused vs unfused", outs["fused"], outs["unfused"])
    check.line("fused vs numpy float64", outs["fused"], ref)
    check.line("unfused vs numpy float64", outs["unfused"], ref)
    print()
    times = {}
    for label, prog in progs.items():
        times[label] = median_time(lambda: prog.run("gpt_block", *inputs))
    f32 = [a for a in inputs]
    times["numpy float64"] = median_time(lambda: reference_block(*f32))
    for label, t in times.items():
        print("  %-28s %9.1f us per call (median of %d)"
              % (label, t * 1e6, RUNS))
    print("  %-28s %9.2fx" % ("unfused / fused",
                               times["unfused"] / times["fused"]))

    cuda_section(args, source, inputs, outs["fused"], check)

    print()
    if check.failures:
        print("FAILED: %s" % ", ".join(check.failures))
        return 1
    print("OK: all results within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
