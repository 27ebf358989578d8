# bench/train_gpt2.py's ahead-of-time step at a small size: the project's
# GPT-2 (1 layer, B1 T64) runs one training step on the CPU while every
# partition of its forward and backward graphs is compiled for sm_90a into
# the cache (no GPU needed). No partition may fall back to torch, each
# LayerNorm reaches the norm ops in both directions, and the attention
# custom ops reach sinter.attention and sinter.attention_backward inside
# the partitions.
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t.cache %t.dump
# RUN: env SINTER_TORCH_DUMP=%t.dump %python %sinter_src_root/bench/train_gpt2.py aot %t.cache --layers 1 --batch 1 --seq 64 2>&1 | FileCheck %s
# RUN: %python %s join '%t.dump/forward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=FWD
# RUN: %python %s join '%t.dump/backward_graph_*.mlir' | sinter-opt --sinter-fusion-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=BWD
# The forward is one program, attention inside it; the backward leaves
# only the embedding's backward to torch:
# CHECK-NOT: runs in torch (
# CHECK-NOT: ops run by torch: sinter
# CHECK: forward graph [[GRAPH:[0-9]+]] fused_0 compiled ahead of time for cuda:sm_90a
# CHECK-NOT: forward graph [[GRAPH]] fused_1
# CHECK: ops run by torch: aten.embedding_dense_backward.default{{$}}
# CHECK: compiled ahead of time for cuda:sm_90a
# CHECK-NOT: runs in torch (
# CHECK: aot: compiled for cuda:sm_90a
# FWD-COUNT-3: remark: fused layer_norm:
# BWD-COUNT-3: remark: fused layer_norm_backward:
# RUN: %python %s join '%t.dump/forward_graph_*.mlir' | FileCheck %s --check-prefix=FWDIR
# RUN: %python %s join '%t.dump/backward_graph_*.mlir' | FileCheck %s --check-prefix=BWDIR
# RUN: %python %s join '%t.dump/*_graph_*.mlir' | sinter-opt --sinter-raise-custom-calls -split-input-file | FileCheck %s --check-prefix=RAISED
# FWDIR: func.func private @sinter_call_0({{.*}}) -> (tensor<1x12x64x64xf32>, tensor<1x12x64xf32>) attributes {sinter.attributes = {causal}, sinter.call = "sinter.attention"}
# BWDIR: attributes {sinter.attributes = {causal}, sinter.call = "sinter.attention_backward"}
# (the backward's partitions come first in the join)
# RAISED: sinter.attention_backward {{.*}} {causal}
# RAISED: sinter.attention {{.*}} {causal}
# The logits are saved padded (python/sinter/torch/_padded_saves.py; f32
# here: 50257 -> 50260 columns) and read in place by both programs, as
# torch-mlir writes them: the weight is padded before its transpose
# (sinter-pad-matmuls), the cross-entropy's statistics and its target
# gather read the padded product, the backward's gradient pad reads what
# it receives; no kernel copies the logits out.
# DEFINE: %{outline} = builtin.module(func.func(sinter-pad-matmuls,sinter-online-logsumexp,sinter-tensor-ops-to-linalg{chip=sm_90a}),canonicalize,func.func(sinter-copy-aliased-results),sinter-outline-cuda-kernels{chip=sm_90a})
# RUN: sinter-opt %t.dump/forward_graph_0_fused_0.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --pass-pipeline='%{outline}' | FileCheck %s --check-prefix=FWDK
# RUN: sinter-opt %t.dump/backward_graph_1_fused_0.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --pass-pipeline='%{outline}' | FileCheck %s --check-prefix=BWDK
# FWDK-NOT: @extract_slice_{{.*}}64x50260
# FWDK: launch_func @sinter_kernels::@pad_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<50257x768xf32>, %{{.*}} : memref<50260x768xf32>)
# FWDK: launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}} : memref<50260x768xf32>, %{{.*}} : memref<64x50260xf32>) {{.*}}trans_b
# FWDK: launch_func @sinter_kernels::@reduce_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x50260xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64xf32>)
# FWDK: launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x1xi64>, %{{.*}} : memref<64x50260xf32>, %{{.*}} : memref<64x1xf32>)
# FWDK: return {{.*}}tensor<64x50260xf32>
# The statistics read the padded rows (50260 f32, whole 16-byte vectors)
# four floats a load (RowVectorReduction.cpp), the 50257th column alone.
# FWDK: gpu.func @reduce_{{[0-9]+}}(%{{.*}}: memref<64x50260xf32>, %{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>)
# FWDK: vector.load %{{.*}} : memref<3216640xf32>, vector<4xf32>
# FWDK: arith.addi %{{.*}}, %c50256
# FWDK: gpu.return
# BWDK: func.func @main(%{{[a-z0-9]+}}: tensor<64x50260xf32>
# BWDK-NOT: @extract_slice_{{.*}}64x50260
# BWDK: launch_func @sinter_kernels::@pad_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x1xi64>, %{{.*}} : memref<64x50260xf32>, {{.*}} : memref<64x50260xf32>)

# `join PATTERN`: the dumped partitions, one split of -split-input-file each.
import glob  # noqa: E402
import sys  # noqa: E402

if len(sys.argv) == 3 and sys.argv[1] == "join":
    sys.stdout.write("\n// -----\n".join(
        open(f).read() for f in sorted(glob.glob(sys.argv[2]))))
