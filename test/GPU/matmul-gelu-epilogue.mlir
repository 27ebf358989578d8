// GPT-2's MLP as the fusion pipeline leaves torch-mlir 20261001's bf16
// forward and backward graphs (the real partitions of bench/train_gpt2.py,
// reduced to 64 tokens): the matmul that produces the pre-activation takes
// the GELU chain as its activation (cuBLASLt's GELU_AUX_BIAS: the saved
// pre-activation is its aux output), and the matmul that produces the
// gradient of the GELU's output takes the chain of GELU's derivative
// (DGELU, the saved pre-activation its aux input). Both chains are
// recognized by what they compute (GeluEpilogue.cpp): the forward's bf16
// arithmetic with bf16-rounded constants, the backward's f32 derivative.
// Another GELU (x * sigmoid(1.702 x)) and a chain read by something else
// too stay kernels of their own.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="matmul=kernel" | FileCheck %s --check-prefix=KERNEL
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t --quiet --no-fusion
// RUN: %python %S/Inputs/summarize_launches.py %t/manifest.json | FileCheck %s --check-prefix=MANIFEST

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @mlp_forward
// CHECK: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<2x32x768xbf16>, %{{.*}} : memref<64x768xbf16>) {sinter.library_call = {a = 0 : i64, activation = "gelu_tanh", aux = 4 : i64, b = 1 : i64, batch = 1 : i64, bias = 2 : i64, c = 3 : i64, k = 256 : i64, kind = "cublas_gemm", m = 64 : i64, n = 768 : i64}}
// CHECK-NOT: gpu.launch_func
// CHECK: return
// KERNEL-LABEL: func.func @mlp_forward
// KERNEL: gpu.launch_func @sinter_kernels::@matmul_0
// KERNEL: gpu.launch_func @sinter_kernels::@fused_1
// KERNEL: gpu.launch_func @sinter_kernels::@fused_2
// MANIFEST: mlp_forward: cublas_gemm matmul_0 m=64 n=768 k=256 batch=1 a=arg0 b=arg1 c=arg3 bias=arg2:bfloat16 activation=gelu_tanh aux=arg4
// MANIFEST-NOT: mlp_forward: kernel
func.func @mlp_forward(%x: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> (tensor<64x768xbf16>, tensor<2x32x768xbf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %h = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id2, #col] {
  ^bb0(%a: f32, %c: bf16):
    %t = arith.truncf %a : f32 to bf16
    %s = arith.addf %c, %t : bf16
    sinter.yield %s : bf16
  } -> tensor<64x768xbf16>
  %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [2, 32, 768] : tensor<64x768xbf16> into tensor<2x32x768xbf16>
  %g = sinter.fused ins(%h3 : tensor<2x32x768xbf16>) maps [#id3] {
  ^bb0(%v: bf16):
    %half = arith.constant 5.000000e-01 : bf16
    %one = arith.constant 1.000000e+00 : bf16
    %scale = arith.constant 7.968750e-01 : bf16
    %cubic = arith.constant 4.467770e-02 : bf16
    %c3 = arith.constant 3 : i64
    %p = math.fpowi %v, %c3 : bf16, i64
    %q = arith.mulf %p, %cubic : bf16
    %r = arith.addf %v, %q : bf16
    %u = arith.mulf %r, %scale : bf16
    %th = math.tanh %u : bf16
    %s1 = arith.addf %th, %one : bf16
    %s2 = arith.mulf %s1, %half : bf16
    %y = arith.mulf %v, %s2 : bf16
    sinter.yield %y : bf16
  } -> tensor<2x32x768xbf16>
  %g2 = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x32x768xbf16> into tensor<64x768xbf16>
  return %g2, %h3 : tensor<64x768xbf16>, tensor<2x32x768xbf16>
}

