// RUN: sinter-opt %s --sinter-raise-custom-calls --split-input-file -verify-diagnostics

func.func private @unknown(tensor<4xf32>) -> tensor<4xf32> attributes {sinter.call = "sinter.softmax"}
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom call @unknown names no op Sinter raises from calls ("sinter.softmax")}}
  %0 = call @unknown(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @short(tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16xf32>) attributes {sinter.call = "sinter.attention"}
func.func @f(%q: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  // expected-error @+1 {{custom call of sinter.attention takes 3 tensors, then an optional mask tensor and an optional i64 seed; got 2 operands}}
  %0:2 = call @short(%q, %q) : (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16xf32>)
  return %0#0 : tensor<1x2x16x8xf32>
}

// -----

func.func private @attrs(tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16xf32>) attributes {sinter.call = "sinter.attention", sinter.attributes = "causal"}
func.func @f(%q: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  // expected-error @+1 {{custom call @attrs: sinter.attributes must be a dictionary, got "causal"}}
  %0:2 = call @attrs(%q, %q, %q) : (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16xf32>)
  return %0#0 : tensor<1x2x16x8xf32>
}

// -----

// The op's verifier speaks first, at the call.
func.func private @heads(tensor<1x3x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x3x16x8xf32>, tensor<1x3x16xf32>) attributes {sinter.call = "sinter.attention"}
func.func @f(%q: tensor<1x3x16x8xf32>, %k: tensor<1x2x16x8xf32>) -> tensor<1x3x16x8xf32> {
  // expected-error @+2 {{number of query heads (3) must be a multiple of the number of key/value heads (2)}}
  // expected-error @+1 {{custom call of sinter.attention builds an op that fails its verifier}}
  %0:2 = call @heads(%q, %k, %k) : (tensor<1x3x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x3x16x8xf32>, tensor<1x3x16xf32>)
  return %0#0 : tensor<1x3x16x8xf32>
}
