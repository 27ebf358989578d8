// RUN: sinter-opt %s --sinter-fuse-elementwise --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --enable-var-scope

// Must-not-fuse cases for sinter-fuse-elementwise.

// A reduction inside the chain (softmax's exp -> sum -> divide): the exp and
// the divide are separate fused ops, the reduction stays between them.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduction_in_chain(
// CHECK: %[[E:.*]] = sinter.fused
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[E]] :
// CHECK: %[[D:.*]] = sinter.fused ins(%[[E]], %[[S]] :
// CHECK: arith.divf
// CHECK: return %[[D]]
func.func @reduction_in_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{fused elementwise: 0 bytes}}
  %ex = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  // expected-remark @below {{not fused as elementwise: a non-elementwise op lies between the ops}}
  // expected-remark @below {{fused elementwise: 0 bytes}}
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %d: f32, %o: f32):
    %0 = arith.divf %in, %d : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A matmul between two elementwise ops: never fused across.
// CHECK-LABEL: func.func @matmul_in_chain(
// CHECK: %[[A:.*]] = sinter.fused
// CHECK: math.tanh
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]],
// CHECK: %[[B:.*]] = sinter.fused ins(%[[M]] :
// CHECK: return %[[B]]
func.func @matmul_in_chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{fused elementwise}}
  %t = math.tanh %x : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%t, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{fused elementwise}}
  %y = math.exp %m : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The consumer reads the producer transposed: one pass cannot compute both,
// so they stay separate (the transposed read is a map of the second op).
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transposed_read(
// CHECK: %[[A:.*]] = sinter.fused
// CHECK: math.exp
// CHECK: %[[B:.*]] = sinter.fused ins(%[[A]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) maps [#{{.*}}, #{{.*}}]
// CHECK: return %[[B]]
func.func @transposed_read(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @below {{fused elementwise}}
  %a = math.exp %x : tensor<8x8xf32>
  // expected-remark @below {{not fused as elementwise: an elementwise producer is read through a broadcast or transpose map}}
  // expected-remark @below {{fused elementwise}}
  %b = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %yy: f32, %o: f32):
    %0 = arith.addf %in, %yy : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// A producer of another shape that is broadcast by the consumer (a [8] row
// scale feeding a [4, 8] op) is computed once, not recomputed per row.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_producer(
// CHECK: %[[S:.*]] = sinter.fused ins(%{{.*}} : tensor<8xf32>)
// CHECK: %[[Y:.*]] = sinter.fused ins(%{{.*}}, %[[S]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: return %[[Y]]
func.func @broadcast_producer(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{fused elementwise}}
  %s2 = math.sqrt %s : tensor<8xf32>
  // expected-remark @below {{not fused as elementwise}}
  // expected-remark @below {{fused elementwise}}
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s2 : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.mulf %in, %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An intermediate used by a non-elementwise op placed before the end of the
// chain: the chain is cut there, and every value stays correct.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @intermediate_used_early(
// CHECK: %[[A:.*]] = sinter.fused
// CHECK: math.exp
// CHECK: %[[R:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[A]] :
// CHECK: %[[B:.*]] = sinter.fused ins(%[[A]] :
// CHECK: return %[[B]], %[[R]]
func.func @intermediate_used_early(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %two = arith.constant dense<2.000000e+00> : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{fused elementwise}}
  %a = math.exp %x : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  // expected-remark @below {{not fused as elementwise: an intermediate is used by an op that precedes the end of the chain}}
  // expected-remark @below {{fused elementwise}}
  %b = arith.mulf %a, %two : tensor<4x8xf32>
  return %b, %r : tensor<4x8xf32>, tensor<4xf32>
}
