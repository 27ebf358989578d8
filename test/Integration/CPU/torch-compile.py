# torch.compile(model, backend="sinter") on the CPU: an MLP and a GPT-2
# (Hugging Face, 2 layers, SDPA) trained for a few steps beside eager torch
# with torch.optim.AdamW, from one seed; the partitions the backend makes
# and the operators it leaves to torch; a new shape compiles again; a
# second process starts from the on-disk cache without compiling, and
# without AOTAutograd (the graph cache, _graph_cache.py).
#
# REQUIRES: torch, torch_mlir, transformers
# RUN: rm -rf %t.cache
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s 2>&1 | FileCheck %s
# RUN: rm -rf %t.warmdump
# RUN: env SINTER_CACHE_DIR=%t.cache SINTER_TORCH_DUMP=%t.warmdump %python %s 2>&1 | FileCheck %s --check-prefix=WARM
# RUN: %python -c "import glob, sys; sys.exit(1 if glob.glob('%t.warmdump/*.mlir') else 0)"
# CHECK-NOT: FAIL
# The warm run loads every Sinter program from the cache, and what
# AOTAutograd made of each Dynamo graph from the graph cache:
# WARM-NOT: compiled for cpu in
# WARM: from the cache
# WARM: Dynamo's graph loaded from {{.*}}graph-{{[0-9a-f]+}}.aot in {{.*}} (AOTAutograd skipped)
# WARM-NOT: compiled for cpu in
# WARM: ALL PASSED
# and imports none with torch-mlir (the dump holds no imported IR; the
# programs' lookup by FX graph, without the graph cache: torch-aot.py).

import copy
import os
import sys

import torch

import sinter.torch as st


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402

lines = refs.LogLines(echo=True).__enter__()  # for the whole run


def check(name, ok, detail):
    print("%s: %s (%s)" % (name, "ok" if ok else "FAIL", detail))
    if not ok:
        sys.exit(1)


def train(model, opt, batches, loss_fn):
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def compare(name, make, batches, loss_fn, opt_sinter, tol):
    torch.manual_seed(0)
    ref = make()
    mine = make()
    mine.load_state_dict(ref.state_dict())
    losses_ref = train(ref, torch.optim.AdamW(ref.parameters(), lr=1e-3),
                       batches, loss_fn)
    compiled = torch.compile(mine, backend="sinter")
    opt = (st.AdamW if opt_sinter else torch.optim.AdamW)(
        mine.parameters(), lr=1e-3)
    losses = train(compiled, opt, batches, loss_fn)
    worst = max(abs(a - b) / abs(a) for a, b in zip(losses_ref, losses))
    check(name + " losses", worst <= tol,
          "eager %s, sinter %s" % (["%.6f" % v for v in losses_ref],
                                   ["%.6f" % v for v in losses]))
    # AdamW's first updates are about lr * sign(g) per element: where a
    # gradient is near zero its update turns on the last bits of f32 sums,
    # whose order differs between eager's BLAS (which picks kernels by the
    # CPU's instruction set) and Sinter's kernels. So parameters may differ
    # by a few percent of lr per step at such elements; a wrong gradient
    # moves most of them by up to 2 lr per step.
    bound = 0.05 * 1e-3 * len(batches)
    err = max((p - q).abs().max().item() for p, q in
              zip(ref.parameters(), mine.parameters()))
    check(name + " parameters", err <= bound,
          "max err %.3g, bound %.3g" % (err, bound))


# An MLP with a LayerNorm, Sinter's AdamW.
torch.manual_seed(1)
batches = [(torch.randn(32, 16), torch.randn(32, 4)) for _ in range(4)]
compare("mlp", lambda: torch.nn.Sequential(
    torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.LayerNorm(64),
    torch.nn.Linear(64, 4)), batches,
    lambda m, x, y: (m(x) - y).square().mean(), True, 1e-5)
# CHECK: sinter: forward graph {{[0-9]+}} fused_0 ({{[0-9]+}} ops) ready for cpu
# CHECK: mlp losses: ok
# Another batch size: with dynamic=False Dynamo makes a new graph, compiled
# again (left to Dynamo, the second shape would be dynamic: in torch).


def graphs_made():
    """AOTAutograd's graphs compiled (a forward and a backward line each)
    or loaded from the graph cache (one line for both), counted alike."""
    return sum(("compiling for input shapes" in line) +
               2 * ("Dynamo's graph loaded from" in line)
               for line in lines.lines)


before = graphs_made()
m = torch.compile(torch.nn.Linear(16, 4), backend="sinter", dynamic=False)
m(torch.randn(3, 16)).sum().backward()
m(torch.randn(5, 16)).sum().backward()
after = graphs_made()
check("new shape compiles again", after - before >= 4,
      "%d graphs for two shapes" % (after - before))
d = torch.compile(torch.nn.Linear(16, 4), backend="sinter")
d(torch.randn(3, 16))
d(torch.randn(5, 16))
check("dynamic shapes run in torch, said once per graph",
      any("its shapes are dynamic" in line for line in lines.lines), "")
# CHECK: dynamic shapes run in torch, said once per graph: ok

# GPT-2 with SDPA: attention goes to Sinter's attention custom op, whose
# backward is Sinter's; both are compiled inside the graphs' Sinter
# programs (custom calls), so the forward is one program; the embedding
# backward stays in torch.
import transformers  # noqa: E402

cfg = transformers.GPT2Config(n_layer=2, n_embd=128, n_head=4, vocab_size=500,
                              n_positions=64, resid_pdrop=0.0,
                              embd_pdrop=0.0, attn_pdrop=0.0)
torch.manual_seed(2)
ids = [torch.randint(0, 500, (2, 48)) for _ in range(3)]
compare("gpt2", lambda: transformers.AutoModelForCausalLM.from_config(
    copy.deepcopy(cfg), attn_implementation="sdpa"),
    [(i, i) for i in ids], lambda m, x, y: m(x, labels=y).loss, True, 1e-5)
# (The forward's programs compile in the background while the backward is
# traced: their lines come in either order.)
# CHECK-NOT: ops run by torch: sinter
# CHECK-DAG: forward graph [[FWD:[0-9]+]] fused_0 ({{[0-9]+}} ops, 2 sinter.attention_forward.default) ready for cpu
# CHECK-DAG: ops run by torch: aten.embedding_dense_backward.default{{$}}
# CHECK: 2 sinter.attention_backward.default) ready for cpu
# CHECK-NOT: forward graph [[FWD]] fused_1
fallbacks = [line for line in lines.lines
             if "runs in torch" in line and "fused_" in line]
check("no partition fell back to torch", not fallbacks, fallbacks)
print("ALL PASSED")
# CHECK: ALL PASSED
