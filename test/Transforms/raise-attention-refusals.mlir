// RUN: sinter-opt %s --sinter-raise-attention -split-input-file -verify-diagnostics -o /dev/null
// RUN: sinter-opt %s --sinter-raise-attention -split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Must-not-fuse cases for sinter-raise-attention, one per refusal of the
// attention matcher (Attention/*.cpp, RaiseAttention.cpp) that
// raise-attention-negative.mlir and the frontend corpus do not already pin:
// each is the smallest torch-mlir-style attention that differs from a fused
// one in exactly the refused way, checks the near-miss remark at the anchor
// (P V, or the tm_tensor.attention) and that no sinter.attention is built.
// Mask-analysis notes and dropout refusals: raise-attention-refusals-2.mlir.

// A sinter.softmax with its own mask: the op has one mask, the softmax's
// would be lost. Refused silently (no remark), so only the no-fusion check
// pins it.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @softmax_carries_mask
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @softmax_carries_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm = sinter.softmax %sc dim 3 mask(%m : tensor<16x16xf32>) : tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the sinter.softmax already carries a mask}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The row sum starts from 1: exp / (1 + sum exp) is not a softmax.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @softmax_sum_from_one
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @softmax_sum_from_one(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_si = linalg.fill ins(%one : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the probabilities are not a softmax: the sum of exponentials does not start from zero}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A negative scale folded into the softmax: softmax(-c S) favours dissimilar
// keys; the op's scale is positive.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @softmax_negative_scale
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @softmax_negative_scale(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant -0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the softmax scale is not positive}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// SDPA's all-hidden-row guard tests another tensor than the softmax input: it
// zeroes rows the op would not.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#last0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// CHECK-LABEL: func.func @row_guard_tests_other_tensor
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @row_guard_tests_other_tensor(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %other: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %eq_e = tensor.empty() : tensor<2x4x16x16xi1>
  %eq = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%other : tensor<2x4x16x16xf32>) outs(%eq_e : tensor<2x4x16x16xi1>) {
  ^bb0(%a: f32, %out: i1):
    %w = arith.extf %a : f32 to f64
    %nf = arith.constant 0xFFF0000000000000 : f64
    %0 = arith.cmpf oeq, %w, %nf : f64
    linalg.yield %0 : i1
  } -> tensor<2x4x16x16xi1>
  %true = arith.constant true
  %all_e = tensor.empty() : tensor<2x4x16x1xi1>
  %all_t = linalg.fill ins(%true : i1) outs(%all_e : tensor<2x4x16x1xi1>) -> tensor<2x4x16x1xi1>
  %all = linalg.generic {indexing_maps = [#id4, #last0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%eq : tensor<2x4x16x16xi1>) outs(%all_t : tensor<2x4x16x1xi1>) {
  ^bb0(%a: i1, %out: i1):
    %0 = arith.andi %a, %out : i1
    linalg.yield %0 : i1
  } -> tensor<2x4x16x1xi1>
  %g_e = tensor.empty() : tensor<2x4x16x16xf32>
  %g = linalg.generic {indexing_maps = [#last0, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all, %sm : tensor<2x4x16x1xi1>, tensor<2x4x16x16xf32>) outs(%g_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: i1, %b: f32, %out: f32):
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.select %a, %z, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %g [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the fully-masked-row guard tests another tensor than the softmax input}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// softmax(T) V with T an argument: there is no Q K^T to fuse.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @softmax_input_not_a_product
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @softmax_input_not_a_product(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %scores: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scores : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scores, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the softmax input does not come from a matrix product}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Q K^T is also returned: erasing the product would lose that result.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_product_escapes
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_product_escapes(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<8x16x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the intermediate computed by 'linalg.batch_matmul' (scores or probabilities) has another user}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o, %s3 : tensor<2x4x16x8xf32>, tensor<8x16x16xf32>
}

// -----

// K and V tiled (head h reads KV head h mod 2), not repeat_kv'd (h / 2): as
// GQA the heads would pair up wrongly.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#tile5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-LABEL: func.func @kv_tiled_not_repeat_kv
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @kv_tiled_not_repeat_kv(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x16x8xf32>
  %kr = linalg.generic {indexing_maps = [#tile5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x2x16x8xf32>) outs(%kr_e : tensor<2x2x2x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x2x16x8xf32>
  %k4 = tensor.collapse_shape %kr [[0], [1, 2], [3], [4]] : tensor<2x2x2x16x8xf32> into tensor<2x4x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k4 : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %vr_e = tensor.empty() : tensor<2x2x2x16x8xf32>
  %vr = linalg.generic {indexing_maps = [#tile5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x2x16x8xf32>) outs(%vr_e : tensor<2x2x2x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x2x16x8xf32>
  %v4 = tensor.collapse_shape %vr [[0], [1, 2], [3], [4]] : tensor<2x2x2x16x8xf32> into tensor<2x4x16x8xf32>
  %v3 = tensor.collapse_shape %v4 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: a 5-D operand that is not a head repeat (repeat_kv)}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// K repeat_kv'd from 2 heads, V with 4 of its own: the op has one key/value
// head count.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @kv_repeat_mismatch
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @kv_repeat_mismatch(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x16x8xf32>
  %kr = linalg.generic {indexing_maps = [#rep5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x2x16x8xf32>) outs(%kr_e : tensor<2x2x2x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x2x16x8xf32>
  %k4 = tensor.collapse_shape %kr [[0], [1, 2], [3], [4]] : tensor<2x2x2x16x8xf32> into tensor<2x4x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k4 : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: K and V repeat their heads differently}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Q scaled by -0.5: the op's scale must be positive.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @q_negative_scale
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @q_negative_scale(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %qs_e = tensor.empty() : tensor<2x4x16x8xf32>
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x4x16x8xf32>) outs(%qs_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant -5.000000e-01 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %q3 = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: an operand is scaled by a non-positive constant}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// With S = D the product reads K where K^T belongs: Q K is not attention.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @k_not_transposed
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @k_not_transposed(%q: tensor<2x4x16x16xf32>, %k: tensor<2x4x16x16xf32>, %v: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %kt3 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 2.500000e-01 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %o_e = tensor.empty() : tensor<8x16x16xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  // expected-remark @below {{not fused as attention: the second operand of Q K^T is not a transposed K}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%o_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  return %o : tensor<2x4x16x16xf32>
}

// -----

// Q repeated from 2 heads, K and V with 4: the op cannot repeat queries.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @q_head_repeat
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @q_head_repeat(%q: tensor<2x2x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %qr_e = tensor.empty() : tensor<2x2x2x16x8xf32>
  %qr = linalg.generic {indexing_maps = [#rep5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x2x16x8xf32>) outs(%qr_e : tensor<2x2x2x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x2x16x8xf32>
  %q3 = tensor.collapse_shape %qr [[0, 1, 2], [3], [4]] : tensor<2x2x2x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the shapes of Q and K do not line up}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// V merges [1, 8] heads where Q merges [2, 4]: the op would read V with Q's
// split.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @v_splits_heads
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @v_splits_heads(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<1x8x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x8x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the shapes of the probabilities and V do not line up}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// K in bf16, Q and V in f32: the op takes one element type.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @qkv_mixed_types
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @qkv_mixed_types(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %kw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x4x16x8xbf16>) outs(%kw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%kw : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: Q, K and V have different element types}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// An f64 attention: the op computes in f16, bf16 or f32.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @f64_attention
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @f64_attention(%q: tensor<2x4x16x8xf64>, %k: tensor<2x4x16x8xf64>, %v: tensor<2x4x16x8xf64>) -> (tensor<2x4x16x8xf64>) {
  %zero = arith.constant 0.000000e+00 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf64> into tensor<8x16x8xf64>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf64>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf64>) outs(%kt_e : tensor<2x4x8x16xf64>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf64> into tensor<8x8x16xf64>
  %s_e = tensor.empty() : tensor<8x16x16xf64>
  %s_z = linalg.fill ins(%zero : f64) outs(%s_e : tensor<8x16x16xf64>) -> tensor<8x16x16xf64>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf64>, tensor<8x8x16xf64>) outs(%s_z : tensor<8x16x16xf64>) -> tensor<8x16x16xf64>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf64> into tensor<2x4x16x16xf64>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf64>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf64>) outs(%sc_e : tensor<2x4x16x16xf64>) {
  ^bb0(%a: f64, %out: f64):
    %cs = arith.constant 0.353553385 : f64
    %0 = arith.mulf %a, %cs : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x16x16xf64>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf64>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf64>
  %sm_mi = linalg.fill ins(%ninf : f64) outs(%sm_e1 : tensor<2x4x16xf64>) -> tensor<2x4x16xf64>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf64>) outs(%sm_mi : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %0 = arith.maximumf %in, %acc : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x16xf64>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf64>, tensor<2x4x16xf64>) outs(%sm_e : tensor<2x4x16x16xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %0 = arith.subf %a, %b : f64
    %1 = math.exp %0 : f64
    linalg.yield %1 : f64
  } -> tensor<2x4x16x16xf64>
  %sm_si = linalg.fill ins(%zero : f64) outs(%sm_e1 : tensor<2x4x16xf64>) -> tensor<2x4x16xf64>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<2x4x16x16xf64>) outs(%sm_si : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %0 = arith.addf %in, %acc : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x16xf64>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<2x4x16x16xf64>, tensor<2x4x16xf64>) outs(%sm_e : tensor<2x4x16x16xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %0 = arith.divf %a, %b : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x16x16xf64>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x16xf64> into tensor<8x16x16xf64>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf64> into tensor<8x16x8xf64>
  %o_e = tensor.empty() : tensor<8x16x8xf64>
  %o_z = linalg.fill ins(%zero : f64) outs(%o_e : tensor<8x16x8xf64>) -> tensor<8x16x8xf64>
  // expected-remark @below {{not fused as attention: unsupported element type}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf64>, tensor<8x16x8xf64>) outs(%o_z : tensor<8x16x8xf64>) -> tensor<8x16x8xf64>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf64> into tensor<2x4x16x8xf64>
  return %o : tensor<2x4x16x8xf64>
}

// -----

// bf16 operands, P V returned in f32: the op's bf16 result cannot replace the
// f32 one.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @pv_result_not_rounded
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @pv_result_not_rounded(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %qw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %qw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x4x16x8xbf16>) outs(%qw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %q3 = tensor.collapse_shape %qw [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %kw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x4x16x8xbf16>) outs(%kw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%kw : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %vw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %vw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x4x16x8xbf16>) outs(%vw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %v3 = tensor.collapse_shape %vw [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: P V's result is used without rounding to the operands' type}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Q's sequence length is dynamic: the op is built from static shapes.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @dynamic_q_source
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @dynamic_q_source(%q: tensor<2x4x?x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xbf16>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %qw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %qw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x4x?x8xbf16>) outs(%qw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %q3 = tensor.collapse_shape %qw [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %kw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x4x16x8xbf16>) outs(%kw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%kw : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %vw_e = tensor.empty() : tensor<2x4x16x8xf32>
  %vw = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x4x16x8xbf16>) outs(%vw_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %v3 = tensor.collapse_shape %vw [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: dynamic shapes are not supported yet}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  %ob_e = tensor.empty() : tensor<2x4x16x8xbf16>
  %ob = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<2x4x16x8xf32>) outs(%ob_e : tensor<2x4x16x8xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %0 = arith.truncf %a : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<2x4x16x8xbf16>
  return %ob : tensor<2x4x16x8xbf16>
}

// -----

// Static Q, K, V and output, dynamic scores: the op is built from static
// shapes.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @dynamic_scores
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @dynamic_scores(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %c16 = arith.constant 16 : index
  %s_e = tensor.empty(%c16) : tensor<8x16x?xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x?xf32>) -> tensor<8x16x?xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x?xf32>) -> tensor<8x16x?xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, %c16] : tensor<8x16x?xf32> into tensor<2x4x16x?xf32>
  %sc_e = tensor.empty(%c16) : tensor<2x4x16x?xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x?xf32>) outs(%sc_e : tensor<2x4x16x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x?xf32>
  %sm_e = tensor.empty(%c16) : tensor<2x4x16x?xf32>
  %sm = linalg.softmax dimension(3) ins(%sc : tensor<2x4x16x?xf32>) outs(%sm_e : tensor<2x4x16x?xf32>) -> tensor<2x4x16x?xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x?xf32> into tensor<8x16x?xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: dynamic shapes are not supported yet}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x?xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// An f8 mask: the op's mask is f16, bf16 or f32.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @mask_f8
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_f8(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf8E4M3FN>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<16x16xf8E4M3FN>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f8E4M3FN, %out: f32):
    %w = arith.extf %b : f8E4M3FN to f32
    %0 = arith.addf %a, %w : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask has an unsupported element type}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The mask is added to [B*H, S, S] scores, the softmax runs on [B, H, S, S]:
// neither is the mask's rank for the op.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail3 = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @mask_rank3_softmax_rank4
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_rank3_softmax_rank4(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %sc3_e = tensor.empty() : tensor<8x16x16xf32>
  %sc3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s3 : tensor<8x16x16xf32>) outs(%sc3_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %msk3_e = tensor.empty() : tensor<8x16x16xf32>
  %msk3 = linalg.generic {indexing_maps = [#id3, #tail3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sc3, %m : tensor<8x16x16xf32>, tensor<16x16xf32>) outs(%msk3_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %msk = tensor.expand_shape %msk3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask is applied at an unsupported rank}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A [B, 2, S, S] mask read at head 0 for every head: the op's broadcast would
// read both heads.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#bh0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-LABEL: func.func @mask_constant_map_nonunit
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_constant_map_nonunit(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<2x2x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #bh0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<2x2x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask is read through a constant map}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A [Skv, 1] key mask read as m[j, 0]: the op's numpy broadcast would read it
// along the queries.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#kcol = affine_map<(d0, d1, d2, d3) -> (d3, 0)>
// CHECK-LABEL: func.func @mask_unit_dim_transposed
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_unit_dim_transposed(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x1xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #kcol, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<16x1xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask is read through a transposing map}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A mask read as m[j, i]: the op reads m[i, j].
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tailT = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @mask_transposed
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_transposed(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tailT, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask is read through a transposing map}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Scores and mask split [4, 2], Q [2, 4]: the op would read the mask with Q's
// split.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @mask_splits_heads_differently
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_splits_heads_differently(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<4x2x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [4, 2, 16, 16] : tensor<8x16x16xf32> into tensor<4x2x16x16xf32>
  %sc_e = tensor.empty() : tensor<4x2x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<4x2x16x16xf32>) outs(%sc_e : tensor<4x2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<4x2x16x16xf32>
  %msk_e = tensor.empty() : tensor<4x2x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<4x2x16x16xf32>, tensor<4x2x16x16xf32>) outs(%msk_e : tensor<4x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x2x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<4x2x16xf32>
  %sm_e = tensor.empty() : tensor<4x2x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<4x2x16xf32>) -> tensor<4x2x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<4x2x16x16xf32>) outs(%sm_mi : tensor<4x2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x2x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<4x2x16x16xf32>, tensor<4x2x16xf32>) outs(%sm_e : tensor<4x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x2x16x16xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<4x2x16xf32>) -> tensor<4x2x16xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<4x2x16x16xf32>) outs(%sm_si : tensor<4x2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x2x16xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<4x2x16x16xf32>, tensor<4x2x16xf32>) outs(%sm_e : tensor<4x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x2x16x16xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<4x2x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask splits batch and heads differently from Q}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A [B*H, S, S] mask on the 3-D scores of 4-D Q: not split into [B, H] for
// the op (yet).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @mask_per_batch_head_rank3
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_per_batch_head_rank3(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<8x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %sc_e = tensor.empty() : tensor<8x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s3 : tensor<8x16x16xf32>) outs(%sc_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %msk_e = tensor.empty() : tensor<8x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%msk_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<8x16xf32>
  %sm_e = tensor.empty() : tensor<8x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%msk : tensor<8x16x16xf32>) outs(%sm_mi : tensor<8x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<8x16x16xf32>, tensor<8x16xf32>) outs(%sm_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x16x16xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %sm_s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sm_x : tensor<8x16x16xf32>) outs(%sm_si : tensor<8x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %sm = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<8x16x16xf32>, tensor<8x16xf32>) outs(%sm_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: a per-(batch*head) mask over collapsed heads is not supported yet}}
  %o3 = linalg.batch_matmul ins(%sm, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Sq > Skv causal with a finite fill: fully hidden rows come out uniform, the
// op's (-inf) ones zero.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @finite_causal_fill_empty_rows
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @finite_causal_fill_empty_rows(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x8x8xf32>, %v: tensor<2x4x8x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8x8xf32>) outs(%kt_e : tensor<2x4x8x8xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %s_e = tensor.empty() : tensor<8x16x8xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x8xf32>) outs(%s_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x8xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x8xf32>) outs(%sc_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x8xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x8xf32>) outs(%msk_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %sh = arith.constant -8 : index
    %ish = arith.addi %i, %sh : index
    %hide = arith.cmpi sgt, %j, %ish : index
    %fill = arith.constant -3.40282347E+38 : f32
    %0 = arith.select %hide, %fill, %a : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x8xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk : tensor<2x4x16x8xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %sm_m : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x16x8xf32>
  %sm_si = linalg.fill ins(%zero : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sm_x : tensor<2x4x16x8xf32>) outs(%sm_si : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm_x, %sm_s : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x8xf32>
  %p3 = tensor.collapse_shape %sm [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: a finite causal fill differs from -inf on fully masked rows}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x8xf32>, tensor<8x8x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Two causal selects: one causal attribute is recorded, a second is refused.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @two_causal_masks
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @two_causal_masks(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk2_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk : tensor<2x4x16x16xf32>) outs(%msk2_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk2 : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk2, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: more than one causal mask is applied to the scores}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Scores scaled by a negative constant: the op's scale must be positive.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @negative_scale_before_mask
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @negative_scale_before_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant -0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are scaled by a non-positive constant}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Scores added to the generic's init (%out): only inputs are read as a mask.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_added_to_init
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_added_to_init(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %bias: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%bias : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %out : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are added to a value that is not a mask tensor}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Two additive masks: the op has one mask operand.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @two_mask_tensors
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @two_mask_tensors(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>, %m2: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #tail4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk2_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk2 = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk, %m2 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%msk2_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%msk2 : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%msk2, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: more than one mask tensor is added to the scores}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A mask read as m[i, i]: not a map the op's mask can express.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#diag = affine_map<(d0, d1, d2, d3) -> (d2, d2)>
// CHECK-LABEL: func.func @mask_diagonal_map
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @mask_diagonal_map(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #diag, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the mask is read through an unsupported indexing map}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A causal select writing -100: that does not hide a key.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @select_fill_not_hiding
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @select_fill_not_hiding(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant -1.000000e+02 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the select does not mask scores with -inf or a large negative value}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A sliding window applied by a select: no window in the op and no mask
// tensor to keep.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @select_sliding_window
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @select_sliding_window(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c1 = arith.cmpi sle, %j, %i : index
    %lo = arith.constant -4 : index
    %il = arith.addi %i, %lo : index
    %c2 = arith.cmpi sgt, %j, %il : index
    %vis = arith.andi %c1, %c2 : i1
    %ni = arith.constant 0xFF800000 : f32
    %0 = arith.select %vis, %a, %ni : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are selected by a condition that is not a causal comparison of the query and key indices: a sliding window of 4 keys}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// A select hiding keys j < i: the reverse of causal.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @select_anticausal
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @select_anticausal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi slt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are selected by a condition that is not a causal comparison of the query and key indices: the mask hides keys before the query, not after it}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The causal select keeps another input, not the scores: the softmax never
// sees Q K^T.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @select_drops_scores
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @select_drops_scores(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %bias: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %bias : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %ni = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %ni, %b : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are combined with an unsupported value}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Scores clamped by min(s, 50): the op has no clamp.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_clamped
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_clamped(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %cl_e = tensor.empty() : tensor<2x4x16x16xf32>
  %cl = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%cl_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cap = arith.constant 5.000000e+01 : f32
    %0 = arith.minimumf %a, %cap : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %sm_e1 = tensor.empty() : tensor<2x4x16xf32>
  %sm_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sm_mi = linalg.fill ins(%ninf : f32) outs(%sm_e1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm_m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%cl : tensor<2x4x16x16xf32>) outs(%sm_mi : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16xf32>
  %sm_x = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cl, %sm_m : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores go through 'arith.minimumf', which attention cannot express}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The scale writes the scores transposed: the softmax would run over queries.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#swap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-LABEL: func.func @scores_written_transposed
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_written_transposed(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #swap], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores go through 'linalg.generic', which attention cannot express}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The scale reads the scores transposed: the softmax would run over queries.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#swap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-LABEL: func.func @scores_read_transposed
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_read_transposed(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#swap, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the softmax input does not come from Q K^T}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Scores multiplied by themselves: not a scale.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_squared
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_squared(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %sc_e = tensor.empty() : tensor<2x4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %s4 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%sc_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are combined with themselves}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// The scale runs on [B, H, Sq * Skv]: past that reshape the query and key
// loops cannot be told apart.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_reshaped_across_keys
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @scores_reshaped_across_keys(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kt_e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%kt_e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %s_e = tensor.empty() : tensor<8x16x16xf32>
  %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%s_z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %flat = tensor.collapse_shape %s4 [[0], [1], [2, 3]] : tensor<2x4x16x16xf32> into tensor<2x4x256xf32>
  %scf_e = tensor.empty() : tensor<2x4x256xf32>
  %scf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%flat : tensor<2x4x256xf32>) outs(%scf_e : tensor<2x4x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cs = arith.constant 0.353553385 : f32
    %0 = arith.mulf %a, %cs : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x256xf32>
  %sc = tensor.expand_shape %scf [[0], [1], [2, 3]] output_shape [2, 4, 16, 16] : tensor<2x4x256xf32> into tensor<2x4x16x16xf32>
  %msk_e = tensor.empty() : tensor<2x4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc : tensor<2x4x16x16xf32>) outs(%msk_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %fill = arith.constant 0xFF800000 : f32
    %0 = arith.select %hide, %fill, %a : f32
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
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the scores are reshaped across the query or key axis}}
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// tm_tensor.attention with K repeated from 2 heads and V with 4: the op has
// one key/value head count.
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @tm_kv_heads_mismatch
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @tm_kv_heads_mismatch(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<8x16x8xf32> {
  %kr_e = tensor.empty() : tensor<2x2x2x16x8xf32>
  %kr = linalg.generic {indexing_maps = [#rep5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x2x16x8xf32>) outs(%kr_e : tensor<2x2x2x16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x2x16x8xf32>
  %k4 = tensor.collapse_shape %kr [[0], [1, 2], [3], [4]] : tensor<2x2x2x16x8xf32> into tensor<2x4x16x8xf32>
  %k3 = tensor.collapse_shape %k4 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  // expected-remark @below {{not fused as attention: the heads of Q, K and V do not line up}}
  %o = tm_tensor.attention ins(%q3, %k3, %v3 : tensor<8x16x8xf32>, tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %o : tensor<8x16x8xf32>
}

// -----

// A 2-D tm_tensor.attention: only ranks 3 and 4 are raised.
// CHECK-LABEL: func.func @tm_rank2
// CHECK-NOT: sinter.attention
// CHECK: return
func.func @tm_rank2(%q: tensor<16x8xf32>, %k: tensor<16x8xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %o_e = tensor.empty() : tensor<16x8xf32>
  // expected-remark @below {{not fused as attention: only static rank-3 and rank-4 tm_tensor.attention is raised}}
  %o = tm_tensor.attention ins(%q, %k, %v : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) outs(%o_e : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}
