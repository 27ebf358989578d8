// RUN: sinter-opt %sinter_src_root/examples/gpt_block_tosa.mlir \
// RUN:   --tosa-to-linalg-pipeline --tosa-to-tensor --tosa-to-arith \
// RUN:   --canonicalize --cse --sinter-raise-norms --sinter-fuse-elementwise \
// RUN:   2>/dev/null | FileCheck %s

// The TOSA GPT-2 block (examples/gpt_block_tosa.mlir) after the upstream
// TOSA lowering: both LayerNorms are raised, each matmul's bias add becomes a
// sinter.fused (with the residual add where one follows), the MLP's bias add
// and tanh-GELU are one sinter.fused, and no elementwise linalg.generic is
// left. (Attention is raised by sinter-raise-attention, not run here; its
// elementwise pieces become sinter.fused ops between the reductions.)

// CHECK-LABEL: func.func @gpt_block(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x64x128xf32>
// CHECK-NOT: linalg.generic
// CHECK: sinter.layer_norm %[[X]] weight(
// CHECK: linalg.batch_matmul
// CHECK: sinter.fused
// CHECK: %[[X1:.*]] = sinter.fused ins({{.*}}%[[X]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: sinter.yield
// CHECK: sinter.layer_norm %[[X1]] weight(
// CHECK: linalg.batch_matmul
// CHECK: sinter.fused
// CHECK: math.tanh
// CHECK: linalg.batch_matmul
// CHECK: %[[OUT:.*]] = sinter.fused ins({{.*}}%[[X1]] :
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
