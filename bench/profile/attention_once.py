# Part of the Sinter project.
"""Run one compiled attention artifact (B2 H16 S4096 D128 bf16) a few times,
for ncu/nsys: python3 bench/profile/attention_once.py ARTIFACT_DIR"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import torch  # noqa: E402
import sinter.cuda as sc  # noqa: E402

fn = sc.CudaProgram(sys.argv[1])["main"]
q, k, v = (torch.randn(2, 16, 4096, 128, device="cuda").bfloat16()
           for _ in range(3))
o = torch.empty_like(q)
for _ in range(3):
    fn(q, k, v, out=o)
torch.cuda.synchronize()
