# Part of the Sinter project.
"""A GPT-2 training step (the project's own model, llm.c's shape: 12 layers,
768 wide, 12 heads, GELU-tanh MLP, tied embeddings) beside eager torch and
torch.compile (inductor) in one process, with backend="sinter" and
sinter.torch.AdamW.

    python3 bench/train_gpt2.py aot CACHE [--batch 8 --seq 1024]   # here
    python3 bench/train_gpt2.py run CACHE --json F [--steps 30]    # GPU
        [--autocast bf16] [--runs eager,sinter,sinter-saved,inductor]
        [--profile]
        [--compile-log F]
    torchrun --nproc_per_node=N bench/train_gpt2.py run CACHE --engine ddp

`run` trains on the GPU and reports ms per step, tokens/s, the first step
(compile) time, peak memory and the losses. Where torch-mlir and Sinter's
compiler are installed (the wheel: docs/Wheel.md), every partition is
compiled there for the graphs the GPU really runs -- bf16 autocast
included -- into CACHE; a second process loads them from it.

`aot` compiles the attention hook's and AdamW's programs for the H200
(sinter.torch's cache, CACHE) and, in f32, runs one step on the CPU with
SINTER_TORCH_AOT=cuda:sm_90a, for GPU machines without a compiler: every
partition of the forward and backward graphs is imported with torch-mlir
and compiled for the H200 into CACHE, indexed by its FX graph (devices
elided); `run` there loads them (a partition whose graph differs runs in
torch, logged). In f32 the CPU's graphs are CUDA's; under `--autocast
bf16` they are not (CUDA's autocast runs GELU's pow in f32, the CPU's in
bf16: measured 2026-12-06, every partition missed), so for bf16 `aot`
compiles the hooks' programs only (seconds) and the graphs come from the GPU:
`run` there with SINTER_TORCH_IMPORT=0 SINTER_TORCH_EXPORT=DIR writes the
partitions the cache lacks, `python -m sinter.torch.export DIR` here
(SINTER_CACHE_DIR=CACHE) compiles them, and the next `run` finds them.
(Tracing on meta tensors gives other graphs than a real device: some
decompositions depend on the device.)
"""

import argparse
import functools
import gc
import json
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

TARGET = "cuda:sm_90a"
# Every run's optimizer (torch's fused AdamW or sinter.torch.AdamW).
ADAMW = dict(lr=3e-4, weight_decay=0.0)
# A run named "<run>+graph" replays its whole step as one CUDA graph
# (GraphedStep), captured after this many ordinary steps.
GRAPH_SUFFIX, GRAPH_WARMUP = "+graph", 3


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2)
                   for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x)),
                                       approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab=50257, seq=1024, layers=12, d=768, heads=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(
                    "proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               targets.reshape(-1))


def wrap(model, engine, bucket_cap_mb=25, device_ids=None):
    """The model under torch's distributed engine `engine` (None, "ddp" or
    "fsdp2": fully_shard per block and at the root); the process group is
    already initialised."""
    if engine == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        return DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb,
                                       device_ids=device_ids)
    if engine == "fsdp2":
        from torch.distributed.fsdp import fully_shard
        for block in model.blocks:
            fully_shard(block)
        fully_shard(model)
    return model


def precompile_hooks(batch, seq, layers, heads=12, d=768):
    """The programs the model's step needs beside its graphs' own, compiled
    for TARGET into the cache: sinter.torch.AdamW's (by the parameters'
    types, 64 to a program, as its step buckets them) and the attention
    hook's (SDPA under bf16 autocast: causal bf16 heads of d / heads). A
    graph that runs in torch -- not yet exported and compiled -- calls the
    hook, so the export run needs it too."""
    import sinter.torch as st
    from sinter.torch import _cache, optim
    from sinter.torch.attention import attention_ir
    with torch.device("meta"):
        model = GPT(layers=layers, d=d, heads=heads)
    # The optimizer `run` makes, its programs as its first step buckets
    # them (its own compile-ahead skips meta parameters).
    # Both forms: the step count passed, or read on the device (the
    # capturable optimizer of a "+graph" run).
    for capturable in (False, True):
        opt = st.AdamW(model.parameters(), **ADAMW, capturable=capturable)
        for group in opt.param_groups:
            for _, ir in optim.first_step_programs(group, group["params"]):
                _cache.precompile(ir, TARGET)
    q = torch.empty(batch, heads, seq, d // heads, dtype=torch.bfloat16,
                    device="meta")
    _cache.precompile(attention_ir(q, q, q, None, True, None, 0.0, False),
                      TARGET)


