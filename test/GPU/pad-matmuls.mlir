// sinter-pad-matmuls: large matmuls whose stored rows are not 16-byte
// aligned are padded for cuBLASLt's aligned kernels; operands that are
// transposes are padded before the transpose (the matmul then reads them
// in place); one pad per value and shape; the result is sliced back.
// The shapes are GPT-2's lm_head at 64 tokens: logits, their input's
// gradient and the weight's gradient, over the 50257-word vocabulary.
//
// RUN: sinter-opt %s --sinter-pad-matmuls -split-input-file | FileCheck %s
// RUN: sinter-opt %s --sinter-pad-matmuls=min-flops=10000000000 -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: rm -rf %t && sinterc %s --no-fusion --target=cuda:sm_90a -o %t --quiet
// RUN: %python -c "import json,sys; [print(l['m'], l['n'], l['k'], l.get('trans_a', False), l.get('trans_b', False), l['lda'], l['ldb'], l['ldc']) for f in json.load(open(sys.argv[1]))['functions'] for l in f['launches'] if l['kind'] == 'cublas_gemm']" %t/manifest.json | FileCheck %s --check-prefix=MANIFEST

// Logits: x @ W^T. W's rows (768) are aligned; C's (50257 f32) are not:
// N is padded to 50264: 16-byte rows of 8 bf16 elements, since the f32
// product rounded to bf16 first is written in bf16 by its epilogue.
// CHECK-LABEL: func.func @logits
// CHECK: %[[WP:.*]] = tensor.pad %{{.*}} low[0, 0] high[7, 0]
// CHECK: tensor<50257x768xbf16> to tensor<50264x768xbf16>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WP]] : tensor<50264x768xbf16>)
// CHECK: %[[Y:.*]] = linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<64x768xbf16>, tensor<768x50264xbf16>) outs(%{{.*}} : tensor<64x50264xf32>)
// CHECK: tensor.extract_slice %[[Y]][0, 0] [64, 50257] [1, 1]
// SMALL-LABEL: func.func @logits
// SMALL-NOT: tensor.pad
// MANIFEST: 64 50264 768 False True 768 768 50264
func.func @logits(%x: tensor<64x768xbf16>, %w: tensor<50257x768xbf16>) -> tensor<64x50257xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<768x50257xbf16>
  %wt = linalg.transpose ins(%w : tensor<50257x768xbf16>) outs(%e : tensor<768x50257xbf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<64x50257xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<64x50257xf32>) -> tensor<64x50257xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<64x768xbf16>, tensor<768x50257xbf16>) outs(%z : tensor<64x50257xf32>) -> tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}

// -----

// The backward: dX = dL @ W (W saved transposed, W^T [768, 50257]) pads K,
// dW = dL^T @ x pads M (A a transpose: its rows are M); both read the one
// padded dL [64, 50264].
// CHECK-LABEL: func.func @lm_head_backward
// CHECK: %[[DLP:.*]] = tensor.pad %arg0 low[0, 0] high[0, 7]
// CHECK-NOT: tensor.pad %arg0
// CHECK: linalg.matmul ins(%[[DLP]], %{{.*}} : tensor<64x50264xbf16>, tensor<50264x768xbf16>)
// CHECK-NOT: tensor.pad %arg0
// CHECK: %[[DLT:.*]] = linalg.transpose ins(%[[DLP]] : tensor<64x50264xbf16>)
// CHECK: %[[DW:.*]] = linalg.matmul ins(%[[DLT]], %{{.*}} : tensor<50264x64xbf16>, tensor<64x768xbf16>) outs(%{{.*}} : tensor<50264x768xf32>)
// CHECK: tensor.extract_slice %[[DW]][0, 0] [50257, 768] [1, 1]
// MANIFEST: 64 768 50264 False True 50264 50264 768
// MANIFEST: 50264 768 64 True False 50264 768 768
func.func @lm_head_backward(%dl: tensor<64x50257xbf16>, %wt: tensor<768x50257xbf16>, %x: tensor<64x768xbf16>) -> (tensor<64x768xf32>, tensor<50257x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50257x768xbf16>
  %w = linalg.transpose ins(%wt : tensor<768x50257xbf16>) outs(%e : tensor<50257x768xbf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<64x768xf32>) -> tensor<64x768xf32>
  %dx = linalg.matmul ins(%dl, %w : tensor<64x50257xbf16>, tensor<50257x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %e2 = tensor.empty() : tensor<50257x64xbf16>
  %dlt = linalg.transpose ins(%dl : tensor<64x50257xbf16>) outs(%e2 : tensor<50257x64xbf16>) permutation = [1, 0]
  %c2 = tensor.empty() : tensor<50257x768xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%c2 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
  %dw = linalg.matmul ins(%dlt, %x : tensor<50257x64xbf16>, tensor<64x768xbf16>) outs(%z2 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
  return %dx, %dw : tensor<64x768xf32>, tensor<50257x768xf32>
}

// -----

// Must not: aligned rows, a small matmul (below min-flops), an
// accumulating init (C0 would need padding too).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.pad
// CHECK: return
// MANIFEST: 64 1024 768 False False 768 1024 1024
// MANIFEST: 16 9 33 False False 33 9 9
// MANIFEST: 64 50257 768 False False 768 50257 50257
// MANIFEST: 64 50264 768 False True 768 768 50264
func.func @left_alone(%x: tensor<64x768xbf16>, %w: tensor<768x1024xbf16>, %a: tensor<16x33xf32>, %b: tensor<33x9xf32>, %v: tensor<768x50257xbf16>, %c0: tensor<64x50257xf32>) -> (tensor<64x1024xf32>, tensor<16x9xf32>, tensor<64x50257xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = tensor.empty() : tensor<64x1024xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x768xbf16>, tensor<768x1024xbf16>) outs(%z : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %c2 = tensor.empty() : tensor<16x9xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%c2 : tensor<16x9xf32>) -> tensor<16x9xf32>
  %s = linalg.matmul ins(%a, %b : tensor<16x33xf32>, tensor<33x9xf32>) outs(%z2 : tensor<16x9xf32>) -> tensor<16x9xf32>
  %acc = linalg.matmul ins(%x, %v : tensor<64x768xbf16>, tensor<768x50257xbf16>) outs(%c0 : tensor<64x50257xf32>) -> tensor<64x50257xf32>
  return %y, %s, %acc : tensor<64x1024xf32>, tensor<16x9xf32>, tensor<64x50257xf32>
}

// -----

// A transpose in its generic form (TOSA's, or generalized) is padded
// before it too.
// CHECK-LABEL: func.func @generic_transpose
// CHECK: %[[WP:.*]] = tensor.pad %arg1 low[0, 0] high[7, 0]
// CHECK: linalg.transpose ins(%[[WP]] : tensor<50264x768xbf16>)
func.func @generic_transpose(%x: tensor<64x768xbf16>, %w: tensor<50257x768xbf16>) -> tensor<64x50257xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<768x50257xbf16>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<50257x768xbf16>) outs(%e : tensor<768x50257xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<768x50257xbf16>
  %c = tensor.empty() : tensor<64x50257xf32>
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<64x50257xf32>) -> tensor<64x50257xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<64x768xbf16>, tensor<768x50257xbf16>) outs(%z : tensor<64x50257xf32>) -> tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}

