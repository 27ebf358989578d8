# sinter.torch.compile on the CPU: the first process compiles a small
# GPT-style model's forward ahead of time (Dynamo, AOTAutograd and Sinter)
# and saves it; the next process loads it -- no Dynamo trace, no
# AOTAutograd, no import -- and trains to eager torch's losses. The saved
# file carries its programs (a fresh cache, cache-only, loads it); an edit
# of the model's source, another grad mode or a graph break each compile
# again, with a log line saying why; so does an attribute the forward reads
# (its guards fail), while a frozen parameter runs the same forward.
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t && mkdir -p %t/src
# RUN: %python %s write %t/src plain
# RUN: env SINTER_CACHE_DIR=%t/cache TORCHINDUCTOR_CACHE_DIR=%t/torch %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=COLD
# Nothing left in torch's own cache (AOTAutograd writes each ahead-of-time
# compile there, never read again):
# RUN: %python -c "import os, sys; d = '%t/torch/aotautograd'; sys.exit(1 if os.path.isdir(d) and os.listdir(d) else 0)"
# COLD: forward graph {{[0-9]+}}: compiling for input shapes
# COLD: Tiny.forward compiled in {{.*}}, saved to {{.*}}Tiny-{{[0-9a-f]+}}.pt2
# COLD: losses: ok
# COLD: Tiny.forward compiled in
# COLD: no_grad: ok
# COLD: Tiny.forward: the guards of its compiled forward fail on this call (L['self'].temperature == 1.0)
# COLD: Tiny.forward compiled in {{.*}}.1.pt2
# COLD-NOT: compiled in
# COLD: temperature: ok
# COLD: frozen: ok
#
# RUN: env SINTER_CACHE_DIR=%t/cache %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=WARM
# WARM-NOT: compiling for input shapes
# WARM: Tiny.forward loaded from
# WARM-NOT: compiling for input shapes
# WARM: losses: ok
# WARM: Tiny.forward loaded from
# WARM: no_grad: ok
# WARM: Tiny.forward: the guards of its compiled forward fail on this call
# WARM: Tiny.forward loaded from {{.*}}.1.pt2
# WARM: temperature: ok
# WARM: frozen: ok
#
# Only the saved files, a fresh and cache-only program cache:
# RUN: cp -r %t/cache/models %t/models
# RUN: env SINTER_CACHE_DIR=%t/fresh SINTER_TORCH_IMPORT=0 SAVED=%t/models %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=WARM
#
# Cache-only with neither the saved files nor the programs: the partitions
# run in torch (logged), and such a forward is not saved, or the next
# process would run them in torch too.
# RUN: env SINTER_CACHE_DIR=%t/empty SINTER_TORCH_IMPORT=0 SAVED=%t/unsaved %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=UNSAVED
# RUN: %python -c "import glob, sys; sys.exit(1 if glob.glob('%t/unsaved/*.pt2') else 0)"
# UNSAVED: runs in torch (
# UNSAVED: Tiny.forward compiled but not saved (some of its partitions run in torch
# UNSAVED-NOT: saved to
# UNSAVED: losses: ok
#
# The model's source edited: compiled again.
# RUN: %python %s write %t/src halved
# RUN: env SINTER_CACHE_DIR=%t/cache %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=EDITED
# EDITED: Tiny.forward: the source of tinymodel:{{[0-9]+}} changed since {{.*}} was saved; compiling again
# EDITED: Tiny.forward compiled in
# EDITED: losses: ok
#
# A graph break: torch.compile(backend="sinter") instead, logged.
# RUN: %python %s write %t/src graph_break
# RUN: env SINTER_CACHE_DIR=%t/cache %python %s train %t/src 2>&1 | FileCheck %s --check-prefix=BREAK
# BREAK: Tiny.forward does not compile as one graph ahead of time
# BREAK: losses: ok

import logging
import os
import sys

