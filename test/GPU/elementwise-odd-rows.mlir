// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s

// Rows of odd length (GPT-2's 50257-word logits): the elementwise kernel
// keeps 16-byte slots (4 f32) that may run into the next row. The input of
// the iteration's shape is one aligned vector load at the slot's linear
// index; a row-broadcast input is loaded for the slot's row and the next
// and selected per lane (lanes past column 12 wrap into the next row);
// the result is one vector store.
// CHECK-LABEL: gpu.func @fused_0
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: arith.cmpi uge, %{{.*}}, %c13{{.*}} : index
// CHECK: vector.load %{{.*}}[%[[FIRST]]] {alignment = 16 : i64} : memref<52xf32>, vector<4xf32>
// CHECK: %[[HERE:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK: %[[NEXT:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK: arith.select %{{.*}}, %[[NEXT]], %[[HERE]] : f32
// CHECK: vector.store %{{.*}}[%[[FIRST]]] {alignment = 16 : i64} : memref<52xf32>, vector<4xf32>
func.func @odd_rows(%x: tensor<4x13xf32>, %s: tensor<4x1xf32>) -> tensor<4x13xf32> {
  %y = sinter.fused ins(%x, %s : tensor<4x13xf32>, tensor<4x1xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>] {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    sinter.yield %m : f32
  } -> tensor<4x13xf32>
  return %y : tensor<4x13xf32>
}

// Must not: rows shorter than a 16-byte slot (3 f32) stay element by
// element (a slot would span more than two rows).
// CHECK-LABEL: gpu.func @fused_1
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: gpu.return
func.func @short_rows(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %y = sinter.fused ins(%x : tensor<8x3xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    sinter.yield %n : f32
  } -> tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}
