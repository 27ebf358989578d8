// RUN: sinter-opt %s --sinter-fuse-elementwise=allow-rng-change=true --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-fuse-elementwise=allow-rng-change=true --split-input-file -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sinter-opt %s --sinter-fuse-elementwise --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=OFF --enable-var-scope
// RUN: sinter-opt %s --sinter-fuse-elementwise --split-input-file -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF-REMARK
// RUN: sinter-opt %s --sinter-fuse-elementwise="allow-rng-change=true fuse-single-ops=false" --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=NOSINGLE

// Dropout in elementwise chains. Drawn from the frontend's random generator
// it becomes sinter.dropout only with allow-rng-change (other random bits,
// same distribution); with a keep-mask tensor as input it is plain
// elementwise arithmetic and always fuses.

// The remarks in order, with the option and without it.
// REMARK: remark: fused elementwise: 1664 bytes
// REMARK: remark: fused dropout: 1024 bytes
// REMARK: remark: fused elementwise: 1024 bytes
// REMARK: remark: fused dropout: 2048 bytes
// REMARK: remark: fused elementwise: 2048 bytes
// REMARK: remark: fused dropout: 2048 bytes
// REMARK: remark: fused elementwise: 0 bytes
// REMARK: remark: fused dropout: 512 bytes
// REMARK: remark: fused elementwise: 1024 bytes
// REMARK: remark: fused elementwise: 1024 bytes
// REMARK-NOT: dropout
// OFF-REMARK: remark: fused elementwise: 1664 bytes
// OFF-REMARK: remark: not fused as dropout: raising it would change the random bits (the frontend's generator draws the mask, sinter.dropout uses Philox4x32-10: same distribution, other bits); pass allow-rng-change=true to raise it
// OFF-REMARK: remark: fused elementwise: 1024 bytes
// OFF-REMARK: remark: not fused as dropout: raising it would change
// OFF-REMARK: remark: fused elementwise: 2048 bytes
// OFF-REMARK: remark: not fused as dropout: raising it would change
// OFF-REMARK: remark: fused elementwise: 0 bytes
// OFF-REMARK: remark: not fused as dropout: raising it would change
// OFF-REMARK: remark: fused elementwise: 1024 bytes
// OFF-REMARK: remark: fused elementwise: 1024 bytes
// OFF-REMARK-NOT: dropout

// torch-mlir's aten.dropout(x, 0.1, train=True) + residual, canonicalized:
// aten.uniform as Squares64 of the row-major index keyed by
// torch_c.get_next_seed (the LCG step of the ml_program seed global), in
// f64; `u < 0.9`, uitofp, `mask * x`, `/ 0.9`. The generator goes, its seed
// (the LCG value) becomes the dropout's, and the chain is one sinter.fused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$SC:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @torch_dropout_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[R:[^:]*]]: tensor<8x16xf32>)
// CHECK: %[[SEED:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: ml_program.global_store
// CHECK-NOT: linalg.generic
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[R]], %[[SEED]] : tensor<8x16xf32>, tensor<8x16xf32>, i64) maps [#{{.*}}, #{{.*}}, #[[$SC]]] attributes {sinter.fusion = [{bytes_avoided = 1664 : i64, pattern = "elementwise"}, {bytes_avoided = 1024 : i64, pattern = "dropout"}]} {
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[RV:.*]]: f32, %[[SV:.*]]: i64):
// CHECK-NEXT: %[[D:.*]] = sinter.dropout %[[XV]], %[[SV]] p = 1.000000e-01 : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[D]], %[[RV]] : f32
// CHECK-NEXT: sinter.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<8x16xf32>
// CHECK-NEXT: return %[[F]]
// Without the option: the generator stays, the rest fuses as it was written.
// OFF-LABEL: func.func @torch_dropout_residual(
// OFF-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[R:[^:]*]]: tensor<8x16xf32>)
// OFF: %[[U:.*]] = linalg.generic
// OFF: arith.uitofp %{{.*}} : i64 to f64
// OFF: %[[F:.*]] = sinter.fused ins(%[[U]], %[[X]], %[[R]] : tensor<8x16xf64>, tensor<8x16xf32>, tensor<8x16xf32>)
// OFF: arith.cmpf olt
// OFF: arith.uitofp %{{.*}} : i1 to f32
// OFF-NOT: sinter.dropout
// OFF: return %[[F]]
module {
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
}

