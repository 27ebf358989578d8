// RUN: sinter-opt %s --sinter-raise-norms --sinter-fuse-elementwise -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// The residual add feeding a LayerNorm (the pre-LN transformer's residual
// stream): sinter-raise-norms runs first and raises the norm with the
// residual sum as its input; sinter-fuse-elementwise then makes the add a
// separate sinter.fused before the norm (it is not folded into the norm as a
// prologue: the sum is needed anyway by the next residual add, and the norm
// reads it once). See the pass description.
// CHECK-LABEL: func.func @residual_then_norm(
// CHECK-SAME: %[[R:[^:]*]]: tensor<2x4x8xf32>, %[[A:[^:]*]]: tensor<2x4x8xf32>, %[[W:[^:]*]]: tensor<8xf32>, %[[B:[^:]*]]: tensor<8xf32>)
// CHECK: %[[H:.*]] = sinter.fused ins(%[[R]], %[[A]] :
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = sinter.layer_norm %[[H]] weight(%[[W]] : tensor<8xf32>) bias(%[[B]] : tensor<8xf32>)
// CHECK-NEXT: return %[[Y]], %[[H]]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#last = affine_map<(d0, d1, d2) -> (d2)>
func.func @residual_then_norm(%res: tensor<2x4x8xf32>, %a: tensor<2x4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %e0 = tensor.empty() : tensor<2x4x8xf32>
  %x = linalg.add ins(%res, %a : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%e0 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %e = tensor.empty() : tensor<2x4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%z : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xc : tensor<2x4x8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<2x4x8xf32>) outs(%z : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%vsum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.rsqrt %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xc, %rstd : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %r: f32, %o: f32):
    %0 = arith.mulf %in, %r : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %yw = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %w : tensor<2x4x8xf32>, tensor<8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %ww: f32, %o: f32):
    %0 = arith.mulf %in, %ww : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %yb = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%yw, %b : tensor<2x4x8xf32>, tensor<8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %0 = arith.addf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  return %yb, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
