// RUN: sinter-opt %s --sinter-raise-adamw --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s

// Must-not-fuse cases for sinter-raise-adamw.

#id1 = affine_map<(d0) -> (d0)>
// eps inside the square root is another optimizer (not AdamW's denominator).
// CHECK-LABEL: func.func @eps_inside_sqrt(
// CHECK-NOT: sinter.adamw
// CHECK: math.sqrt
func.func @eps_inside_sqrt(%p0: tensor<64xf32>,
    %g0: tensor<64xf32>,
    %m0: tensor<64xf32>,
    %v0: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e_64 = tensor.empty() : tensor<64xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFF58 : f32
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
    %c = arith.constant 0x3F7FBE77 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3A83126F : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  // (exp_avg_sq / bias_correction2 + eps).sqrt(): eps inside the root
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3B446955 : f32
    %e = arith.constant 0x322BCC77 : f32
    %0 = arith.divf %in, %c : f32
    %1 = arith.addf %0, %e : f32
    %2 = math.sqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  // expected-remark @below {{not fused as adamw: eps is added inside the square root}}
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBB71D48C : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  return %pn0, %mn0, %vn0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
// beta2 * v is also returned: the op has no result for it.
// CHECK-LABEL: func.func @moment_intermediate_escapes(
// CHECK-NOT: sinter.adamw
// CHECK: return
func.func @moment_intermediate_escapes(%p0: tensor<64xf32>,
    %g0: tensor<64xf32>,
    %m0: tensor<64xf32>,
    %v0: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e_64 = tensor.empty() : tensor<64xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFF58 : f32
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
    %c = arith.constant 0x3F7FBE77 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3A83126F : f32
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
    %c = arith.constant 0x3D603C29 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  // expected-remark @below {{not fused as adamw: an intermediate of the update (a moment or the denominator) has a user sinter.adamw cannot express}}
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBB71D48C : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  return %pn0, %mn0, %vn0, %vb0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
// The bias corrections were computed for step 2.5: no integer step matches.
// CHECK-LABEL: func.func @bias_correction_not_a_step(
// CHECK-NOT: sinter.adamw
// CHECK: return
func.func @bias_correction_not_a_step(%p0: tensor<64xf32>,
    %g0: tensor<64xf32>,
    %m0: tensor<64xf32>,
    %v0: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e_64 = tensor.empty() : tensor<64xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFF58 : f32
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
    %c = arith.constant 0x3F7FBE77 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3A83126F : f32
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
    %c = arith.constant 0x3D4CB924 : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  // expected-remark @below {{not fused as adamw: the bias corrections do not come from an integer step}}
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e_64 : tensor<64xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBB8D817A : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<64xf32>
  return %pn0, %mn0, %vn0 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
