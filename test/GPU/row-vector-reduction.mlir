// A warp per row reads its row as vectors (RowVectorReduction.cpp) when
// every input the reduced dimension reaches reads it innermost, from rows
// that start on a vector boundary: lane l takes vectors l, l + 32, ...
// (two a trip while both are in range, then one), then the points past the
// last whole vector one a lane. No GPU needed.
// RUN: sinter-opt %s --pass-pipeline='builtin.module(sinter-outline-cuda-kernels{chip=sm_90a})' | FileCheck %s

// GPT-2's statistics in small: a bf16 slice of 1025 of 1032 columns at
// column 0 (rows of 1032 start on 16 bytes): 128 vectors of 8, the 1025th
// point alone (one lane; no unrolled loop for a single point).
// CHECK-LABEL: gpu.func @reduce_0(
// CHECK: scf.for {{.*}} to %c96 step %c64
// CHECK-COUNT-2: vector.load {{.*}} : memref<4128xbf16>, vector<8xbf16>
// CHECK: scf.for {{.*}} to %c128{{.*}} step %c32
// CHECK: vector.load {{.*}} : memref<4128xbf16>, vector<8xbf16>
// CHECK: scf.for {{.*}} to %c1 step %c32
// CHECK: arith.addi {{.*}}, %c1024
// CHECK: memref.load {{.*}} : memref<4128xbf16>
// CHECK-NOT: scf.for
// CHECK: gpu.shuffle

// A bf16 row and an f32 vector of the row's length: the common width is
// 4 (16 bytes of f32, 8 of bf16).
// CHECK-LABEL: gpu.func @reduce_1(
// CHECK: scf.for {{.*}} to %c224 step %c64
// CHECK: vector.load {{.*}} : memref<4096xbf16>, vector<4xbf16>
// CHECK: vector.load {{.*}} : memref<1024xf32>, vector<4xf32>

// A slice at column 3: its rows start between vectors, one bf16 a load.
// CHECK-LABEL: gpu.func @reduce_2(
// CHECK-NOT: vector.load
// CHECK: gpu.return

// The slice returned too: the kernel writes the copy as it reads, and a
// lane's stores must stay adjacent to its neighbours' (NOTES, session 7):
// scalar loads.
// CHECK-LABEL: gpu.func @reduce_3(
// CHECK-NOT: vector.load
// CHECK: gpu.return

#x = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @sliced_tail(%p: tensor<4x1032xbf16>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %n = arith.addf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @mixed_widths(%x: tensor<4x1024xbf16>, %w: tensor<1024xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x, #col, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<4x1024xbf16>, tensor<1024xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: bf16, %v: f32, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %m = arith.mulf %a, %v : f32
    %n = arith.addf %m, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @misaligned_slice(%p: tensor<4x1032xbf16>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[0, 3] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %n = arith.addf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @sliced_copy(%p: tensor<4x1032xbf16>) -> (tensor<4xf32>, tensor<4x1025xbf16>) {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %n = arith.addf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4x1025xbf16>
}
