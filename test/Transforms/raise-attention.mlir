// RUN: sinter-opt %s --sinter-raise-attention -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-raise-attention -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Attention as torch-mlir emits it, raised to one sinter.attention.
// REMARK-COUNT-7: remark: fused attention:

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// The default scale 1/sqrt(D) is left implicit.
// The torch-mlir form: K^T by linalg.transpose, heads collapsed around
// batch_matmul, scale by 1/sqrt(D) after the product, causal mask as a
// select over linalg.index, decomposed softmax.
// CHECK-LABEL: func.func @causal_torch
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>)
// CHECK-NOT: linalg.
// CHECK: sinter.attention %[[Q]], %[[K]], %[[V]] {causal, sinter.fusion{{.*}}} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
// CHECK-NOT: linalg.
// CHECK: return
func.func @causal_torch(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
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
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %gt = arith.cmpi ugt, %j, %i : index
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
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// The scale as a division of Q before the product, an additive mask
// operand broadcast over batch and heads, linalg.softmax.
// CHECK-LABEL: func.func @padding_mask_qscale
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>, %[[M:[^:]*]]: tensor<16x16xf32>)
// CHECK-NOT: linalg.
// CHECK: sinter.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<16x16xf32>) {scale = 5.000000e-01 : f32
// CHECK-NOT: causal
// CHECK-SAME: -> tensor<2x4x16x8xf32>
// CHECK-NOT: linalg.
// CHECK: return
func.func @padding_mask_qscale(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %qs_e = tensor.empty() : tensor<2x4x16x8xf32>
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q0 : tensor<2x4x16x8xf32>) outs(%qs_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 2.000000e+00 : f32
    %0 = arith.divf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zb : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %mask : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %0 = arith.addf %a, %m : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm = linalg.softmax dimension(3) ins(%msk : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// bf16 products around an f32 softmax; the causal mask as an additive
// constant with -inf above the diagonal.
// CHECK-LABEL: func.func @causal_const_bf16
// CHECK-NOT: linalg.
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, sinter.fusion{{.*}}} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>
func.func @causal_const_bf16(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) -> (tensor<1x2x4x8xbf16>) {
  %cm = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : bf16
  %kt_e = tensor.empty() : tensor<1x2x8x4xbf16>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x8xbf16>) outs(%kt_e : tensor<1x2x8x4xbf16>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x8xbf16> into tensor<2x4x8xbf16>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x4xbf16> into tensor<2x8x4xbf16>
  %s_e = tensor.empty() : tensor<2x4x4xbf16>
  %s_z = linalg.fill ins(%zb : bf16) outs(%s_e : tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<2x4x8xbf16>, tensor<2x8x4xbf16>) outs(%s_z : tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xbf16> into tensor<1x2x4x4xbf16>
  %up_e = tensor.empty() : tensor<1x2x4x4xf32>
  %up = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xbf16>) outs(%up_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %msk_e = tensor.empty() : tensor<1x2x4x4xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %cm : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%msk_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %s = arith.mulf %a, %c : f32
    %0 = arith.addf %s, %m : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %sm_e1 = tensor.empty() : tensor<1x2x4xf32>
  %sm_e = tensor.empty() : tensor<1x2x4x4xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<1x2x4x4xf32>) outs(%sm_mi : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%sm_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x4x4xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<1x2x4x4xf32>) outs(%sm_si : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%sm_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %pb_e = tensor.empty() : tensor<1x2x4x4xbf16>
  %pb = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm : tensor<1x2x4x4xf32>) outs(%pb_e : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %0 = arith.truncf %a : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<1x2x4x4xbf16>
  %p3 = tensor.collapse_shape %pb [[0, 1], [2], [3]] : tensor<1x2x4x4xbf16> into tensor<2x4x4xbf16>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x8xbf16> into tensor<2x4x8xbf16>
  %o_e = tensor.empty() : tensor<2x4x8xbf16>
  %o_z = linalg.fill ins(%zb : bf16) outs(%o_e : tensor<2x4x8xbf16>) -> tensor<2x4x8xbf16>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<2x4x4xbf16>, tensor<2x4x8xbf16>) outs(%o_z : tensor<2x4x8xbf16>) -> tensor<2x4x8xbf16>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 2, 4, 8] : tensor<2x4x8xbf16> into tensor<1x2x4x8xbf16>
  return %o : tensor<1x2x4x8xbf16>
}

