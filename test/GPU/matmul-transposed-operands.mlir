// Matmuls read operands around their transposes (InPlaceOperands.cpp):
// torch-mlir's nn.Linear is x @ transpose(W) and AOTAutograd's weight
// gradient transpose(dY) @ x. The library call reads the stored matrix
// through CUBLAS_OP_T (trans_a / trans_b, lda / ldb of the stored shape)
// and the fallback kernel indexes it so; the transpose runs no kernel
// unless something else reads it. Other permutations keep their kernels.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: rm -rf %t && sinterc %s --no-fusion --target=cuda:sm_90a -o %t --quiet
// RUN: %python -c "import json,sys; [print(l['name'], l.get('trans_a', False), l.get('trans_b', False), l['lda'], l['ldb']) for f in json.load(open(sys.argv[1]))['functions'] for l in f['launches'] if l['kind'] == 'cublas_gemm']" %t/manifest.json | FileCheck %s --check-prefix=MANIFEST

// CHECK-LABEL: func.func @linear
// CHECK-NOT: @generic_
// CHECK: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}} args(%{{.*}} : memref<64x96xbf16>, %{{.*}} : memref<200x96xbf16>, %{{.*}} : memref<64x200xf32>)
// CHECK-SAME: trans_b
// CHECK-NOT: trans_a
// MANIFEST: matmul_0 False True 96 96
func.func @linear(%x: tensor<64x96xbf16>, %w: tensor<200x96xbf16>) -> tensor<64x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x200xbf16>
  %wt = linalg.transpose ins(%w : tensor<200x96xbf16>) outs(%e : tensor<96x200xbf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<64x200xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<64x200xf32>) -> tensor<64x200xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<64x96xbf16>, tensor<96x200xbf16>) outs(%z : tensor<64x200xf32>) -> tensor<64x200xf32>
  return %y : tensor<64x200xf32>
}

// The weight gradient dW = dY^T x.
// CHECK-LABEL: func.func @weight_grad
// CHECK-NOT: @generic_
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<64x200xf32>, %{{.*}} : memref<64x96xf32>, %{{.*}} : memref<200x96xf32>)
// CHECK-SAME: trans_a
// MANIFEST: matmul_{{[0-9]+}} True False 200 96
func.func @weight_grad(%dy: tensor<64x200xf32>, %x: tensor<64x96xf32>) -> tensor<200x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x64xf32>
  %dyt = linalg.transpose ins(%dy : tensor<64x200xf32>) outs(%e : tensor<200x64xf32>) permutation = [1, 0]
  %c = tensor.empty() : tensor<200x96xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<200x96xf32>) -> tensor<200x96xf32>
  %dw = linalg.matmul ins(%dyt, %x : tensor<200x64xf32>, tensor<64x96xf32>) outs(%z : tensor<200x96xf32>) -> tensor<200x96xf32>
  return %dw : tensor<200x96xf32>
}

// The same with the transpose also returned (AOTAutograd saves t(W) for
// the backward): it runs anyway, and the matmul reads its result.
// CHECK-LABEL: func.func @transpose_also_returned
// CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<64x200xf32>, %{{.*}} : memref<200x64xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<200x64xf32>, %{{.*}} : memref<64x96xf32>, %{{.*}} : memref<200x96xf32>)
// CHECK-NOT: trans_a
// MANIFEST: matmul_{{[0-9]+}} False False 64 96
func.func @transpose_also_returned(%dy: tensor<64x200xf32>, %x: tensor<64x96xf32>) -> (tensor<200x96xf32>, tensor<200x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x64xf32>
  %dyt = linalg.transpose ins(%dy : tensor<64x200xf32>) outs(%e : tensor<200x64xf32>) permutation = [1, 0]
  %c = tensor.empty() : tensor<200x96xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<200x96xf32>) -> tensor<200x96xf32>
  %dw = linalg.matmul ins(%dyt, %x : tensor<200x64xf32>, tensor<64x96xf32>) outs(%z : tensor<200x96xf32>) -> tensor<200x96xf32>
  return %dw, %dyt : tensor<200x96xf32>, tensor<200x64xf32>
}

