#!/usr/bin/env python3
# Part of the Sinter project.
"""Attention forward beside the SDPA backends, in one process on the GPU.

    python3 test/Integration/GPU/gpu_checks.py build-bench-attention ART  # here
    python3 bench/bench_attention.py ART [--json F]                       # GPU

FLOPs = 4*B*H*S*S*D (halved when causal). Peers: SDPA's flash
(FlashAttention-2), cuDNN, memory-efficient and math backends, timed with
triton.testing.do_bench (median) on the same inputs, with the same variant
(dropout_p, or the same additive mask) as the case.
"""

import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Integration", "GPU"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import gpu_cases  # noqa: E402
import sinter.cuda as sc  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("artifacts")
    p.add_argument("--json", default=os.path.join(HERE, "results",
                                                  "attention.json"))
    p.add_argument("--only", help="regular expression: the cases to time")
    a = p.parse_args()
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)
    rows = []
    print("%s, torch %s, %s" % (torch.cuda.get_device_name(),
                                torch.__version__, time.strftime("%Y-%m-%d")))
    only = re.compile(a.only) if a.only else None
    for name, ir, make, ref, same in gpu_cases.attention_bench_cases():
        if only and not only.search(name):
            continue
        prog = sc.CudaProgram(os.path.join(a.artifacts, name))
        fn = prog["main"]
        ins = make(torch, dev, gen)
        q, k, v = ins[:3]
        # The training variants: an additive mask after k, v; dropout's
        # seed last (the peers draw their own masks: timed, not compared).
        mask = ins[3] if "_mask" in name else None
        dropout_p = 0.1 if "_dropout" in name else 0.0
        B, H, S, D = q.shape
        causal = "causal" in name
        flops = 4 * B * H * S * S * D / (2 if causal else 1)
        out = torch.empty_like(q)
        fn(*ins, out=out)
        err = float("nan")
        if not dropout_p:
            want = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                  is_causal=causal)
            err = (out.float() - want.float()).abs().max().item()
        cands = {"sinter": lambda: fn(*ins, out=out)}
        for label, bk in (("SDPA flash (FA2)", SDPBackend.FLASH_ATTENTION),
                          ("SDPA cuDNN", SDPBackend.CUDNN_ATTENTION),
                          ("SDPA efficient", SDPBackend.EFFICIENT_ATTENTION)):
            def run(bk=bk):
                with sdpa_kernel(bk):
                    return F.scaled_dot_product_attention(
                        q, k, v, attn_mask=mask, dropout_p=dropout_p,
                        is_causal=causal)
            cands[label] = run
        res, extra = {}, {}
        for label, f in cands.items():
            try:
                # Device memory a call needs beyond its inputs and output:
                # the peers' peak through torch's allocator; Sinter's is the
                # artifact's temporaries (its runtime allocates nothing
                # else), none for attention: O(S) = just the output.
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                base = torch.cuda.memory_allocated()
                r = f()
                torch.cuda.synchronize()
                extra[label] = torch.cuda.max_memory_allocated() - base
                if label != "sinter" and r is not None:
                    extra[label] -= r.numel() * r.element_size()
                del r
                res[label] = do_bench(f, warmup=25, rep=100,
                                      return_mode="median")
            except Exception as e:  # a backend may not support the shape
                print("  %s: %s" % (label, str(e)[:100]))
        manifest = json.load(open(os.path.join(a.artifacts, name,
                                               "manifest.json")))
        extra["sinter"] = sum(b.get("bytes", 0)
                              for fn_ in manifest.get("functions", [])
                              for b in fn_.get("temps", []))
        print("\n%s (max |sinter - SDPA| %.2e)" % (name, err))
        for label, ms in res.items():
            tf = flops / ms / 1e9
            rows.append({"case": name, "backend": label, "ms": ms,
                         "TFLOPs": tf, "extra_bytes": extra.get(label)})
            print("  %-18s %8.3f ms %7.1f TFLOP/s  sinter/peer %5.2fx"
                  "  extra memory %7.2f MB" % (
                      label, ms, tf, ms / res["sinter"],
                      extra.get(label, 0) / 1e6))
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
