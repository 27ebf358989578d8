// RUN: sinter-opt %s --sinter-raise-attention=allow-rng-change=true --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-raise-attention=allow-rng-change=true --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sinter-opt %s --sinter-raise-attention --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=OFF --enable-var-scope
// RUN: sinter-opt %s --sinter-raise-attention --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF-REMARK

// Dropout on the attention probabilities. Drawn from the frontend's random
// generator it becomes the op's dropout_p and seed only with
// allow-rng-change (Philox bits instead of the frontend's); without the
// option the attention is not raised (never raised without its dropout)
// and a near-miss remark says why. A keep-mask tensor cannot be expressed
// by sinter.attention at all.

// The remarks in order, with the option and without it.
// REMARK: remark: fused attention: 41984 bytes
// REMARK: remark: fused dropout: 34816 bytes
// REMARK: remark: fused attention:
// REMARK: remark: fused dropout: 16384 bytes
// REMARK: remark: not fused as attention: the probabilities go through a 'linalg.generic' between the softmax and P V (a dropout with a keep-mask tensor?), which sinter.attention cannot express
// REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the kept probabilities are scaled by 2, not 1/(1 - p) = 1.11111
// REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the random tensor is compared with a threshold that is not a uniform constant
// REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the random tensor is read through a broadcast or transpose map, not one draw per element
// OFF-REMARK: remark: not fused as attention: dropout on the probabilities is not raised: raising it would change the random bits (the frontend's generator draws the mask, sinter.dropout uses Philox4x32-10: same distribution, other bits); pass allow-rng-change=true to raise it
// OFF-REMARK: remark: not fused as attention: dropout on the probabilities is not raised: raising it would change the random bits
// OFF-REMARK: remark: not fused as attention: the probabilities go through a 'linalg.generic'
// OFF-REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the kept probabilities are scaled by 2
// OFF-REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the random tensor is compared with a threshold that is not a uniform constant
// OFF-REMARK: remark: not fused as attention: dropout on the probabilities is not raised: the random tensor is read through a broadcast or transpose map

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// torch-mlir's causal attention with aten.dropout(p=0.1) between the
// softmax and P V: a uniform generator over [B, H, Sq, Skv], `u < 0.9`,
// uitofp, `mask * P`, `/ 0.9`. One sinter.attention with dropout_p = 0.1 and
// the generator's seed; the generator and the masks are gone.
// CHECK-LABEL: func.func @causal_dropout
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>, %[[SEED:[^:]*]]: i64)
// CHECK-NOT: linalg.
// CHECK: sinter.attention %[[Q]], %[[K]], %[[V]] seed(%[[SEED]]) {causal, dropout_p = 1.000000e-01 : f64{{.*}}} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
// CHECK-NOT: linalg.
// CHECK: return
// OFF-LABEL: func.func @causal_dropout
// OFF-NOT: sinter.attention
// OFF: linalg.batch_matmul
// OFF: arith.cmpf olt
// OFF: linalg.batch_matmul
// OFF-NOT: sinter.attention
func.func @causal_dropout(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %seed: i64) -> (tensor<2x4x16x8xf32>) {
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
  %c4i = arith.constant 4 : i64
  %c16i = arith.constant 16 : i64
  %cmul = arith.constant -7046029254386353131 : i64
  %c40 = arith.constant 40 : i64
  %u_e = tensor.empty() : tensor<2x4x16x16xf32>
  %u = linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%u_e : tensor<2x4x16x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %a3 = arith.index_cast %i3 : index to i64
    %l0 = arith.muli %a0, %c4i : i64
    %l1 = arith.addi %l0, %a1 : i64
    %l2 = arith.muli %l1, %c16i : i64
    %l3 = arith.addi %l2, %a2 : i64
    %l4 = arith.muli %l3, %c16i : i64
    %ctr = arith.addi %l4, %a3 : i64
    %h0 = arith.xori %ctr, %seed : i64
    %h1 = arith.muli %h0, %cmul : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %two24 = arith.constant 5.96046448E-8 : f32
    %r = arith.mulf %f, %two24 : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %keep_e = tensor.empty() : tensor<2x4x16x16xi1>
  %keep = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<2x4x16x16xf32>) outs(%keep_e : tensor<2x4x16x16xi1>) {
  ^bb0(%a: f32, %o: i1):
    %t = arith.constant 0.899999976 : f32
    %0 = arith.cmpf olt, %a, %t : f32
    linalg.yield %0 : i1
  } -> tensor<2x4x16x16xi1>
  %mask = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%keep : tensor<2x4x16x16xi1>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: i1, %o: f32):
    %0 = arith.uitofp %a : i1 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %pm = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask, %sm : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pm : tensor<2x4x16x16xf32>) outs(%sm_e : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.899999976 : f32
    %0 = arith.divf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x16x16xf32>
  %p3 = tensor.collapse_shape %pd [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// Dropout on the 3-D probabilities after the heads are collapsed, written
// as one generic: `select(u >= 0.1, P * 1.11111116, 0)`, with a padding mask
// and linalg.softmax before it.
// CHECK-LABEL: func.func @select_dropout_3d
// CHECK-SAME: %[[M:[^:]*]]: tensor<16x16xf32>, %[[SEED:[^:]*]]: i64)
// CHECK-NOT: linalg.generic
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[M]] : tensor<16x16xf32>) seed(%[[SEED]]) {dropout_p = 1.000000e-01 : f64, scale = 5.000000e-01 : f32{{.*}}}
// OFF-LABEL: func.func @select_dropout_3d
// OFF-NOT: sinter.attention
// OFF: linalg.softmax
func.func @select_dropout_3d(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>, %seed: i64) -> (tensor<2x4x16x8xf32>) {
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
  %c16i = arith.constant 16 : i64
  %cmul = arith.constant -7046029254386353131 : i64
  %c40 = arith.constant 40 : i64
  %u_e = tensor.empty() : tensor<8x16x16xf32>
  %u = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%u_e : tensor<8x16x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %l0 = arith.muli %a0, %c16i : i64
    %l1 = arith.addi %l0, %a1 : i64
    %l2 = arith.muli %l1, %c16i : i64
    %ctr = arith.addi %l2, %a2 : i64
    %h0 = arith.xori %ctr, %seed : i64
    %h1 = arith.muli %h0, %cmul : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %two24 = arith.constant 5.96046448E-8 : f32
    %r = arith.mulf %f, %two24 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %pd_e = tensor.empty() : tensor<8x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u, %p3 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%pd_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.constant 1.000000e-01 : f32
    %keep = arith.cmpf oge, %a, %t : f32
    %s = arith.constant 1.11111116 : f32
    %bs = arith.mulf %b, %s : f32
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.select %keep, %bs, %z : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%pd, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// The keep-mask is an input tensor: deterministic, but sinter.attention has
// no operand for it, so the attention is left unraised.
// CHECK-LABEL: func.func @keep_mask_tensor
// CHECK-NOT: sinter.attention
// CHECK: linalg.softmax
// CHECK: arith.divf
// CHECK: linalg.batch_matmul
// OFF-LABEL: func.func @keep_mask_tensor
// OFF-NOT: sinter.attention
func.func @keep_mask_tensor(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>, %keepmask: tensor<8x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
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
  %pd_e = tensor.empty() : tensor<8x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p3, %keepmask : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%pd_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.constant 0.899999976 : f32
    %m = arith.mulf %a, %b : f32
    %0 = arith.divf %m, %t : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%pd, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// Kept probabilities scaled by 2 where p = 0.1 asks for 1/0.9: not a
// dropout sinter.attention can express, even with the option.
// CHECK-LABEL: func.func @wrong_scale
// CHECK-NOT: sinter.attention
// CHECK: linalg.softmax
// CHECK: arith.select
// CHECK: linalg.batch_matmul
func.func @wrong_scale(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>, %seed: i64) -> (tensor<2x4x16x8xf32>) {
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
  %c16i = arith.constant 16 : i64
  %cmul = arith.constant -7046029254386353131 : i64
  %c40 = arith.constant 40 : i64
  %u_e = tensor.empty() : tensor<8x16x16xf32>
  %u = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%u_e : tensor<8x16x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %l0 = arith.muli %a0, %c16i : i64
    %l1 = arith.addi %l0, %a1 : i64
    %l2 = arith.muli %l1, %c16i : i64
    %ctr = arith.addi %l2, %a2 : i64
    %h0 = arith.xori %ctr, %seed : i64
    %h1 = arith.muli %h0, %cmul : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %two24 = arith.constant 5.96046448E-8 : f32
    %r = arith.mulf %f, %two24 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %pd_e = tensor.empty() : tensor<8x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u, %p3 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%pd_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.constant 1.000000e-01 : f32
    %keep = arith.cmpf oge, %a, %t : f32
    %s = arith.constant 2.000000e+00 : f32
    %bs = arith.mulf %b, %s : f32
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.select %keep, %bs, %z : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%pd, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// The random tensor compared with a per-element threshold tensor: not a
// dropout of one probability.
// CHECK-LABEL: func.func @threshold_tensor
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @threshold_tensor(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>, %seed: i64, %thr: tensor<8x16x16xf32>) -> (tensor<2x4x16x8xf32>) {
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
  %c16i = arith.constant 16 : i64
  %cmul = arith.constant -7046029254386353131 : i64
  %c40 = arith.constant 40 : i64
  %u_e = tensor.empty() : tensor<8x16x16xf32>
  %u = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%u_e : tensor<8x16x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %l0 = arith.muli %a0, %c16i : i64
    %l1 = arith.addi %l0, %a1 : i64
    %l2 = arith.muli %l1, %c16i : i64
    %ctr = arith.addi %l2, %a2 : i64
    %h0 = arith.xori %ctr, %seed : i64
    %h1 = arith.muli %h0, %cmul : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %two24 = arith.constant 5.96046448E-8 : f32
    %r = arith.mulf %f, %two24 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %pd_e = tensor.empty() : tensor<8x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#id3, #id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u, %p3, %thr : tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%pd_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %t: f32, %o: f32):
    %keep = arith.cmpf oge, %a, %t : f32
    %s = arith.constant 1.11111116 : f32
    %bs = arith.mulf %b, %s : f32
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.select %keep, %bs, %z : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%pd, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tail3 = affine_map<(d0, d1, d2) -> (d1, d2)>
// One [Sq, Skv] draw broadcast over batch and heads: the mask's shape does
// not match the probabilities (heads would share masks).
// CHECK-LABEL: func.func @broadcast_random
// CHECK-NOT: sinter.attention
// CHECK: linalg.batch_matmul
func.func @broadcast_random(%q0: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<16x16xf32>, %seed: i64) -> (tensor<2x4x16x8xf32>) {
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
  %c16i = arith.constant 16 : i64
  %cmul = arith.constant -7046029254386353131 : i64
  %c40 = arith.constant 40 : i64
  %u_e = tensor.empty() : tensor<16x16xf32>
  %u = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%u_e : tensor<16x16xf32>) {
  ^bb0(%out: f32):
    %i1 = linalg.index 0 : index
    %i2 = linalg.index 1 : index
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %l2 = arith.muli %a1, %c16i : i64
    %ctr = arith.addi %l2, %a2 : i64
    %h0 = arith.xori %ctr, %seed : i64
    %h1 = arith.muli %h0, %cmul : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %two24 = arith.constant 5.96046448E-8 : f32
    %r = arith.mulf %f, %two24 : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %pd_e = tensor.empty() : tensor<8x16x16xf32>
  %pd = linalg.generic {indexing_maps = [#tail3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u, %p3 : tensor<16x16xf32>, tensor<8x16x16xf32>) outs(%pd_e : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.constant 1.000000e-01 : f32
    %keep = arith.cmpf oge, %a, %t : f32
    %s = arith.constant 1.11111116 : f32
    %bs = arith.mulf %b, %s : f32
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.select %keep, %bs, %z : f32
    linalg.yield %0 : f32
  } -> tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %o_e = tensor.empty() : tensor<8x16x8xf32>
  %o_z = linalg.fill ins(%zb : f32) outs(%o_e : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o3 = linalg.batch_matmul ins(%pd, %v3 : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%o_z : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xf32> into tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

