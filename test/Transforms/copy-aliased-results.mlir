// RUN: sinter-opt %s -sinter-copy-aliased-results | FileCheck %s
// RUN: rm -rf %t && sinterc %s --target=cpu -o %t --quiet
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t --quiet

// Each returned tensor gets its own value: a returned argument, a constant,
// a value returned twice and a reshape of an earlier result are copied
// (graphs from torch.compile return all of these; the CPU pipeline crashed
// in upstream buffer-results-to-out-params on them, CUDA refused them).

// CHECK-LABEL: func.func @aliases
// CHECK-SAME: (%[[A:.*]]: tensor<4x2xf32>)
// CHECK: %[[E:.*]] = math.exp %[[A]]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[E]]
// CHECK: %[[CA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x2xf32>)
// CHECK: %[[CE:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4x2xf32>)
// CHECK: %[[CR:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<8xf32>)
// CHECK: %[[CC:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x2xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK: return %[[CA]], %[[E]], %[[CE]], %[[CR]], %[[CC]]
func.func @aliases(%a: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<8xf32>, tensor<4x2xf32>) {
  %e = math.exp %a : tensor<4x2xf32>
  %r = tensor.collapse_shape %e [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %c = arith.constant dense<1.0> : tensor<4x2xf32>
  return %a, %e, %e, %r, %c : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<8xf32>, tensor<4x2xf32>
}

// A function whose results are distinct values is left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @distinct(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = math.exp %a : tensor<4xf32>
  %l = math.log %a : tensor<4xf32>
  return %e, %l : tensor<4xf32>, tensor<4xf32>
}
