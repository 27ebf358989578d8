// RUN: sinter-opt %s --sinter-fusion-pipeline="allow-rng-change=true report=%t.json" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: sinter-opt %s --sinter-fusion-pipeline="report=%t.off.json" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=JSON-OFF < %t.off.json
// RUN: sinter-opt %s --sinter-fusion-pipeline -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF-REMARK

// Training-mode dropout through the whole pipeline, as torch-mlir emits it:
// on the attention probabilities and before a residual add. With
// allow-rng-change both become Sinter's Philox dropout (sinter.attention's
// dropout_p, sinter.dropout in the fused chain) and the report counts them
// as `dropout` fusions; without it nothing random is replaced, the
// attention is not raised (its softmax is), and remarks say why.

// CHECK-LABEL: func.func @torch_dropout_residual
// CHECK-NOT: linalg.
// CHECK: sinter.fused
// CHECK: sinter.dropout %{{.*}}, %{{.*}} p = 1.000000e-01 : f32
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @causal_dropout
// CHECK-SAME: %[[SEED:[^:]*]]: i64)
// CHECK-NOT: linalg.
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} seed(%[[SEED]]) {causal, dropout_p = 1.000000e-01 : f64}
// CHECK-NOT: linalg.

// JSON: "patterns": {
// JSON-NEXT: "attention": 1,
// JSON-NEXT: "dropout": 2,
// JSON-NEXT: "elementwise": 1
// JSON-NEXT: },
// JSON-NEXT: "total_bytes_avoided":
// JSON-NEXT: "total_fusions": 4

// OFF-LABEL: func.func @torch_dropout_residual
// OFF-NOT: sinter.dropout
// OFF: linalg.generic
// OFF: sinter.fused
// OFF-NOT: sinter.dropout
// OFF-LABEL: func.func @causal_dropout
// OFF-NOT: sinter.attention
// OFF: linalg.batch_matmul
// OFF: sinter.softmax
// OFF: linalg.generic
// OFF: sinter.fused
// OFF: arith.cmpf
// OFF: linalg.batch_matmul
// OFF-NOT: sinter.

// JSON-OFF: "patterns": {
// JSON-OFF-NOT: dropout
// JSON-OFF-NOT: attention
// JSON-OFF: "total_fusions"

// OFF-REMARK-DAG: remark: not fused as attention: dropout on the probabilities is not raised: raising it would change the random bits
// OFF-REMARK-DAG: remark: not fused as dropout: raising it would change the random bits
// OFF-REMARK-DAG: remark: not fused as dropout: raising it would change the random bits

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#tail4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @torch_dropout_residual(%x: tensor<8x16xf32>, %res: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %eps = arith.constant 5.4210107999999998E-20 : f64
  %q = arith.constant 9.000000e-01 : f64
  %qt = arith.constant dense<9.000000e-01> : tensor<f64>
  %c32 = arith.constant 32 : i64
  %c16 = arith.constant 16 : i64
  %zero = arith.constant 0.000000e+00 : f64
  %inc = arith.constant 1442695040888963407 : i64
  %mul = arith.constant 6364136223846793005 : i64
  %gs = ml_program.global_load @global_seed : tensor<i64>
  %s0 = tensor.extract %gs[] : tensor<i64>
  %s1 = arith.muli %s0, %mul : i64
  %seed = arith.addi %s1, %inc : i64
  %gs2 = tensor.insert %seed into %gs[] : tensor<i64>
  ml_program.global_store @global_seed = %gs2 : tensor<i64>
  %e64 = tensor.empty() : tensor<8x16xf64>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e64 : tensor<8x16xf64>) {
  ^bb0(%o: f64):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %l0 = arith.muli %a0, %c16 : i64
    %ctr = arith.addi %l0, %a1 : i64
    %x0 = arith.muli %ctr, %seed : i64
    %z0 = arith.addi %x0, %seed : i64
    %sq = arith.muli %x0, %x0 : i64
    %x1 = arith.addi %sq, %x0 : i64
    %h1 = arith.shli %x1, %c32 : i64
    %h2 = arith.shrui %x1, %c32 : i64
    %x2 = arith.ori %h1, %h2 : i64
    %sq2 = arith.muli %x2, %x2 : i64
    %x3 = arith.addi %sq2, %z0 : i64
    %h3 = arith.shli %x3, %c32 : i64
    %h4 = arith.shrui %x3, %c32 : i64
    %x4 = arith.ori %h3, %h4 : i64
    %sq3 = arith.muli %x4, %x4 : i64
    %x5 = arith.addi %sq3, %x0 : i64
    %h5 = arith.shrui %x5, %c32 : i64
    %w = arith.xori %x5, %h5 : i64
    %f = arith.uitofp %w : i64 to f64
    %fs = arith.mulf %f, %eps : f64
    %fu = arith.addf %fs, %zero : f64
    linalg.yield %fu : f64
  } -> tensor<8x16xf64>
  %e1 = tensor.empty() : tensor<8x16xi1>
  %keep = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %qt : tensor<8x16xf64>, tensor<f64>) outs(%e1 : tensor<8x16xi1>) {
  ^bb0(%a: f64, %b: f64, %o: i1):
    %c = arith.cmpf olt, %a, %b : f64
    linalg.yield %c : i1
  } -> tensor<8x16xi1>
  %ef = tensor.empty() : tensor<8x16xf32>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<8x16xi1>) outs(%ef : tensor<8x16xf32>) {
  ^bb0(%a: i1, %o: f32):
    %c = arith.uitofp %a : i1 to f32
    linalg.yield %c : f32
  } -> tensor<8x16xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%ef : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.mulf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x16xf32>) outs(%ef : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %qq = arith.truncf %q : f64 to f32
    %c = arith.divf %a, %qq : f32
    linalg.yield %c : f32
  } -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %res : tensor<8x16xf32>, tensor<8x16xf32>) outs(%ef : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

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
