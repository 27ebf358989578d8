// RUN: sinter-opt %sinter_src_root/examples/gpt_block.mlir \
// RUN:   --sinter-raise-norms --sinter-fuse-elementwise 2>/dev/null | FileCheck %s

// examples/gpt_block.mlir (torch-mlir form) through the norm raising and the
// elementwise fusion alone: two sinter.layer_norm; the QKV bias add, the
// attention-projection bias + residual, the MLP bias + tanh-GELU and the
// last bias + residual each one sinter.fused (broadcast biases read through
// (d0, d1, d2) -> (d2)); the residual sum feeds the second norm. (Attention
// is left to sinter-raise-attention; its scale and softmax pieces become
// sinter.fused ops between the reductions, and the masked select over
// linalg.index stays a linalg.generic.)

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @gpt_block(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x64x128xf32>,
// CHECK: sinter.layer_norm %[[X]] weight(
// CHECK: linalg.matmul
// CHECK: sinter.fused ins(%{{.*}}, %{{.*}} : tensor<2x64x384xf32>, tensor<384xf32>) maps [#[[ID]], #[[CH]]]
// CHECK: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK: linalg.matmul
// CHECK: %[[X1:.*]] = sinter.fused ins(%{{.*}}, %{{.*}}, %[[X]] : tensor<2x64x128xf32>, tensor<128xf32>, tensor<2x64x128xf32>)
// CHECK: sinter.layer_norm %[[X1]] weight(
// CHECK: linalg.matmul
// CHECK: sinter.fused ins(%{{.*}}, %{{.*}} : tensor<2x64x512xf32>, tensor<512xf32>)
// CHECK: math.tanh
// CHECK: linalg.matmul
// CHECK: %[[OUT:.*]] = sinter.fused ins(%{{.*}}, %{{.*}}, %[[X1]] :
// CHECK: return %[[OUT]]
