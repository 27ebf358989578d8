// RUN: sinter-opt %s --sinter-raise-adamw --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-raise-adamw --split-input-file -mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// AdamW steps as torch-mlir emits torch.optim._functional.adamw(foreach=False)
// with Python-float hyperparameters: one linalg.generic per aten op and the
// bias corrections folded into constants (written as exact f32 hex).
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// Two parameters with the same hyperparameters: one multi-tensor op; lr and
// the step are recovered from the folded constants and materialised.
// CHECK-LABEL: func.func @two_params(
// CHECK-SAME: %[[P0:[^:]*]]: tensor<64xf32>, %[[P1:[^:]*]]: tensor<32x64xf32>, %[[G0:[^:]*]]: tensor<64xf32>, %[[G1:[^:]*]]: tensor<32x64xf32>, %[[M0:[^:]*]]: tensor<64xf32>, %[[M1:[^:]*]]: tensor<32x64xf32>, %[[V0:[^:]*]]: tensor<64xf32>, %[[V1:[^:]*]]: tensor<32x64xf32>)
// CHECK-DAG: %[[LR:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-DAG: %[[T:.*]] = arith.constant 7.000000e+00 : f32
// CHECK: %[[R:.*]]:6 = sinter.adamw params(%[[P0]], %[[P1]] : {{.*}}) grads(%[[G0]], %[[G1]] : {{.*}}) exp_avgs(%[[M0]], %[[M1]] : {{.*}}) exp_avg_sqs(%[[V0]], %[[V1]] : {{.*}}) lr(%[[LR]]) step(%[[T]]) {beta2 = 0.97999999999999998 : f64, eps = 9.9999999999999995E-7 : f64, sinter.fusion = [{bytes_avoided = 42240 : i64, pattern = "adamw"}], weight_decay = 5.000000e-02 : f64}
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[R]]#4, %[[R]]#5
// REMARK: remark: fused adamw: 42240 bytes
func.func @two_params(%p0: tensor<64xf32>,
    %p1: tensor<32x64xf32>,
    %g0: tensor<64xf32>,
    %g1: tensor<32x64xf32>,
    %m0: tensor<64xf32>,
    %m1: tensor<32x64xf32>,
    %v0: tensor<64xf32>,
    %v1: tensor<32x64xf32>)
    -> (tensor<64xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x64xf32>) {
  %e_32x64 = tensor.empty() : tensor<32x64xf32>
  %e_64 = tensor.empty() : tensor<64xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFCB9 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7AE148 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3CA3D70A : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %sd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3EB9EE2C : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x358637BD : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBAFB3D1A : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p1 : tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFCB9 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m1, %g1 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<32x64xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7AE148 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %vn1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vb1, %g1 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3CA3D70A : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<32x64xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vn1 : tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %sd1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sq1 : tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3EB9EE2C : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %den1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sd1 : tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x358637BD : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn1 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pd1, %mn1, %den1 : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>) outs(%e_32x64 : tensor<32x64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBAFB3D1A : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<32x64xf32>
  return %pn0, %pn1, %mn0, %mn1, %vn0, %vn1 : tensor<64xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x64xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
// Coefficient form of the first moment (mul_(beta1).add_(g, alpha=1-beta1)),
// no weight decay (the parameter is multiplied by 1), first step.
// CHECK-LABEL: func.func @plain_adam_first_step(
// CHECK-DAG: %[[LR:.*]] = arith.constant 3.000000e-04 : f32
// CHECK-DAG: %[[T:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: sinter.adamw {{.*}} lr(%[[LR]]) step(%[[T]]) {beta1 = 8.000000e-01 : f64, sinter.fusion = {{.*}}, weight_decay = 0.000000e+00 : f64}
// CHECK-NOT: linalg.generic
func.func @plain_adam_first_step(%p0: tensor<128xf32>,
    %g0: tensor<128xf32>,
    %m0: tensor<128xf32>,
    %v0: tensor<128xf32>)
    -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
  %e_128 = tensor.empty() : tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
  %mb0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%m0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F4CCCCD : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %mn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%mb0, %g0 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3E4CCCCD : f32
    %0 = arith.mulf %gr, %c : f32
    %1 = arith.addf %mm, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FBE77 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3A83126F : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3D0186E2 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBAC49BA6 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  return %pn0, %mn0, %vn0 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
// Different betas across parameters: two groups, two ops.
// CHECK-LABEL: func.func @two_groups(
// CHECK: %[[A:.*]]:3 = sinter.adamw params(%{{.*}} : tensor<16xf32>)
// CHECK-NOT: beta2
// CHECK: %[[B:.*]]:6 = sinter.adamw params(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>)
// CHECK-SAME: beta2 = 0.94999999999999996
// CHECK-NOT: linalg.generic
// CHECK: return %[[B]]#0, %[[A]]#0, %[[B]]#1, %[[B]]#2, %[[A]]#1, %[[B]]#3, %[[B]]#4, %[[A]]#2, %[[B]]#5
func.func @two_groups(%p0: tensor<16xf32>,
    %p1: tensor<16xf32>,
    %p2: tensor<16xf32>,
    %g0: tensor<16xf32>,
    %g1: tensor<16xf32>,
    %g2: tensor<16xf32>,
    %m0: tensor<16xf32>,
    %m1: tensor<16xf32>,
    %m2: tensor<16xf32>,
    %v0: tensor<16xf32>,
    %v1: tensor<16xf32>,
    %v2: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e_16 = tensor.empty() : tensor<16xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m0, %g0 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v0 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn0 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %sd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq0 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7F3DB5 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA1D4A63 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p1 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m1, %g1 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v1 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FBE77 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %vn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb1, %g1 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3A83126F : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn1 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %sd1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq1 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3E9DFB46 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %den1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd1 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd1, %mn1, %den1 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA1D4A63 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p2 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m2, %g2 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v2 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %vn2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb2, %g2 : tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn2 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %sd2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq2 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7F3DB5 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %den2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd2 : tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn2 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd2, %mn2, %den2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e_16 : tensor<16xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA1D4A63 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16xf32>
  return %pn0, %pn1, %pn2, %mn0, %mn1, %mn2, %vn0, %vn1, %vn2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Step computed at run time (a 0-d step tensor): the bias corrections
// 1 - beta^step are computed once in 0-d generics shared by all parameters;
// the op reads the step and the shared computations disappear.
// CHECK-LABEL: func.func @runtime_step(
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<f32>)
// CHECK-DAG: %[[LR:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-DAG: %[[T:.*]] = tensor.extract %[[STEP]][] : tensor<f32>
// CHECK: %[[R:.*]]:6 = sinter.adamw params({{.*}} : tensor<64xf32>, tensor<32xf32>) {{.*}} lr(%[[LR]]) step(%[[T]]) {sinter.fusion = {{.*}}}{{$}}
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0
#s = affine_map<() -> ()>
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
func.func @runtime_step(%p0: tensor<64xf32>, %p1: tensor<32xf32>, %g0: tensor<64xf32>, %g1: tensor<32xf32>,
    %m0: tensor<64xf32>, %m1: tensor<32xf32>, %v0: tensor<64xf32>, %v1: tensor<32xf32>, %step: tensor<f32>)
    -> (tensor<64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<32xf32>) {
  %es = tensor.empty() : tensor<f32>
  %ss = linalg.generic {indexing_maps = [#s, #s], iterator_types = []} ins(%step : tensor<f32>) outs(%es : tensor<f32>) {
  ^bb0(%t: f32, %o: f32):
    %b1 = arith.constant 0.899999976 : f32
    %one = arith.constant 1.000000e+00 : f32
    %lr = arith.constant 1.000000e-03 : f32
    %0 = math.powf %b1, %t : f32
    %1 = arith.subf %one, %0 : f32
    %2 = arith.divf %lr, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<f32>
  %bc2s = linalg.generic {indexing_maps = [#s, #s], iterator_types = []} ins(%step : tensor<f32>) outs(%es : tensor<f32>) {
  ^bb0(%t: f32, %o: f32):
    %b2 = arith.constant 0.999000012 : f32
    %one = arith.constant 1.000000e+00 : f32
    %0 = math.powf %b2, %t : f32
    %1 = arith.subf %one, %0 : f32
    %2 = math.sqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<f32>
  %e0 = tensor.empty() : tensor<64xf32>
  %pd0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p0 : tensor<64xf32>) outs(%e0 : tensor<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %c = arith.constant 0.999989986 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %mn0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e0 : tensor<64xf32>) {
  ^bb0(%mm: f32, %gg: f32, %o: f32):
    %b = arith.constant 0.899999976 : f32
    %c = arith.constant 0.100000001 : f32
    %0 = arith.mulf %mm, %b : f32
    %1 = arith.mulf %gg, %c : f32
    %2 = arith.addf %0, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  %vn0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%v0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e0 : tensor<64xf32>) {
  ^bb0(%vv: f32, %gg: f32, %o: f32):
    %b = arith.constant 0.999000012 : f32
    %c = arith.constant 0.00100000005 : f32
    %0 = arith.mulf %vv, %b : f32
    %1 = arith.mulf %gg, %gg : f32
    %2 = arith.mulf %1, %c : f32
    %3 = arith.addf %0, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<64xf32>
  %pn0 = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #id], iterator_types = ["parallel"]} ins(%pd0, %mn0, %vn0, %ss, %bc2s : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>) outs(%e0 : tensor<64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %vv: f32, %s: f32, %bc: f32, %o: f32):
    %eps = arith.constant 9.99999993E-9 : f32
    %0 = math.sqrt %vv : f32
    %1 = arith.divf %0, %bc : f32
    %2 = arith.addf %1, %eps : f32
    %3 = arith.divf %mm, %2 : f32
    %4 = arith.mulf %s, %3 : f32
    %5 = arith.subf %pp, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %pd1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p1 : tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %c = arith.constant 0.999989986 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32xf32>
  %mn1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m1, %g1 : tensor<32xf32>, tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%mm: f32, %gg: f32, %o: f32):
    %b = arith.constant 0.899999976 : f32
    %c = arith.constant 0.100000001 : f32
    %0 = arith.mulf %mm, %b : f32
    %1 = arith.mulf %gg, %c : f32
    %2 = arith.addf %0, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<32xf32>
  %vn1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%v1, %g1 : tensor<32xf32>, tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%vv: f32, %gg: f32, %o: f32):
    %b = arith.constant 0.999000012 : f32
    %c = arith.constant 0.00100000005 : f32
    %0 = arith.mulf %vv, %b : f32
    %1 = arith.mulf %gg, %gg : f32
    %2 = arith.mulf %1, %c : f32
    %3 = arith.addf %0, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<32xf32>
  %pn1 = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #id], iterator_types = ["parallel"]} ins(%pd1, %mn1, %vn1, %ss, %bc2s : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<f32>, tensor<f32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%pp: f32, %mm: f32, %vv: f32, %s: f32, %bc: f32, %o: f32):
    %eps = arith.constant 9.99999993E-9 : f32
    %0 = math.sqrt %vv : f32
    %1 = arith.divf %0, %bc : f32
    %2 = arith.addf %1, %eps : f32
    %3 = arith.divf %mm, %2 : f32
    %4 = arith.mulf %s, %3 : f32
    %5 = arith.subf %pp, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32xf32>
  return %pn0, %pn1, %mn0, %mn1, %vn0, %vn1 : tensor<64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<32xf32>
}

// -----

// arith ops on tensors with splat constants; decay as p - lr * wd * p.
// CHECK-LABEL: func.func @tensor_arith_form(
// CHECK-DAG: arith.constant 2.000000e-03 : f32
// CHECK-DAG: arith.constant 5.000000e+00 : f32
// CHECK: %[[R:.*]]:3 = sinter.adamw {{.*}} {beta2 = 0.98999999999999999 : f64, eps = 9.9999999999999995E-8 : f64, sinter.fusion = {{.*}}, weight_decay = 2.000000e-02 : f64}
// CHECK-NOT: arith.mulf
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @tensor_arith_form(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %lrwd = arith.constant dense<0x3827C5AC> : tensor<8xf32>
  %b1 = arith.constant dense<0x3F666666> : tensor<8xf32>
  %c1 = arith.constant dense<0x3DCCCCCD> : tensor<8xf32>
  %b2 = arith.constant dense<0x3F7D70A4> : tensor<8xf32>
  %c2 = arith.constant dense<0x3C23D70A> : tensor<8xf32>
  %bc2s = arith.constant dense<0x3E62B1F0> : tensor<8xf32>
  %eps = arith.constant dense<0x33D6BF95> : tensor<8xf32>
  %ss = arith.constant dense<0x3BA00901> : tensor<8xf32>
  %decay = arith.mulf %lrwd, %p : tensor<8xf32>
  %pd = arith.subf %p, %decay : tensor<8xf32>
  %m1 = arith.mulf %m, %b1 : tensor<8xf32>
  %m2 = arith.mulf %g, %c1 : tensor<8xf32>
  %mn = arith.addf %m1, %m2 : tensor<8xf32>
  %v1 = arith.mulf %v, %b2 : tensor<8xf32>
  %gg = arith.mulf %g, %g : tensor<8xf32>
  %v2 = arith.mulf %gg, %c2 : tensor<8xf32>
  %vn = arith.addf %v1, %v2 : tensor<8xf32>
  %sq = math.sqrt %vn : tensor<8xf32>
  %sd = arith.divf %sq, %bc2s : tensor<8xf32>
  %den = arith.addf %sd, %eps : tensor<8xf32>
  %mh = arith.mulf %ss, %mn : tensor<8xf32>
  %upd = arith.divf %mh, %den : tensor<8xf32>
  %pn = arith.subf %pd, %upd : tensor<8xf32>
  return %pn, %mn, %vn : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
