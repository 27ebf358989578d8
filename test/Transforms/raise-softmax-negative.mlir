// RUN: sinter-opt %s --sinter-raise-softmax --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s

// Must-not-fuse cases for sinter-raise-softmax: the chain stays upstream
// linalg and a near-miss remark says why.
// The exponentials are also returned: they would have to be written anyway.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @exp_escapes
// CHECK-NOT: sinter.softmax
// CHECK: math.exp
func.func @exp_escapes(%x: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x16xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // expected-remark @below {{not fused as softmax: the intermediate computed by 'linalg.generic' has another user}}
  %r = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %s : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %r, %exp : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// The max runs along d1, the sum (and its broadcast) along d0.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @different_axes
// CHECK-NOT: sinter.softmax
// CHECK: math.exp
func.func @different_axes(%x: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x16xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id2, #col2], iterator_types = ["reduction", "parallel"]} ins(%exp : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // expected-remark @below {{not fused as softmax: the maximum and the sum reduce different axes}}
  %r = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %s : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// The value subtracted before exp is a bias, not the row maximum.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @sub_not_max
// CHECK-NOT: sinter.softmax
// CHECK: math.exp
func.func @sub_not_max(%x: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x16xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %bias : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // expected-remark @below {{not fused as softmax: the value subtracted before exp is not a row maximum}}
  %r = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %s : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// A row minimum is subtracted instead of the maximum.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @sub_min
// CHECK-NOT: sinter.softmax
// CHECK: math.exp
func.func @sub_min(%x: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x16xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.minimumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  // expected-remark @below {{not fused as softmax: the value subtracted before exp is not a row maximum}}
  %r = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %s : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
