// RUN: sinter-opt %s --sinter-lower-to-loops --split-input-file -verify-diagnostics
// RUN: not sinter-opt %s --sinter-lower-to-loops=block-m=0 2>&1 | FileCheck %s --check-prefix=OPTS

// OPTS: error: sinter-lower-to-loops: block-m, block-n and elementwise-block must be positive

func.func @dynamic_softmax(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  // expected-error @+1 {{sinter-lower-to-loops: cannot lower 'sinter.softmax': dynamic shapes are not supported by the loop lowering yet}}
  %y = sinter.softmax %x dim 1 : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @dynamic_attention(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x64x16xf32>,
                             %v: tensor<1x2x64x16xf32>) -> tensor<1x2x?x16xf32> {
  // expected-error @+1 {{cannot lower 'sinter.attention': dynamic shapes}}
  %o = sinter.attention %q, %k, %v
      : tensor<1x2x?x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
      -> tensor<1x2x?x16xf32>
  return %o : tensor<1x2x?x16xf32>
}

// -----

// One error for the op, none for the ops of its body.
func.func @dynamic_fused(%x: tensor<?xf32>, %s: i64) -> tensor<?xf32> {
  // expected-error @+1 {{cannot lower 'sinter.fused': dynamic shapes}}
  %y = sinter.fused ins(%x, %s : tensor<?xf32>, i64)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>] {
  ^bb0(%a: f32, %sd: i64):
    %d = sinter.dropout %a, %sd p = 5.000000e-01 : f32
    sinter.yield %d : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
