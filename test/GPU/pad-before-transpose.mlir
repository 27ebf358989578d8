// RUN: sinter-opt %s --sinter-pad-matmuls | FileCheck %s

// A weight padded after its transpose (the forward that saves the padded
// logits, python/sinter/torch/_padded_saves.py, pads W^T): the source is
// padded and transposed again, so the matmul reads the transpose in place
// rather than a kernel writing the transposed pad.
// CHECK-LABEL: func.func @pad_of_transpose
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0] high[3, 0]
// CHECK: } : tensor<13x16xbf16> to tensor<16x16xbf16>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<16x16xbf16>) {{.*}} permutation = [1, 0]
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<32x16xbf16>, tensor<16x16xbf16>)
// CHECK-NOT: tensor.pad
func.func @pad_of_transpose(%x: tensor<32x16xbf16>, %w: tensor<13x16xbf16>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<16x13xbf16>
  %t = linalg.transpose ins(%w : tensor<13x16xbf16>) outs(%e : tensor<16x13xbf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : bf16
  %p = tensor.pad %t low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : bf16
  } : tensor<16x13xbf16> to tensor<16x16xbf16>
  %cst = arith.constant 0.0 : f32
  %oe = tensor.empty() : tensor<32x16xf32>
  %o = linalg.fill ins(%cst : f32) outs(%oe : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.matmul ins(%x, %p : tensor<32x16xbf16>, tensor<16x16xbf16>) outs(%o : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