// -----

// Hand-written: one generic keeps `u >= 0.2` and scales by 1.25 in bf16
// (`select(keep, x * 1.25, 0)`), then a residual add; a 32-bit seed
// argument is widened to the dropout's i64 seed. The generator draws 24
// bits per element from a multiplicative hash.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select_bf16(
// CHECK-SAME: %[[X:[^:]*]]: tensor<16x32xbf16>, %[[R:[^:]*]]: tensor<16x32xbf16>, %[[S32:[^:]*]]: i32)
// CHECK: %[[S64:.*]] = arith.extui %[[S32]] : i32 to i64
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[R]], %[[S64]] : tensor<16x32xbf16>, tensor<16x32xbf16>, i64)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: bf16, %[[RV:.*]]: bf16, %[[SV:.*]]: i64):
// CHECK-NEXT: %[[D:.*]] = sinter.dropout %[[XV]], %[[SV]] p = 2.000000e-01 : bf16
// CHECK-NEXT: arith.addf %[[D]], %[[RV]] : bf16
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]
// OFF-LABEL: func.func @select_bf16(
// OFF: linalg.generic
// OFF: sinter.fused
// OFF: arith.select
// OFF-NOT: sinter.dropout
func.func @select_bf16(%x: tensor<16x32xbf16>, %res: tensor<16x32xbf16>, %seed: i32) -> tensor<16x32xbf16> {
  %eu = tensor.empty() : tensor<16x32xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c32 = arith.constant 32 : index
    %r = arith.muli %i, %c32 : index
    %lin = arith.addi %r, %j : index
    %ctr = arith.index_cast %lin : index to i32
    %h0 = arith.xori %ctr, %seed : i32
    %k1 = arith.constant -1640531535 : i32
    %h1 = arith.muli %h0, %k1 : i32
    %c8 = arith.constant 8 : i32
    %h2 = arith.shrui %h1, %c8 : i32
    %f = arith.uitofp %h2 : i32 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xbf16>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<16x32xf32>, tensor<16x32xbf16>) outs(%e : tensor<16x32xbf16>) {
  ^bb0(%uv: f32, %xv: bf16, %o: bf16):
    %p = arith.constant 2.000000e-01 : f32
    %keep = arith.cmpf oge, %uv, %p : f32
    %sc = arith.constant 1.250000e+00 : bf16
    %xs = arith.mulf %xv, %sc : bf16
    %z = arith.constant 0.000000e+00 : bf16
    %y = arith.select %keep, %xs, %z : bf16
    linalg.yield %y : bf16
  } -> tensor<16x32xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %res : tensor<16x32xbf16>, tensor<16x32xbf16>) outs(%e : tensor<16x32xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %0 = arith.addf %a, %b : bf16
    linalg.yield %0 : bf16
  } -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