def aot(cache, batch, seq, layers, autocast=None):
    os.environ["SINTER_CACHE_DIR"] = cache
    os.environ["SINTER_TORCH_AOT"] = TARGET
    import logging
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    import sinter.torch  # noqa: F401  (registers backend="sinter")
    t0 = time.time()
    precompile_hooks(batch, seq, layers)
    if autocast is None:
        # f32: the CPU's graphs are CUDA's; one step compiles every
        # partition of both graphs too. (bf16 autocast traced on the CPU
        # gives other graphs than CUDA's: the GPU exports its own, and a
        # CPU step here would take minutes for nothing.)
        model = GPT(layers=layers)
        idx = torch.zeros(batch, seq, dtype=torch.long)
        targets = torch.zeros(batch, seq, dtype=torch.long)
        compiled = torch.compile(model, backend="sinter", dynamic=False)
        compiled(idx, targets).backward()
    print("aot: compiled for %s in %.1f s into %s" % (TARGET,
                                                      time.time() - t0,
                                                      cache))


def step_body(step_model, opt, idx, targets, autocast, graphed=False):
    """Forward under autocast when asked, backward, optimizer; the loss,
    detached (its graph would keep the model's parameters alive, through
    their AccumulateGrad nodes, after the run that made it). `graphed`: the
    autocast cache off, as capture into a CUDA graph requires."""
    with torch.autocast("cuda", dtype=torch.bfloat16,
                        enabled=autocast is not None,
                        cache_enabled=False if graphed else None):
        loss = step_model(idx, targets)
    loss.backward()
    opt.step()
    return loss.detach()


def train_step(step_model, opt, idx, targets, autocast, graphed=False):
    """One step from zeroed gradients, synchronized."""
    opt.zero_grad(set_to_none=True)
    loss = step_body(step_model, opt, idx, targets, autocast, graphed)
    torch.cuda.synchronize()
    return loss


class GraphedStep:
    """The whole step -- forward, backward and optimizer -- captured into
    one CUDA graph (torch's whole-network capture: the gradients are made
    by the graph, in its memory pool, and rewritten by each replay) and
    replayed with the batch copied into static inputs: no host work per
    kernel. The optimizer must be capturable (the step count on the
    device) and the model must have run a few steps first (lazy
    initialization, compiles, Sinter's temporaries)."""

    def __init__(self, step_model, opt, batch, autocast):
        self.idx, self.targets = (t.clone() for t in batch)
        opt.zero_grad(set_to_none=True)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.loss = step_body(step_model, opt, self.idx, self.targets,
                                  autocast, graphed=True)

    def __call__(self, idx, targets):
        self.idx.copy_(idx)
        self.targets.copy_(targets)
        self.graph.replay()
        torch.cuda.synchronize()
        return self.loss.clone()


def make_optimizer(model, sinter, graphed):
    """sinter.torch.AdamW for Sinter's runs, torch's fused AdamW for the
    others; capturable when the step is graphed."""
    if sinter:
        import sinter.torch as st
        return st.AdamW(model.parameters(), **ADAMW, capturable=graphed)
    return torch.optim.AdamW(model.parameters(), **ADAMW, fused=True,
                             capturable=graphed)


def top_kernels(step, batch):
    """One more step (`step(idx, targets)`) under torch.profiler: GPU time
    per kernel name, the largest first, as (name, ms in the step,
    launches)."""
    from torch.profiler import profile, ProfilerActivity
    idx, targets = batch
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step(idx, targets)
    rows = [(e.key, e.device_time_total / 1e3, e.count)
            for e in prof.key_averages() if e.device_time_total > 0]
    # The GPU's busy time in the step (the rest of the step is the host's).
    busy = sum(r[1] for r in rows)
    return sorted(rows, key=lambda r: -r[1]), busy