// A constant mask that is not exactly causal (row 0 sees two keys) is kept
// as an additive mask operand, never `causal`.
// CHECK-LABEL: func.func @shifted_const_mask
// CHECK: %[[CM:.*]] = arith.constant dense<
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[CM]] : tensor<4x4xf32>)
// CHECK-NOT: causal
// CHECK-SAME: -> tensor<1x2x4x8xbf16>
func.func @shifted_const_mask(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) -> (tensor<1x2x4x8xbf16>) {
  %cm = arith.constant dense<[[0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zb = arith.constant 0.000000e+00 : bf16
  %kt_e = tensor.empty() : tensor<1x2x8x4xbf16>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x8xbf16>) outs(%kt_e : tensor<1x2x8x4xbf16>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x8xbf16> into tensor<2x4x8xbf16>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x4xbf16> into tensor<2x8x4xbf16>
  %s_e = tensor.empty() : tensor<2x4x4xbf16>
  %s_z = linalg.fill ins(%zb : bf16) outs(%s_e : tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<2x4x8xbf16>, tensor<2x8x4xbf16>) outs(%s_z : tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xbf16> into tensor<1x2x4x4xbf16>
  %up_e = tensor.empty() : tensor<1x2x4x4xf32>
  %up = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xbf16>) outs(%up_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %msk_e = tensor.empty() : tensor<1x2x4x4xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %cm : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%msk_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %s = arith.mulf %a, %c : f32
    %0 = arith.addf %s, %m : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %sm_e1 = tensor.empty() : tensor<1x2x4xf32>
  %sm_e = tensor.empty() : tensor<1x2x4x4xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<1x2x4x4xf32>) outs(%sm_mi : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%sm_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x4x4xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<1x2x4x4xf32>) outs(%sm_si : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%sm_e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  %pb_e = tensor.empty() : tensor<1x2x4x4xbf16>
  %pb = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm : tensor<1x2x4x4xf32>) outs(%pb_e : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %0 = arith.truncf %a : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<1x2x4x4xbf16>
  %p3 = tensor.collapse_shape %pb [[0, 1], [2], [3]] : tensor<1x2x4x4xbf16> into tensor<2x4x4xbf16>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x8xbf16> into tensor<2x4x8xbf16>
  %o_e = tensor.empty() : tensor<2x4x8xbf16>
  %o_z = linalg.fill ins(%zb : bf16) outs(%o_e : tensor<2x4x8xbf16>) -> tensor<2x4x8xbf16>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<2x4x4xbf16>, tensor<2x4x8xbf16>) outs(%o_z : tensor<2x4x8xbf16>) -> tensor<2x4x8xbf16>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 2, 4, 8] : tensor<2x4x8xbf16> into tensor<1x2x4x8xbf16>
  return %o : tensor<1x2x4x8xbf16>
}

// One head as plain 2-D matmuls, K^T as a permuting generic, the softmax
// already raised (sinter.softmax with its own scale): the scales multiply.
// CHECK-LABEL: func.func @single_head_2d
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<16x8xf32>, %[[K:[^:]*]]: tensor<32x8xf32>, %[[V:[^:]*]]: tensor<32x8xf32>)
// CHECK-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 16, 8]
// CHECK-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 32, 8]
// CHECK-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 32, 8]
// CHECK: %[[A:.*]] = sinter.attention %[[Q4]], %[[K4]], %[[V4]] {scale = 2.500000e-01 : f32{{.*}}} : tensor<1x1x16x8xf32>, tensor<1x1x32x8xf32>, tensor<1x1x32x8xf32> -> tensor<1x1x16x8xf32>
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x16x8xf32> into tensor<16x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @single_head_2d(%q: tensor<16x8xf32>, %k: tensor<32x8xf32>, %v: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %kt_e = tensor.empty() : tensor<8x32xf32>
  %kt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%k : tensor<32x8xf32>) outs(%kt_e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x32xf32>
  %s_e = tensor.empty() : tensor<16x32xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<16x8xf32>, tensor<8x32xf32>) outs(%s_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<16x32xf32>) outs(%s_e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 5.000000e-01 : f32
    %0 = arith.mulf %c, %a : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  %p = sinter.softmax %sc dim 1 {scale = 5.000000e-01 : f32} : tensor<16x32xf32>
  %o_e = tensor.empty() : tensor<16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<16x32xf32>, tensor<32x8xf32>) outs(%o_z : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// Grouped-query attention as HF's repeat_kv emits it (unsqueeze, broadcast,
// collapse of the K/V heads): the op reads the 2 K/V heads directly.
// CHECK-LABEL: func.func @gqa_repeat_kv
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x8xf32>, %[[K:[^:]*]]: tensor<1x2x8x8xf32>, %[[V:[^:]*]]: tensor<1x2x8x8xf32>)
// CHECK-NOT: linalg.
// CHECK: sinter.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32{{.*}}} : tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x4x8x8xf32>
// CHECK-NOT: linalg.
// CHECK: return
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @gqa_repeat_kv(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %r_e = tensor.empty() : tensor<1x2x2x8x8xf32>
  %k5 = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 8, 8] : tensor<1x2x8x8xf32> into tensor<1x2x1x8x8xf32>
  %kb = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k5 : tensor<1x2x1x8x8xf32>) outs(%r_e : tensor<1x2x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x2x2x8x8xf32>
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x8xf32> into tensor<1x4x8x8xf32>
  %v5 = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 8, 8] : tensor<1x2x8x8xf32> into tensor<1x2x1x8x8xf32>
  %vb = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v5 : tensor<1x2x1x8x8xf32>) outs(%r_e : tensor<1x2x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x2x2x8x8xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x8xf32> into tensor<1x4x8x8xf32>
  %kt_e = tensor.empty() : tensor<1x4x8x8xf32>
  %kt = linalg.transpose ins(%kr : tensor<1x4x8x8xf32>) outs(%kt_e : tensor<1x4x8x8xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
  %s_e = tensor.empty() : tensor<4x8x8xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%q3, %kt3 : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%s_z : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %p_e = tensor.empty() : tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x8x8xf32>) outs(%p_e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
  %o3 = linalg.batch_matmul ins(%p, %v3 : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%s_z : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : tensor<4x8x8xf32> into tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// Both products as contraction generics; the first reads K untransposed
// (the transposed-B form), the scale divides the scores.
// CHECK-LABEL: func.func @contraction_generics
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<4x8x16xf32>, %[[K:[^:]*]]: tensor<4x8x16xf32>, %[[V:[^:]*]]: tensor<4x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: sinter.attention {{.*}} {sinter.fusion{{.*}}} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
#qmap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#kmap = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#vmap = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#omap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @contraction_generics(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %s_e = tensor.empty() : tensor<4x8x8xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qmap, #kmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%s_z : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8x8xf32>
  %sc = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x8x8xf32>) outs(%s_e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 4.000000e+00 : f32
    %0 = arith.divf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%sc : tensor<4x8x8xf32>) outs(%s_e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %o_e = tensor.empty() : tensor<4x8x16xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.generic {indexing_maps = [#qmap, #vmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%o_z : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}