MODEL = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.ln = nn.LayerNorm(32)
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 100)
        self.temperature = 1.0

    def forward(self, idx, targets):
        x = self.ln(self.emb(idx))%s
        q, k, v = self.qkv(x).view(2, 16, 3, 2, 16).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).reshape(2, 16, 32)
        return F.cross_entropy(self.out(x + y).reshape(-1, 100)
                               / self.temperature, targets.reshape(-1))
'''
VARIANTS = {"plain": "", "halved": " * 0.5",
            "graph_break": "\n        print(float(x.sum()) != 0.0)"}

if sys.argv[1] == "write":
    with open(os.path.join(sys.argv[2], "tinymodel.py"), "w") as f:
        f.write(MODEL % VARIANTS[sys.argv[3]])
    sys.exit(0)

import torch  # noqa: E402

import sinter.torch as st  # noqa: E402

sys.path.insert(0, sys.argv[2])
import tinymodel  # noqa: E402

logging.basicConfig(level=logging.INFO, format="%(message)s",
                    stream=sys.stdout)


def batches():
    g = torch.Generator().manual_seed(3)
    return [(torch.randint(0, 100, (2, 16), generator=g),
             torch.randint(0, 100, (2, 16), generator=g)) for _ in range(3)]


def close(a, b):
    return all(abs(x - y) <= 1e-5 * abs(x) for x, y in zip(a, b))


torch.manual_seed(0)
ref, mine = tinymodel.Tiny(), tinymodel.Tiny()
mine.load_state_dict(ref.state_dict())
compiled = st.compile(mine, cache_dir=os.environ.get("SAVED"))
oa = torch.optim.AdamW(ref.parameters())
ob = torch.optim.AdamW(mine.parameters())
la, lb = [], []
for idx, tgt in batches():
    for m, o, ls in ((ref, oa, la), (compiled, ob, lb)):
        o.zero_grad()
        loss = m(idx, tgt)
        loss.backward()
        o.step()
        ls.append(loss.item())
ok = close(la, lb)
print("losses: %s (eager %s, sinter %s)" % ("ok" if ok else "FAIL", la, lb))
if "print(" in open(tinymodel.__file__).read():
    sys.exit(0 if ok else 1)
# Another grad mode is another signature: its own compiled forward.
with torch.no_grad():
    idx, tgt = batches()[0]
    a, b = ref(idx, tgt).item(), compiled(idx, tgt).item()
print("no_grad: %s (eager %s, sinter %s)" % (
    "ok" if close([a], [b]) else "FAIL", a, b))
# An attribute the forward reads, changed: the call looks the same, but
# the saved forward's guards fail (Dynamo specialized on its value); it is
# compiled again and saved beside the first (loaded, in the next process),
# and changed back, the first is used again.
for m in (ref, mine):
    m.temperature = 2.0
ta, tb = ref(idx, tgt).item(), compiled(idx, tgt).item()
hot = close([ta], [tb]) and abs(ta - a) > 1e-3
for m in (ref, mine):
    m.temperature = 1.0
ua, ub = ref(idx, tgt).item(), compiled(idx, tgt).item()
hot = hot and close([ua], [ub]) and abs(ua - ta) > 1e-3
print("temperature: %s (eager %s, sinter %s)" % ("ok" if hot else "FAIL",
                                                 ta, tb))
# A parameter frozen: the same compiled forward (AOTAutograd's autograd
# function leaves its gradient out).
for m in (ref, mine):
    m.qkv.weight.requires_grad_(False)
    m.zero_grad()
idx, tgt = batches()[1]
ra, rb = ref(idx, tgt), compiled(idx, tgt)
ra.backward()
rb.backward()
frozen = close([ra.item()], [rb.item()]) and mine.qkv.weight.grad is None \
    and torch.allclose(ref.out.weight.grad, mine.out.weight.grad, atol=1e-6)
print("frozen: %s" % ("ok" if frozen else "FAIL"))
sys.exit(0 if ok and close([a], [b]) and hot and frozen else 1)
