// RUN: sinter-opt %s --sinter-raise-attention --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s

// Must-not-fuse cases for sinter-raise-attention: each stays upstream linalg
// with a near-miss remark at the second product.

// Softmax over the query axis (2), not the keys: not attention.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @softmax_query_axis
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @softmax_query_axis(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm = linalg.softmax dimension(2) ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the softmax is over axis 2, not the trailing (key) axis}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The scaled scores are also returned.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @scores_escape
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @scores_escape(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm = linalg.softmax dimension(3) ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the intermediate computed by 'linalg.generic' (scores or probabilities) has another user}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o, %sc : tensor<2x4x16x8xf32>, tensor<2x4x16x16xf32>
}

// -----

// The scores are multiplied by a tensor, not a uniform scalar.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @nonuniform_scale
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @nonuniform_scale(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %w: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %w : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %0 = arith.mulf %a, %m : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm = linalg.softmax dimension(3) ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are scaled by a value that is not a uniform constant}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The select hides keys j > i + 1: shifted, not causal.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @shifted_causal
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @shifted_causal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c1 = arith.constant 1 : index
    %i1 = arith.addi %i, %c1 : index
    %gt = arith.cmpi ugt, %j, %i1 : index
    %ni = arith.constant 0xFF800000 : f32
    %0 = arith.select %gt, %ni, %a : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<2x4x16x16xf32>) outs(%sm_si : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the index mask is not the bottom-right aligned causal mask (key j hidden iff j > i + 0)}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The select hides keys j >= i (the diagonal too): not causal.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @strict_causal
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @strict_causal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %gt = arith.cmpi uge, %j, %i : index
    %ni = arith.constant 0xFF800000 : f32
    %0 = arith.select %gt, %ni, %a : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<2x4x16x16xf32>) outs(%sm_si : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the index mask is not the bottom-right aligned causal mask (key j hidden iff j > i + 0)}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// K splits batch*heads as 4x2, Q as 2x4: the heads do not line up.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @heads_mismatch
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @heads_mismatch(%q: tensor<2x4x16x8xf32>, %k: tensor<4x2x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<4x2x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<4x2x16x8xf32>) outs(%kt_e : tensor<4x2x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<4x2x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm = linalg.softmax dimension(3) ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: K splits its heads differently from Q}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A mask added before the scale would be scaled too: the op cannot express
// scale * (QK^T + mask) with an arbitrary mask.
#qmap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#kmap = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#vmap = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#omap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m3 = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @mask_before_scale
// CHECK-NOT: sinter.attention
// CHECK: linalg.softmax
func.func @mask_before_scale(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %mask: tensor<4x4xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %s_e = tensor.empty() : tensor<2x4x4xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#qmap, #kmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%s_z : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x4xf32>
  %sc = linalg.generic {indexing_maps = [#id3, #m3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%s_e : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %c = arith.constant 0.353553385 : f32
    %0 = arith.addf %a, %m : f32
    %1 = arith.mulf %0, %c : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%sc : tensor<2x4x4xf32>) outs(%s_e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %o_e = tensor.empty() : tensor<2x4x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not fused as attention: the mask is added before a scale of the scores}}
  %o = linalg.generic {indexing_maps = [#qmap, #vmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%o_z : tensor<2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
