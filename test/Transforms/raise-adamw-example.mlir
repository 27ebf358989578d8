// RUN: sinter-opt %sinter_src_root/examples/adamw_step.mlir --sinter-raise-adamw \
// RUN:   2>/dev/null | FileCheck %s

// examples/adamw_step.mlir: the 12 per-parameter updates of a GPT-2 block
// become two multi-tensor ops, one per hyperparameter group (the 2-D weights
// with weight decay 0.1, the biases and LayerNorm parameters without).

// CHECK-LABEL: func.func @adamw_step(
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[LR:.*]] = arith.constant 6.000000e-04 : f32
// CHECK-DAG: %[[T:.*]] = arith.constant 1.000000e+01 : f32
// CHECK: %[[D:.*]]:12 = sinter.adamw params({{.*}} : tensor<128x384xf32>, tensor<128x128xf32>, tensor<128x512xf32>, tensor<512x128xf32>) {{.*}} lr(%[[LR]]) step(%[[T]]) {beta2 = 0.94999999999999996 : f64, sinter.fusion = {{.*}}, weight_decay = 1.000000e-01 : f64}
// CHECK: %[[N:.*]]:24 = sinter.adamw params({{.*}} : tensor<128xf32>, tensor<128xf32>, tensor<384xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512xf32>, tensor<128xf32>) {{.*}} {beta2 = 0.94999999999999996 : f64, sinter.fusion = {{.*}}, weight_decay = 0.000000e+00 : f64}
// CHECK-NOT: linalg.generic
// CHECK: return %[[N]]#0, %[[N]]#1, %[[D]]#0, %[[N]]#2
