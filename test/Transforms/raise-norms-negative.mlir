// RUN: sinter-opt %s --sinter-raise-norms --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s

// Must-not-fuse cases for sinter-raise-norms: each leaves the decomposition
// (or the part of it that is not a norm) as upstream linalg and explains why
// in a near-miss remark.

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#wmap = affine_map<(d0, d1) -> (d0, d1)>
// Epsilon added to the standard deviation, not to the variance.
// CHECK-LABEL: func.func @eps_after_sqrt
// CHECK-NOT: sinter.
// CHECK: math.sqrt
// CHECK: return
func.func @eps_after_sqrt(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %nm = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %nm : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%xc : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vsum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  // expected-remark @below {{not fused as norm: epsilon is added after the square root}}
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%xc, %var : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = math.sqrt %v : f32
    %1 = arith.addf %0, %eps : f32
    %2 = arith.divf %in, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#wmap = affine_map<(d0, d1) -> (d0, d1)>
// The variance is also returned: sinter.layer_norm cannot produce it.
// CHECK-LABEL: func.func @var_has_other_user
// CHECK-NOT: sinter.
// CHECK: math.rsqrt
// CHECK: return
func.func @var_has_other_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %nm = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %nm : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%xc : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vsum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  // expected-remark @below {{an intermediate of the decomposition has a user outside it}}
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%xc, %var : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.rsqrt %0 : f32
    %2 = arith.mulf %in, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  return %y, %var : tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#wmap = affine_map<(d0, d1) -> (d0, d1)>
// The mean divides by 7 while 8 elements are reduced.
// CHECK-LABEL: func.func @wrong_divisor
// CHECK-NOT: sinter.
// CHECK: return
func.func @wrong_divisor(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %nm = arith.constant 7.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %nm : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%xc : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vsum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  // expected-remark @below {{the sum is divided by 7, not by the reduced size 8}}
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%xc, %var : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.rsqrt %0 : f32
    %2 = arith.mulf %in, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#wmap = affine_map<(d0, d1) -> (d0, d1)>
// A full-size multiplier is not a weight: the norm is raised without it
// and the multiply stays.
// CHECK-LABEL: func.func @weight_wrong_shape(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<4x8xf32>)
// CHECK: %[[N:.*]] = sinter.layer_norm %[[X]] {sinter.fusion
// CHECK: linalg.generic {{.*}} ins(%[[N]], %[[W]]
// CHECK: arith.mulf
func.func @weight_wrong_shape(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %nm = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %nm : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%xc : tensor<4x8xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vsum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  // expected-remark @below {{fused layer_norm}}
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%xc, %var : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.rsqrt %0 : f32
    %2 = arith.mulf %in, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  // expected-remark @below {{the normalized value is multiplied by a tensor that is not a weight of the normalized shape}}
  %yw = linalg.generic {indexing_maps = [#id, #wmap, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %ww: f32, %o: f32):
    %0 = arith.mulf %in, %ww : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %yw : tensor<4x8xf32>
}

// -----

// Reduction over the leading axis (a "norm" over rows of a column): not a
// trailing-dims norm.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>
#r = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @non_trailing_axis
// CHECK-NOT: sinter.
// CHECK: return
func.func @non_trailing_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 4.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<1x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<1x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<1x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #col, #col], iterator_types = ["reduction", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<1x8xf32>) outs(%z : tensor<1x8xf32>) {
  ^bb0(%in: f32, %s: f32, %acc: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    %2 = arith.mulf %1, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<1x8xf32>
  // expected-remark @below {{not fused as norm: the reduction is over a non-trailing axis}}
  %y = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %vsum : tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %s: f32, %vs: f32, %o: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    %2 = arith.divf %vs, %n : f32
    %3 = arith.addf %2, %eps : f32
    %4 = math.rsqrt %3 : f32
    %5 = arith.mulf %1, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