// The drop decision compared the other way round (`u < 0.25` drops), the
// mask a select of zero and 1/(1 - p), multiplied after a GELU-like op: the
// dropped value is the op before the mask, whatever computes it.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @drop_select_mask(
// CHECK-SAME: %[[X:[^:]*]]: tensor<16x32xf32>, %[[S:[^:]*]]: i64)
// CHECK: sinter.fused ins(%[[X]], %[[S]] : tensor<16x32xf32>, i64)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[SV:.*]]: i64):
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[XV]] : f32
// CHECK-NEXT: %[[D:.*]] = sinter.dropout %[[T]], %[[SV]] p = 2.500000e-01 : f32
// CHECK-NEXT: sinter.yield %[[D]] : f32
func.func @drop_select_mask(%x: tensor<16x32xf32>, %seed: i64) -> tensor<16x32xf32> {
  %eu = tensor.empty() : tensor<16x32xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c32 = arith.constant 32 : i64
    %r = arith.muli %a, %c32 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %t = math.tanh %x : tensor<16x32xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %t : tensor<16x32xf32>, tensor<16x32xf32>) outs(%eu : tensor<16x32xf32>) {
  ^bb0(%uv: f32, %tv: f32, %o: f32):
    %p = arith.constant 2.500000e-01 : f32
    %drop = arith.cmpf olt, %uv, %p : f32
    %z = arith.constant 0.000000e+00 : f32
    %sc = arith.constant 1.33333337 : f32
    %m = arith.select %drop, %z, %sc : f32
    %y = arith.mulf %m, %tv : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

// A lone dropout whose seed the generator reads as a 0-d tensor operand:
// the seed is extracted before the fused op. With fuse-single-ops=false it
// is still raised (it replaces the generator too).
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @tensor_seed(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[ST:[^:]*]]: tensor<i64>)
// CHECK: %[[S:.*]] = tensor.extract %[[ST]][] : tensor<i64>
// CHECK: sinter.fused ins(%[[X]], %[[S]] : tensor<8x16xf32>, i64)
// CHECK: sinter.dropout %{{.*}}, %{{.*}} p = 5.000000e-01 : f32
// NOSINGLE-LABEL: func.func @tensor_seed(
// NOSINGLE: sinter.fused
// NOSINGLE: sinter.dropout
func.func @tensor_seed(%x: tensor<8x16xf32>, %seed: tensor<i64>) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#sc, #id], iterator_types = ["parallel", "parallel"]} ins(%seed : tensor<i64>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%sv: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %sv : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %p = arith.constant 5.000000e-01 : f32
    %keep = arith.cmpf ult, %uv, %p : f32
    %xs = arith.divf %xv, %p : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %keep, %xs, %z : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// The keep-mask given as an input tensor (f32 0/1, torch's
// `x * mask / (1 - p)`), then the residual: deterministic, no random bits
// to change, so it is one ordinary sinter.fused with or without the option
// and no dropout remark.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mask_input_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[M:[^:]*]]: tensor<8x16xf32>, %[[R:[^:]*]]: tensor<8x16xf32>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[M]], %[[R]] :
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[RV:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[XV]], %[[MV]] : f32
// CHECK: %[[D:.*]] = arith.divf %[[P]], %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.addf %[[D]], %[[RV]] : f32
// CHECK-NEXT: sinter.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]
// OFF-LABEL: func.func @mask_input_residual(
// OFF: sinter.fused
// OFF-NOT: linalg.generic
// OFF: return
func.func @mask_input_residual(%x: tensor<8x16xf32>, %mask: tensor<8x16xf32>, %res: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mask : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    %0 = arith.divf %a, %q : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %res : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// The keep-mask as an i1 input tensor: `select(mask, x / (1 - p), 0)` with
// the residual, written with arith ops on tensors.
// CHECK-LABEL: func.func @bool_mask_select(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[M:[^:]*]]: tensor<8x16xi1>, %[[R:[^:]*]]: tensor<8x16xf32>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[M]], %[[R]] : tensor<8x16xf32>, tensor<8x16xi1>, tensor<8x16xf32>)
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: arith.addf
// CHECK-NOT: sinter.dropout
// CHECK: return %[[F]]
func.func @bool_mask_select(%x: tensor<8x16xf32>, %mask: tensor<8x16xi1>, %res: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %q = arith.constant dense<0.899999976> : tensor<8x16xf32>
  %z = arith.constant dense<0.000000e+00> : tensor<8x16xf32>
  %xs = arith.divf %x, %q : tensor<8x16xf32>
  %d = arith.select %mask, %xs, %z : tensor<8x16xi1>, tensor<8x16xf32>
  %y = arith.addf %d, %res : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
