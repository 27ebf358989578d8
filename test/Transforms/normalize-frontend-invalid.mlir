// RUN: sinter-opt %s --sinter-normalize-frontend -split-input-file -verify-diagnostics
// RUN: sinter-opt %s --sinter-raise-softmax --sinter-raise-attention --sinter-raise-norms --sinter-fuse-elementwise -split-input-file | FileCheck %s

// A reassociation index past the rank (4294967298 wraps to 2 in the upstream
// verifier): refused with a location, never read past the shape (this input
// crashed the matchers' reshape views).
// CHECK-LABEL: func.func @huge_reassociation_index
// CHECK: tensor.expand_shape
func.func @huge_reassociation_index(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %e = tensor.empty() : tensor<2x3x1xf32>
  // expected-error @below {{malformed reassociation}}
  %y = tensor.expand_shape %x [[0], [1, 4294967298]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0,d1,d2)->(d0,d1,d2)>, affine_map<(d0,d1,d2)->(d0,d1,d2)>], iterator_types = ["parallel","parallel","parallel"]} ins(%y : tensor<2x3x1xf32>) outs(%e : tensor<2x3x1xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x3x1xf32>
  return %z : tensor<2x3x1xf32>
}
