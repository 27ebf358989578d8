// RUN: sinter-opt %s --sinter-raise-custom-calls --split-input-file | FileCheck %s --enable-var-scope

// The forward: the declaration's attributes become the op's, the call's
// results the op's, and the declaration goes.

// CHECK-NOT: sinter_call_0
// CHECK-LABEL: func.func @forward
//  CHECK-SAME: (%[[Q:.*]]: tensor<2x4x64x32xbf16>, %[[K:.*]]: tensor<2x2x64x32xbf16>, %[[V:.*]]: tensor<2x2x64x32xbf16>)
//       CHECK: %[[O:.*]], %[[LSE:.*]] = sinter.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f32}
//       CHECK: return %[[O]], %[[LSE]]
func.func private @sinter_call_0(tensor<2x4x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>) -> (tensor<2x4x64x32xbf16>, tensor<2x4x64xf32>) attributes {sinter.call = "sinter.attention", sinter.attributes = {causal, scale = 1.250000e-01 : f32}}
func.func @forward(%q: tensor<2x4x64x32xbf16>, %k: tensor<2x2x64x32xbf16>, %v: tensor<2x2x64x32xbf16>) -> (tensor<2x4x64x32xbf16>, tensor<2x4x64xf32>) {
  %0:2 = call @sinter_call_0(%q, %k, %v) : (tensor<2x4x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>) -> (tensor<2x4x64x32xbf16>, tensor<2x4x64xf32>)
  return %0#0, %0#1 : tensor<2x4x64x32xbf16>, tensor<2x4x64xf32>
}

// -----

// The backward with a mask and its gradient: the tensor after the six
// fixed operands is the mask, the fourth result the mask's gradient. Two
// calls of one declaration become two ops.

// CHECK-LABEL: func.func @backward
//  CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<1x1x16x16xf32>)
//       CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = sinter.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%[[M]] : tensor<1x1x16x16xf32>) :
//  CHECK-SAME: dmask(tensor<1x1x16x16xf32>)
//       CHECK: sinter.attention_backward
//   CHECK-NOT: call
func.func private @sinter_call_1(tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x1x16x16xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x1x16x16xf32>) attributes {sinter.call = "sinter.attention_backward"}
func.func @backward(%do: tensor<1x2x16x8xf32>, %q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16xf32>, %m: tensor<1x1x16x16xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) {
  %0:4 = call @sinter_call_1(%do, %q, %k, %v, %o, %lse, %m) : (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x1x16x16xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x1x16x16xf32>)
  %1:4 = call @sinter_call_1(%do, %q, %k, %v, %o, %lse, %m) : (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x1x16x16xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x1x16x16xf32>)
  return %0#0, %1#1 : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}

// -----

// Calls of unmarked declarations are not touched.

// CHECK-LABEL: func.func @unmarked
//       CHECK: call @external
// CHECK: func.func private @external
func.func @unmarked(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @external(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