// Inference: nothing else reads the pre-activation, so no aux output.
// CHECK-LABEL: func.func @mlp_inference
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<64x768xbf16>) {sinter.library_call = {a = 0 : i64, activation = "gelu_tanh", b = 1 : i64, batch = 1 : i64, bias = 2 : i64, c = 3 : i64
// CHECK-NOT: gpu.launch_func
// CHECK: return
// MANIFEST: mlp_inference: cublas_gemm matmul_{{[0-9]+}} {{.*}} bias=arg2:bfloat16 activation=gelu_tanh accumulate
func.func @mlp_inference(%x: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> tensor<64x768xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %h = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id2, #col] {
  ^bb0(%a: f32, %c: bf16):
    %c32 = arith.extf %c : bf16 to f32
    %s = arith.addf %a, %c32 : f32
    %t = arith.truncf %s : f32 to bf16
    sinter.yield %t : bf16
  } -> tensor<64x768xbf16>
  %g = sinter.fused ins(%h : tensor<64x768xbf16>) maps [#id2] {
  ^bb0(%v: bf16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %scale = arith.constant 0.797884583 : f32
    %cubic = arith.constant 4.471500e-02 : f32
    %v32 = arith.extf %v : bf16 to f32
    %sq = arith.mulf %v32, %v32 : f32
    %p = arith.mulf %sq, %v32 : f32
    %q = arith.mulf %p, %cubic : f32
    %r = arith.addf %v32, %q : f32
    %u = arith.mulf %r, %scale : f32
    %th = math.tanh %u : f32
    %s1 = arith.addf %th, %one : f32
    %s2 = arith.mulf %s1, %half : f32
    %y = arith.mulf %v32, %s2 : f32
    %y16 = arith.truncf %y : f32 to bf16
    sinter.yield %y16 : bf16
  } -> tensor<64x768xbf16>
  return %g : tensor<64x768xbf16>
}

// The backward: dG = dY W2 rounded, read by the derivative's chain alone
// beside the saved pre-activation %h (torch-mlir's gelu_backward, tanh).
// CHECK-LABEL: func.func @mlp_backward
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<2x32x768xbf16>, %{{.*}} : memref<2x32x768xbf16>) {sinter.library_call = {a = 0 : i64, activation = "gelu_tanh_grad", aux = 2 : i64, b = 1 : i64, batch = 1 : i64, c = 3 : i64
// CHECK-NOT: gpu.launch_func
// CHECK: return
// MANIFEST: mlp_backward: cublas_gemm matmul_{{[0-9]+}} {{.*}} c=arg3 activation=gelu_tanh_grad aux=arg2 accumulate=False
func.func @mlp_backward(%dy: tensor<64x256xbf16>, %w2: tensor<256x768xbf16>, %h: tensor<2x32x768xbf16>) -> tensor<2x32x768xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%dy, %w2 : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %d = sinter.fused ins(%acc : tensor<64x768xf32>) maps [#id2] {
  ^bb0(%a: f32):
    %t = arith.truncf %a : f32 to bf16
    sinter.yield %t : bf16
  } -> tensor<64x768xbf16>
  %d3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [2, 32, 768] : tensor<64x768xbf16> into tensor<2x32x768xbf16>
  %dh = sinter.fused ins(%h, %d3 : tensor<2x32x768xbf16>, tensor<2x32x768xbf16>) maps [#id3, #id3] {
  ^bb0(%arg252: bf16, %arg253: bf16):
    %cst_626 = arith.constant 0.797884583 : f32
    %cst_627 = arith.constant 1.000000e+00 : f32
    %cst_628 = arith.constant 4.471500e-02 : f32
    %cst_629 = arith.constant 1.341450e-01 : f32
    %cst_630 = arith.constant 5.000000e-01 : f32
    %363 = arith.extf %arg252 : bf16 to f32
    %364 = arith.mulf %363, %363 : f32
    %365 = arith.mulf %363, %cst_630 : f32
    %366 = arith.mulf %364, %363 : f32
    %367 = arith.mulf %364, %cst_629 : f32
    %368 = arith.mulf %366, %cst_628 : f32
    %369 = arith.addf %367, %cst_627 : f32
    %370 = arith.addf %363, %368 : f32
    %371 = arith.mulf %369, %cst_626 : f32
    %372 = arith.mulf %370, %cst_626 : f32
    %373 = math.tanh %372 : f32
    %374 = arith.addf %373, %cst_627 : f32
    %375 = arith.mulf %373, %373 : f32
    %376 = arith.mulf %374, %cst_630 : f32
    %377 = arith.subf %cst_627, %375 : f32
    %378 = arith.mulf %365, %377 : f32
    %379 = arith.mulf %378, %371 : f32
    %380 = arith.addf %376, %379 : f32
    %381 = arith.extf %arg253 : bf16 to f32
    %382 = arith.mulf %381, %380 : f32
    %383 = arith.truncf %382 : f32 to bf16
    sinter.yield %383 : bf16
  } -> tensor<2x32x768xbf16>
  return %dh : tensor<2x32x768xbf16>
}

// x * sigmoid(1.702 x) is another GELU: not cuBLASLt's.
// CHECK-LABEL: func.func @sigmoid_gelu
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 1 : i64, bias = 2 : i64
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// MANIFEST: sigmoid_gelu: cublas_gemm
// MANIFEST-NOT: activation
// MANIFEST: sigmoid_gelu: kernel fused_
func.func @sigmoid_gelu(%x: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> tensor<64x768xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %h = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id2, #col] {
  ^bb0(%a: f32, %c: bf16):
    %c32 = arith.extf %c : bf16 to f32
    %s = arith.addf %a, %c32 : f32
    %t = arith.truncf %s : f32 to bf16
    sinter.yield %t : bf16
  } -> tensor<64x768xbf16>
  %g = sinter.fused ins(%h : tensor<64x768xbf16>) maps [#id2] {
  ^bb0(%v: bf16):
    %one = arith.constant 1.000000e+00 : f32
    %k = arith.constant -1.702000e+00 : f32
    %v32 = arith.extf %v : bf16 to f32
    %kv = arith.mulf %v32, %k : f32
    %ex = math.exp %kv : f32
    %den = arith.addf %ex, %one : f32
    %y = arith.divf %v32, %den : f32
    %y16 = arith.truncf %y : f32 to bf16
    sinter.yield %y16 : bf16
  } -> tensor<64x768xbf16>
  return %g : tensor<64x768xbf16>
}

// Fusion's one chain for the bias and the GELU (no reshape between them):
// split into the epilogue's and the activation's, which the matmul takes.
// CHECK-LABEL: func.func @merged_chain
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}sinter.library_call = {a = 0 : i64, activation = "gelu_tanh", aux = 4 : i64, b = 1 : i64, batch = 1 : i64, bias = 2 : i64
// CHECK-NOT: gpu.launch_func
// CHECK: return
// MANIFEST: merged_chain: cublas_gemm matmul_{{[0-9]+}} {{.*}} bias=arg2:bfloat16 activation=gelu_tanh aux=arg4
// MANIFEST-NOT: merged_chain: kernel
func.func @merged_chain(%x: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> (tensor<64x768xbf16>, tensor<64x768xbf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %hg:2 = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id2, #col] {
  ^bb0(%a: f32, %c: bf16):
    %half = arith.constant 5.000000e-01 : bf16
    %one = arith.constant 1.000000e+00 : bf16
    %scale = arith.constant 7.968750e-01 : bf16
    %cubic = arith.constant 4.467770e-02 : bf16
    %c3 = arith.constant 3 : i64
    %t = arith.truncf %a : f32 to bf16
    %h = arith.addf %c, %t : bf16
    %p = math.fpowi %h, %c3 : bf16, i64
    %q = arith.mulf %p, %cubic : bf16
    %r = arith.addf %h, %q : bf16
    %u = arith.mulf %r, %scale : bf16
    %th = math.tanh %u : bf16
    %s1 = arith.addf %th, %one : bf16
    %s2 = arith.mulf %s1, %half : bf16
    %y = arith.mulf %h, %s2 : bf16
    sinter.yield %h, %y : bf16, bf16
  } -> tensor<64x768xbf16>, tensor<64x768xbf16>
  return %hg#1, %hg#0 : tensor<64x768xbf16>, tensor<64x768xbf16>
}

// Must not split: a chain that adds a residual (a 2-D tensor, not a bias
// over the columns) before its GELU is no matmul epilogue; it stays one
// kernel after the plain GEMM, never two.
// CHECK-LABEL: func.func @residual_then_gelu
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 1 : i64, c = 2 : i64
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// CHECK-NOT: gpu.launch_func
// CHECK: return
// MANIFEST: residual_then_gelu: cublas_gemm
// MANIFEST-NOT: activation
// MANIFEST-NEXT: residual_then_gelu: kernel fused_
// MANIFEST-NOT: residual_then_gelu
func.func @residual_then_gelu(%x: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %res: tensor<64x768xbf16>) -> tensor<64x768xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %g = sinter.fused ins(%acc, %res : tensor<64x768xf32>, tensor<64x768xbf16>) maps [#id2, #id2] {
  ^bb0(%a: f32, %c: bf16):
    %half = arith.constant 5.000000e-01 : bf16
    %one = arith.constant 1.000000e+00 : bf16
    %scale = arith.constant 7.968750e-01 : bf16
    %cubic = arith.constant 4.467770e-02 : bf16
    %c3 = arith.constant 3 : i64
    %t = arith.truncf %a : f32 to bf16
    %h = arith.addf %c, %t : bf16
    %p = math.fpowi %h, %c3 : bf16, i64
    %q = arith.mulf %p, %cubic : bf16
    %r = arith.addf %h, %q : bf16
    %u = arith.mulf %r, %scale : bf16
    %th = math.tanh %u : bf16
    %s1 = arith.addf %th, %one : bf16
    %s2 = arith.mulf %s1, %half : bf16
    %y = arith.mulf %h, %s2 : bf16
    sinter.yield %y : bf16
  } -> tensor<64x768xbf16>
  return %g : tensor<64x768xbf16>
}
