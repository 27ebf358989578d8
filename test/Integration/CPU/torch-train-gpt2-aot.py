# bench/train_gpt2.py's ahead-of-time step at a small size: the project's
# GPT-2 (1 layer, B1 T64) runs one training step on the CPU while every
# partition of its forward and backward graphs is compiled for sm_90a into
# the cache (no GPU needed). No partition may fall back to torch, and each
# LayerNorm reaches the norm ops in both directions.
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t.cache %t.dump
# RUN: env SINTER_TORCH_DUMP=%t.dump %python %sinter_src_root/bench/train_gpt2.py aot %t.cache --layers 1 --batch 1 --seq 64 2>&1 | FileCheck %s
# RUN: %python %s join '%t.dump/forward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=FWD
# RUN: %python %s join '%t.dump/backward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=BWD
# CHECK-NOT: runs in torch (
# CHECK: forward graph {{[0-9]+}}: ops run by torch: sinter.attention_forward.default
# CHECK: compiled ahead of time for cuda:sm_90a
# CHECK-NOT: runs in torch (
# CHECK: aot: compiled for cuda:sm_90a
# FWD-COUNT-3: remark: fused layer_norm:
# BWD-COUNT-3: remark: fused layer_norm_backward:

# `join PATTERN`: the dumped partitions, one split of -split-input-file each.
import glob  # noqa: E402
import sys  # noqa: E402

if len(sys.argv) == 3 and sys.argv[1] == "join":
    sys.stdout.write("\n// -----\n".join(
        open(f).read() for f in sorted(glob.glob(sys.argv[2]))))
