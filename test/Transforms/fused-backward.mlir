// The backward of a sinter.fused chain (buildFusedBackward through the test
// pass): the forward recomputed in the backward body, the adjoints in f32,
// an identity-mapped input's gradient rounded to its type in the body, a
// broadcast bias's gradient summed over the rows after it, dropout of the
// gradient with the forward's seed, and an error for an op without a rule.
// RUN: sinter-opt %s -split-input-file -sinter-test-fused-backward -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @gelu_bias_backward
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xbf16>, %[[B:.*]]: tensor<64xbf16>, %[[SEED:.*]]: i64, %[[DY:.*]]: tensor<16x64xbf16>) -> (tensor<16x64xbf16>, tensor<64xbf16>)
// CHECK: %[[G:.*]]:2 = sinter.fused ins(%[[X]], %[[B]], %[[SEED]], %[[DY]] : tensor<16x64xbf16>, tensor<64xbf16>, i64, tensor<16x64xbf16>)
// CHECK: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %[[S:.*]]: i64, %[[DYV:.*]]: bf16):
// CHECK:   %[[T:.*]] = math.tanh
// CHECK:   %[[D:.*]] = arith.extf %[[DYV]] : bf16 to f32
// CHECK:   %[[DD:.*]] = sinter.dropout %[[D]], %[[S]] p = 1.000000e-01 : f32
// CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[TT:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK:   %[[DT:.*]] = arith.subf %[[ONE]], %[[TT]] : f32
// CHECK:   %[[DS:.*]] = arith.mulf %[[DD]], %[[DT]] : f32
// CHECK:   %[[DX:.*]] = arith.truncf %[[DS]] : f32 to bf16
// CHECK:   sinter.yield %[[DX]], %[[DS]] : bf16, f32
// CHECK: } -> tensor<16x64xbf16>, tensor<16x64xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%[[G]]#1 : tensor<16x64xf32>)
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<64xf32>) outs(%{{.*}} : tensor<64xbf16>)
// CHECK: return %[[G]]#0, %[[DB]] : tensor<16x64xbf16>, tensor<64xbf16>
func.func @gelu_bias(%x: tensor<16x64xbf16>, %b: tensor<64xbf16>, %seed: i64) -> tensor<16x64xbf16> {
  %y = sinter.fused ins(%x, %b, %seed : tensor<16x64xbf16>, tensor<64xbf16>, i64)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%xv: bf16, %bv: bf16, %s: i64):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %bv : bf16 to f32
    %sum = arith.addf %a, %c : f32
    %g = math.tanh %sum : f32
    %d = sinter.dropout %g, %s p = 0.1 : f32
    %r = arith.truncf %d : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// A transposed input's gradient is written through its map; a (0, d1)
// input of shape 1x8 is summed over the rows and reshaped to 1x8.
// CHECK-LABEL: func.func @maps_backward
// CHECK: %[[G:.*]]:3 = sinter.fused
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[TR:.*]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]]#1 : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%[[G]]#2 : tensor<4x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
func.func @maps(%x: tensor<4x8xf32>, %t: tensor<8x4xf32>, %z: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %y = sinter.fused ins(%x, %t, %z : tensor<4x8xf32>, tensor<8x4xf32>, tensor<1x8xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (0, d1)>] {
  ^bb0(%xv: f32, %tv: f32, %zv: f32):
    %m = arith.mulf %xv, %tv : f32
    %e = arith.divf %m, %zv : f32
    sinter.yield %e : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @no_rule(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = sinter.fused ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%xv: f32):
    // expected-error @+1 {{'math.atan' op has no derivative rule}}
    %a = math.atan %xv : f32
    sinter.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
