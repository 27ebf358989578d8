// RUN: sinter-opt %sinter_src_root/examples/gpt_block_tosa.mlir --sinter-fusion-pipeline 2>/dev/null | FileCheck %s

// The TOSA form of the GPT-2 block goes through the upstream tosa-to-linalg
// passes first and fuses the same way; its additive mask argument becomes the
// attention's mask operand and the TOSA splat scale its `scale`.

// CHECK-LABEL: func.func @gpt_block
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<1x64x64xf32>
// CHECK-NOT: tosa.
// CHECK: sinter.layer_norm
// CHECK: sinter.attention {{.*}} mask(%[[MASK]] : tensor<1x64x64xf32>) {sinter.fusion
// CHECK: sinter.layer_norm
// CHECK-NOT: linalg.generic
// CHECK-NOT: sinter.attention
// CHECK: return