// Batched, both operands transposed (d0, d2, d1), accumulating into C0.
// CHECK-LABEL: func.func @batched
// CHECK-NOT: @generic_
// CHECK: gpu.launch_func @sinter_kernels::@batch_matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<3x40x32xf16>, %{{.*}} : memref<3x56x40xf16>, %{{.*}} : memref<3x32x56xf16>, %{{.*}} : memref<3x32x56xf16>)
// CHECK-SAME: trans_a, trans_b
// MANIFEST: batch_matmul_{{[0-9]+}} True True 32 40
func.func @batched(%a: tensor<3x40x32xf16>, %b: tensor<3x56x40xf16>, %c0: tensor<3x32x56xf16>) -> tensor<3x32x56xf16> {
  %ea = tensor.empty() : tensor<3x32x40xf16>
  %at = linalg.transpose ins(%a : tensor<3x40x32xf16>) outs(%ea : tensor<3x32x40xf16>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<3x40x56xf16>
  %bt = linalg.transpose ins(%b : tensor<3x56x40xf16>) outs(%eb : tensor<3x40x56xf16>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%at, %bt : tensor<3x32x40xf16>, tensor<3x40x56xf16>) outs(%c0 : tensor<3x32x56xf16>) -> tensor<3x32x56xf16>
  return %r : tensor<3x32x56xf16>
}

// Must not: A's stored rows (33 f16) misaligned for cuBLASLt where its
// transposed copy's (40) are not: the copy runs and the GEMM reads it
// aligned; B (rows of 40) is still read in place.
// CHECK-LABEL: func.func @copy_aligns_rows
// CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<3x40x33xf16>, %{{.*}} : memref<3x33x40xf16>)
// CHECK: gpu.launch_func @sinter_kernels::@batch_matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<3x33x40xf16>, %{{.*}} : memref<3x50x40xf16>,
// CHECK-SAME: trans_b
// CHECK-NOT: trans_a
// MANIFEST: batch_matmul_{{[0-9]+}} False True 40 40
func.func @copy_aligns_rows(%a: tensor<3x40x33xf16>, %b: tensor<3x50x40xf16>, %c0: tensor<3x33x50xf16>) -> tensor<3x33x50xf16> {
  %ea = tensor.empty() : tensor<3x33x40xf16>
  %at = linalg.transpose ins(%a : tensor<3x40x33xf16>) outs(%ea : tensor<3x33x40xf16>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<3x40x50xf16>
  %bt = linalg.transpose ins(%b : tensor<3x50x40xf16>) outs(%eb : tensor<3x40x50xf16>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%at, %bt : tensor<3x33x40xf16>, tensor<3x40x50xf16>) outs(%c0 : tensor<3x33x50xf16>) -> tensor<3x33x50xf16>
  return %r : tensor<3x33x50xf16>
}

// Must not: a batch_matmul operand transposed across the batch (1, 0, 2).
// CHECK-LABEL: func.func @across_the_batch
// CHECK: gpu.launch_func @sinter_kernels::@generic_
// CHECK: gpu.launch_func @sinter_kernels::@batch_matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<2x16x24xf32>, %{{.*}} : memref<2x24x8xf32>
// CHECK-NOT: trans_a
// MANIFEST: batch_matmul_{{[0-9]+}} False False 24 8
func.func @across_the_batch(%a: tensor<16x2x24xf32>, %b: tensor<2x24x8xf32>, %c0: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %ea = tensor.empty() : tensor<2x16x24xf32>
  %at = linalg.transpose ins(%a : tensor<16x2x24xf32>) outs(%ea : tensor<2x16x24xf32>) permutation = [1, 0, 2]
  %r = linalg.batch_matmul ins(%at, %b : tensor<2x16x24xf32>, tensor<2x24x8xf32>) outs(%c0 : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  return %r : tensor<2x16x8xf32>
}
