// RUN: sinter-opt %s --sinter-fuse-elementwise --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-fuse-elementwise="fuse-single-ops=false" --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=NOSINGLE

// Matmul bias add + erf-GELU as torch-mlir emits them (one generic per aten
// op, the bias broadcast by its map): one sinter.fused reading the bias
// through (d0, d1) -> (d1); the biased intermediate is not written.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_gelu_erf(
// CHECK-SAME: %[[X:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[B]] : tensor<16x64xf32>, tensor<64xf32>) maps [#{{.*}}, #{{.*}}] attributes {sinter.fusion = [{bytes_avoided = 4096 : i64, pattern = "elementwise"}]} {
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[BV:.*]]: f32):
// CHECK: %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : f32
// CHECK: math.erf
// CHECK: sinter.yield %{{.*}} : f32
// CHECK-NEXT: } -> tensor<16x64xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]
// NOSINGLE-LABEL: func.func @bias_gelu_erf
// NOSINGLE: sinter.fused
func.func @bias_gelu_erf(%x: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %0 = arith.addf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<16x64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %rs2 = arith.constant 0.707106769 : f32
    %0 = arith.mulf %in, %rs2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %in, %2 : f32
    %4 = arith.mulf %3, %half : f32
    linalg.yield %4 : f32
  } -> tensor<16x64xf32>
  return %g : tensor<16x64xf32>
}

// -----

// tanh-GELU written with named linalg ops and arith ops on tensors, bf16
// storage with f32 math; splat constants become body constants.
// CHECK-LABEL: func.func @gelu_tanh_named(
// CHECK-SAME: %[[X:.*]]: tensor<8x32xbf16>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]] : tensor<8x32xbf16>) maps [#{{.*}}] attributes {sinter.fusion = [{bytes_avoided = 10240 : i64, pattern = "elementwise"}]} {
// CHECK-DAG: arith.constant 4.471500e-02 : f32
// CHECK-DAG: arith.extf
// CHECK: math.tanh
// CHECK: arith.truncf
// CHECK: sinter.yield %{{.*}} : bf16
// CHECK-NEXT: } -> tensor<8x32xbf16>
// CHECK-NEXT: return %[[F]]
func.func @gelu_tanh_named(%xb: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %c = arith.constant dense<4.471500e-02> : tensor<8x32xf32>
  %k = arith.constant dense<0.797884583> : tensor<8x32xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<8x32xf32>
  %half = arith.constant dense<5.000000e-01> : tensor<8x32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %x = arith.extf %xb : tensor<8x32xbf16> to tensor<8x32xf32>
  %x2 = linalg.mul ins(%x, %x : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %x3 = linalg.mul ins(%x2, %x : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %t0 = arith.mulf %x3, %c : tensor<8x32xf32>
  %t1 = linalg.add ins(%x, %t0 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %t2 = arith.mulf %t1, %k : tensor<8x32xf32>
  %t3 = math.tanh %t2 : tensor<8x32xf32>
  %t4 = arith.addf %t3, %one : tensor<8x32xf32>
  %t5 = arith.mulf %x, %t4 : tensor<8x32xf32>
  %t6 = arith.mulf %t5, %half : tensor<8x32xf32>
  %y = arith.truncf %t6 : tensor<8x32xf32> to tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// -----

// SiLU gating of a LLaMA MLP: silu(gate) * up, sigmoid as 1 / (1 + exp(-x)).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu_gate(
// CHECK-SAME: %[[G:.*]]: tensor<4x128xf32>, %[[U:.*]]: tensor<4x128xf32>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[G]], %[[U]] : tensor<4x128xf32>, tensor<4x128xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: sinter.yield
// CHECK-NOT: linalg
// CHECK: return %[[F]]
func.func @silu_gate(%gate: tensor<4x128xf32>, %up: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %e = tensor.empty() : tensor<4x128xf32>
  %one = arith.constant 1.000000e+00 : f32
  %sig = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.negf %in : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.divf %one, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x128xf32>
  %silu = linalg.mul ins(%gate, %sig : tensor<4x128xf32>, tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  %y = linalg.mul ins(%silu, %up : tensor<4x128xf32>, tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  return %y : tensor<4x128xf32>
}

// -----

// Residual chain whose intermediate is also returned: it becomes a second
// result of the fused op (written once, not recomputed).
// CHECK-LABEL: func.func @residual_multi_result(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x8x16xf32>, %[[B:[^:]*]]: tensor<2x8x16xf32>, %[[C:[^:]*]]: tensor<2x8x16xf32>)
// CHECK: %[[F:.*]]:2 = sinter.fused ins(%[[A]], %[[B]], %[[C]] :
// CHECK: %[[S1:.*]] = arith.addf
// CHECK: %[[S2:.*]] = arith.addf %[[S1]]
// CHECK: sinter.yield %[[S1]], %[[S2]] : f32, f32
// CHECK: -> tensor<2x8x16xf32>, tensor<2x8x16xf32>
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @residual_multi_result(%a: tensor<2x8x16xf32>, %b: tensor<2x8x16xf32>, %c: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %h = linalg.add ins(%a, %b : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.add ins(%h, %c : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o, %h : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}

// -----

// A single bias add is wrapped too (default), unless fuse-single-ops=false;
// a lone transpose (data movement only) is left alone, while a transpose
// feeding a chain becomes the map of the chain's input.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$TR:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @single_ops(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<8x4xf32>, %[[B:[^:]*]]: tensor<4xf32>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield
// CHECK: %[[F:.*]] = sinter.fused ins(%[[Y]], %[[B]] : tensor<8x4xf32>, tensor<4xf32>)
// CHECK: %[[G:.*]] = sinter.fused ins(%[[X]], %[[B]] : tensor<4x8xf32>, tensor<4xf32>) maps [#[[$TR]], #{{.*}}]
// CHECK: arith.mulf
// CHECK: return %[[T]], %[[F]], %[[G]]
// NOSINGLE-LABEL: func.func @single_ops(
// NOSINGLE: linalg.generic
// NOSINGLE: linalg.generic
// NOSINGLE-NOT: linalg.generic
// NOSINGLE: sinter.fused
// NOSINGLE-NOT: sinter.fused
// NOSINGLE: return
func.func @single_ops(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x4xf32>
  %yb = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %0 = arith.addf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  %t2 = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%t2, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %0 = arith.mulf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  return %t, %yb, %g : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// linalg.map and linalg.elementwise members.
// CHECK-LABEL: func.func @map_and_elementwise(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<4x8xf32>)
// CHECK: %[[F:.*]] = sinter.fused ins(%[[X]], %[[Y]] :
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[YV:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[XV]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[YV]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT: sinter.yield %[[T]] : f32
// CHECK: return %[[F]]
func.func @map_and_elementwise(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.map { math.exp } ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  %b = linalg.map ins(%a, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
    (%l: f32, %r: f32, %o: f32) {
      %s = arith.addf %l, %r : f32
      linalg.yield %s : f32
    }
  %c = linalg.elementwise kind=#linalg.elementwise_kind<tanh> ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
