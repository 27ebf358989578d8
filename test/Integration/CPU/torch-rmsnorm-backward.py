# torch.compile(backend="sinter") of a model with an RMSNorm: trains three
# steps beside eager torch (losses and parameters agree), and the backward
# graph's partition raises RMSNorm's input gradient to
# sinter.rms_norm_backward. AOTAutograd saves rstd twice (as itself and as
# an alias): the backend reads both as one value, or the raising could not
# tell that rstd^3 is of the same rstd.
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t.cache %t.dump
# RUN: env SINTER_CACHE_DIR=%t.cache SINTER_TORCH_DUMP=%t.dump %python %s 2>&1 | FileCheck %s
# RUN: %python %s join '%t.dump/backward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=BWD
# RUN: %python %s join '%t.dump/forward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=FWD
# CHECK: losses: ok
# CHECK: parameters: ok
# FWD: remark: fused rms_norm:
# BWD: remark: fused rms_norm_backward:

import glob
import sys

if len(sys.argv) == 3 and sys.argv[1] == "join":
    sys.stdout.write("\n// -----\n".join(
        open(f).read() for f in sorted(glob.glob(sys.argv[2]))))
    sys.exit(0)

import torch  # noqa: E402

import sinter.torch  # noqa: E402,F401


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 64)
        self.n = torch.nn.RMSNorm(64)
        self.b = torch.nn.Linear(64, 4)

    def forward(self, x):
        return self.b(self.n(self.a(x)))


torch.manual_seed(0)
ref, mine = M(), M()
mine.load_state_dict(ref.state_dict())
compiled = torch.compile(mine, backend="sinter", dynamic=False)
opt_ref = torch.optim.AdamW(ref.parameters())
opt_mine = torch.optim.AdamW(mine.parameters())
x = torch.randn(8, 16)
la, lb = [], []
for _ in range(3):
    for m, o, ls in ((ref, opt_ref, la), (compiled, opt_mine, lb)):
        o.zero_grad()
        loss = m(x).square().mean()
        loss.backward()
        o.step()
        ls.append(loss.item())
ok = all(abs(a - b) <= 1e-5 * abs(a) for a, b in zip(la, lb))
print("losses: %s (%s, %s)" % ("ok" if ok else "FAIL", la, lb))
err = max((p - q).abs().max().item() for p, q in zip(ref.parameters(),
                                                     mine.parameters()))
print("parameters: %s (max err %.3g)" % ("ok" if err <= 1e-5 else "FAIL",
                                         err))
