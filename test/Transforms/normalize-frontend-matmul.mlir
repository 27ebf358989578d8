// RUN: sinter-opt %s --sinter-normalize-frontend -split-input-file | FileCheck %s

// GPT-2's Conv1D in a bf16 model, as torch-mlir 20261001 lowers `aten.addmm`
// (test/Frontends/Inputs/gpt2_eager_b2_bf16.linalg.mlir, lines 315-328): both
// operands widened to f32 by their own generics, then an f32 matmul. The
// matmul takes the bf16 tensors and the widening copies go away.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @addmm_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<64x256xbf16>, %[[W:.*]]: tensor<256x768xbf16>)
// CHECK-NOT: arith.extf
// CHECK: linalg.matmul ins(%[[A]], %[[W]] : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%{{.*}} : tensor<64x768xf32>)
// CHECK-NOT: arith.extf
func.func @addmm_bf16(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>) -> tensor<64x768xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x256xf32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x256xbf16>) outs(%e0 : tensor<64x256xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<256x768xf32>
  %w32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<256x768xbf16>) outs(%e1 : tensor<256x768xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<256x768xf32>
  %e2 = tensor.empty() : tensor<64x768xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x768xf32>) -> tensor<64x768xf32>
  %c = linalg.matmul ins(%a32, %w32 : tensor<64x256xf32>, tensor<256x768xf32>) outs(%acc : tensor<64x768xf32>) -> tensor<64x768xf32>
  return %c : tensor<64x768xf32>
}

// -----

// Only one operand widened (the other is an f32 tensor of the model): that
// operand is narrowed, the other kept; the batch form too.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_one_side
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x16xf16>, %[[B:.*]]: tensor<2x16x4xf32>)
// CHECK: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x8x16xf16>, tensor<2x16x4xf32>)
func.func @batch_one_side(%a: tensor<2x8x16xf16>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x8x16xf32>
  %a32 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<2x8x16xf16>) outs(%e0 : tensor<2x8x16xf32>) {
  ^bb0(%in: f16, %out: f32):
    %x = arith.extf %in : f16 to f32
    linalg.yield %x : f32
  } -> tensor<2x8x16xf32>
  %e2 = tensor.empty() : tensor<2x8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %c = linalg.batch_matmul ins(%a32, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %c : tensor<2x8x4xf32>
}

// -----

// Not rewritten: the widening generic also scales (not a plain copy), the
// other is transposed (not identity maps), and an f64 accumulator (the
// pattern narrows only into f32 accumulation, the tensor-core form).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf64>, tensor<8x4xf64>)
func.func @kept(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>, %c: tensor<4x8xf32>, %d: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf64>) {
  %zero = arith.constant 0.000000e+00 : f32
  %two = arith.constant 2.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xbf16>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %bt = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xbf16>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%a32, %bt : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %zero64 = arith.constant 0.000000e+00 : f64
  %c64 = arith.extf %c : tensor<4x8xf32> to tensor<4x8xf64>
  %d64 = arith.extf %d : tensor<8x4xf32> to tensor<8x4xf64>
  %e3 = tensor.empty() : tensor<4x4xf64>
  %acc64 = linalg.fill ins(%zero64 : f64) outs(%e3 : tensor<4x4xf64>) -> tensor<4x4xf64>
  %r64 = linalg.matmul ins(%c64, %d64 : tensor<4x8xf64>, tensor<8x4xf64>) outs(%acc64 : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %r, %r64 : tensor<4x4xf32>, tensor<4x4xf64>
}
