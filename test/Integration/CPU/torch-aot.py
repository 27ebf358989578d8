# The torch.compile backend ahead of time, on the CPU: one process runs a
# step of a small GPT-style model with SINTER_TORCH_AOT=cpu (every
# partition compiled into the cache, indexed by its FX graph; the graphs
# run in torch); a second process, cache-only (SINTER_TORCH_IMPORT=0: no
# torch-mlir import, no compile), trains the model from that cache and
# matches eager torch. (A trace on meta tensors does not give the same
# graphs as one on a real device -- some decompositions depend on the
# device -- so the ahead-of-time step runs on real tensors.)
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t.cache
# RUN: env SINTER_CACHE_DIR=%t.cache SINTER_TORCH_AOT=cpu %python %s aot 2>&1 | FileCheck %s --check-prefix=AOT
# RUN: env SINTER_CACHE_DIR=%t.cache SINTER_TORCH_IMPORT=0 %python %s run 2>&1 | FileCheck %s --check-prefix=CACHED
# AOT: forward graph {{[0-9]+}} fused_0 compiled ahead of time for cpu
# AOT: backward graph {{[0-9]+}} fused_0 compiled ahead of time for cpu
# AOT: aot done
# CACHED-NOT: runs in torch (
# CACHED-NOT: compiled for cpu in
# CACHED: from the cache
# CACHED: losses: ok
# CACHED-NOT: runs in torch (
#
# The other way round (export.py): the cache-only process traces on its own
# device and, with SINTER_TORCH_EXPORT, writes the partitions it lacks;
# `python -m sinter.torch.export` compiles them into the cache under the
# keys that process looked up, and a third process finds them all.
# RUN: rm -rf %t.cache2 %t.export
# RUN: env SINTER_CACHE_DIR=%t.cache2 SINTER_TORCH_IMPORT=0 SINTER_TORCH_EXPORT=%t.export %python %s run 2>&1 | FileCheck %s --check-prefix=EXPORT
# RUN: env SINTER_CACHE_DIR=%t.cache2 %python -m sinter.torch.export %t.export 2>&1 | FileCheck %s --check-prefix=COMPILE
# RUN: env SINTER_CACHE_DIR=%t.cache2 SINTER_TORCH_IMPORT=0 %python %s run 2>&1 | FileCheck %s --check-prefix=CACHED
# EXPORT: forward graph {{[0-9]+}} fused_0 exported to {{.*}}.sinter-partition
# EXPORT: backward graph {{[0-9]+}} fused_0 exported to
# (Its graphs, partly in torch, are not put in the graph cache.)
# EXPORT: Dynamo's graph not saved: some of its partitions run in torch
# EXPORT-NOT: Dynamo's graph loaded
# EXPORT: losses: ok
# COMPILE: [[N:[0-9]+]] of [[N]] partitions compiled into

import logging
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import sinter.torch as st

logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.ln = nn.LayerNorm(32)
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 100)

    def forward(self, idx, targets):
        x = self.ln(self.emb(idx))
        q, k, v = self.qkv(x).view(2, 16, 3, 2, 16).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).reshape(2, 16, 32)
        return F.cross_entropy(self.out(x + y).reshape(-1, 100),
                               targets.reshape(-1))


def batches(device):
    g = torch.Generator().manual_seed(3)
    return [(torch.randint(0, 100, (2, 16), generator=g).to(device),
             torch.randint(0, 100, (2, 16), generator=g).to(device))
            for _ in range(3)]


if sys.argv[1] == "aot":
    model = Tiny()
    compiled = torch.compile(model, backend="sinter", dynamic=False)
    for idx, tgt in batches("cpu")[:1]:
        compiled(idx, tgt).backward()
    print("aot done")
else:
    torch.manual_seed(0)
    ref, mine = Tiny(), Tiny()
    mine.load_state_dict(ref.state_dict())
    compiled = torch.compile(mine, backend="sinter", dynamic=False)
    oa = torch.optim.AdamW(ref.parameters())
    ob = torch.optim.AdamW(mine.parameters())
    la, lb = [], []
    for idx, tgt in batches("cpu"):
        for m, o, ls in ((ref, oa, la), (compiled, ob, lb)):
            o.zero_grad()
            loss = m(idx, tgt)
            loss.backward()
            o.step()
            ls.append(loss.item())
    ok = all(abs(a - b) <= 1e-5 * abs(a) for a, b in zip(la, lb))
    print("losses: %s (eager %s, sinter %s)" % ("ok" if ok else "FAIL", la,
                                                lb))
    sys.exit(0 if ok else 1)