def trace_step(step, batch, path):
    """One more step (`step(idx, targets)`) under torch.profiler with host
    and GPU activities, written to `path` as a chrome trace; prints where
    the GPU waited (bench/step_gaps.py)."""
    from torch.profiler import profile, ProfilerActivity
    import step_gaps
    idx, targets = batch
    with profile(activities=[ProfilerActivity.CPU,
                             ProfilerActivity.CUDA]) as prof:
        step(idx, targets)
    prof.export_chrome_trace(path)
    print(step_gaps.summarize(path, top=8))


def run(cache, batch, seq, layers, steps, json_path, profile=False,
        labels=("eager", "sinter", "inductor"), autocast=None, log_path=None,
        engine=None, trace_dir=None):
    os.environ["SINTER_CACHE_DIR"] = cache
    rank, world = 0, 1
    if engine:  # launched by torchrun: one process per GPU
        import torch.distributed as dist
        dist.init_process_group("nccl")
        rank, world = dist.get_rank(), dist.get_world_size()
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        if rank:
            json_path = log_path = None
    import logging
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if log_path:  # every compile and cache hit, with its time
        handler = logging.FileHandler(log_path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logging.getLogger("sinter.torch").addHandler(handler)
        logging.getLogger("sinter.torch").setLevel(logging.INFO)
    import sinter.torch as st
    dev = torch.device("cuda")
    results = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
               "date": time.strftime("%Y-%m-%d"), "batch": batch, "seq": seq,
               "layers": layers,
               "dtype": "bf16 autocast" if autocast else "float32",
               "steps": steps, "engine": engine or "none", "gpus": world,
               "runs": {}}
    gen = torch.Generator(device=dev).manual_seed(1234)
    data = []
    for _ in range(4):  # the global batch; this rank's share of it
        x = torch.randint(0, 50257, (batch, seq + 1), generator=gen,
                          device=dev)
        x = x[rank * batch // world:(rank + 1) * batch // world]
        data.append((x[:, :-1].contiguous(), x[:, 1:].contiguous()))
    for label in labels:
        torch.manual_seed(0)
        model = wrap(GPT(layers=layers).to(dev), engine,
                     device_ids=[dev.index or torch.cuda.current_device()])
        graphed = label.endswith(GRAPH_SUFFIX)
        kind = label[:-len(GRAPH_SUFFIX)] if graphed else label
        uses_sinter = kind in ("sinter", "sinter-saved")
        opt = make_optimizer(model, uses_sinter, graphed)
        if uses_sinter:
            # sinter-saved: sinter.torch.compile, the compiled forward saved
            # by the first process and loaded by the next (no Dynamo trace,
            # no AOTAutograd): its second process's first step is the warm
            # start.
            step_model = st.compile(model) if kind == "sinter-saved" else \
                torch.compile(model, backend="sinter", dynamic=False)
        else:
            step_model = model if kind == "eager" else torch.compile(
                model, dynamic=False)
        # One step: train_step, or after the capture a GraphedStep.
        step = functools.partial(train_step, step_model, opt,
                                 autocast=autocast, graphed=graphed)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        losses, times = [], []
        capture_s = None
        side = torch.cuda.Stream() if graphed else None
        for s in range(steps):
            idx, targets = data[s % len(data)]
            t0 = time.time()
            if graphed and s == GRAPH_WARMUP:
                step = GraphedStep(step_model, opt, (idx, targets), autocast)
                capture_s = time.time() - t0
                t0 = time.time()
            if graphed and s < GRAPH_WARMUP:
                # (torch's recipe: the steps before the capture on a side
                # stream.)
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    loss = step(idx, targets)
                torch.cuda.current_stream().wait_stream(side)
            else:
                loss = step(idx, targets)
            times.append(time.time() - t0)
            if world > 1:  # the global batch's mean loss
                loss = loss.detach().clone()
                dist.all_reduce(loss)
                loss /= world
            losses.append(loss.item())
        steps_end = time.time()
        if profile:
            run_profile = top_kernels(step, data[0])
        if trace_dir:
            os.makedirs(trace_dir, exist_ok=True)
            trace_step(step, data[0],
                       os.path.join(trace_dir, "trace_%s.json" % label))
        warm = sorted(times[3:])
        ms = 1e3 * warm[len(warm) // 2]
        run = {"ms_per_step": ms, "tokens_per_s": batch * seq / ms * 1e3,
               # When the timed steps ran (wall clock, UTC): to read
               # nvidia-smi's clock samples of the same seconds.
               "steps_utc": [time.strftime("%H:%M:%S", time.gmtime(t))
                             for t in (steps_end - sum(times), steps_end)],
               "first_step_s": times[0],
               "peak_memory_GiB": torch.cuda.max_memory_allocated() / 2**30,
               "losses": losses}
        if capture_s is not None:
            run["capture_s"] = capture_s
        if profile:
            run["top_kernels"], run["gpu_busy_ms"] = run_profile
            print("    GPU busy %.2f ms of the step" % run["gpu_busy_ms"])
            for name, ms_k, calls in run["top_kernels"][:12]:
                print("    %8.2f ms %5d x  %s" % (ms_k, calls, name[:90]))
        results["runs"][label] = run
        print("%-14s %8.2f ms/step %9.0f tokens/s  first step %6.1f s  peak "
              "%5.1f GiB  loss %.4f -> %.4f" % (
                  label, ms, run["tokens_per_s"], times[0],
                  run["peak_memory_GiB"], losses[0], losses[-1]))
        del model, opt, step_model, step
        # (The model's parameters may sit in reference cycles: collected
        # now, they release what their compiled graphs held for them --
        # Sinter's next outputs -- before the next run's peak is taken.)
        gc.collect()
        torch.cuda.empty_cache()
        if json_path:  # after each run: a later one may not finish
            with open(json_path, "w") as f:
                json.dump(results, f, indent=1)
    if "eager" not in results["runs"]:
        return
    base = results["runs"]["eager"]["losses"]
    for label in results["runs"]:
        if label == "eager":
            continue
        diff = max(abs(a - b) for a, b in zip(base,
                                              results["runs"][label]["losses"]))
        print("%s loss differs from eager by at most %.2e" % (label, diff))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["aot", "run"])
    p.add_argument("cache")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--json")
    p.add_argument("--runs", default="eager,sinter,inductor",
                   help="which of eager, sinter, sinter-saved (sinter.torch."
                   "compile: run it twice, the second process loads what "
                   "the first saved), inductor to run, in order; any with "
                   "'%s': its whole step replayed as one CUDA graph, "
                   "captured after %d steps (capturable AdamW)" % (
                       GRAPH_SUFFIX, GRAPH_WARMUP))
    p.add_argument("--autocast", choices=["bf16"],
                   help="run the model under torch.autocast (bf16); "
                   "without it, f32")
    p.add_argument("--engine", choices=["ddp", "fsdp2"],
                   help="under torch's DistributedDataParallel or FSDP2, "
                   "launched with torchrun (--batch is the global batch)")
    p.add_argument("--compile-log", help="write sinter.torch's INFO log (each "
                   "partition compiled or loaded, with its time) to this file")
    p.add_argument("--profile", action="store_true",
                   help="after the timed steps, one step under "
                   "torch.profiler: the kernels that take the time")
    p.add_argument("--trace", metavar="DIR",
                   help="after the timed steps, one step traced (host and "
                   "GPU) into DIR/trace_<run>.json, with where the GPU "
                   "waited for the host (bench/step_gaps.py)")
    a = p.parse_args()
    cache = os.path.abspath(a.cache)
    if a.mode == "aot":
        aot(cache, a.batch, a.seq, a.layers, a.autocast)
    else:
        run(cache, a.batch, a.seq, a.layers, a.steps, a.json, a.profile,
            tuple(a.runs.split(",")), a.autocast, a.compile_log, a.engine,
            a.trace)


if __name__ == "__main__":
    main()
