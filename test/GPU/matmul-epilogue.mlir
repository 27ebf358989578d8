// A bf16 linear layer with a bias, as the fusion pipeline leaves torch-mlir
// 20261001's GPT-2 Conv1D (test/Frontends/Inputs/gpt2_sdpa_b2_bf16.linalg.mlir
// after normalize-frontend and fusion, reduced): the f32-accumulating matmul
// takes the bias chain as its epilogue, one launch whose library call has
// cuBLASLt's bias epilogue and whose fallback kernel adds the bias itself.
// The bias, a bf16 weight widened to f32 by its own chain, is read narrow
// (cuBLASLt's bias has D's type): the widening chain goes.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="matmul=kernel" | FileCheck %s --check-prefix=KERNEL
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear
// CHECK-NOT: @fused_0
// CHECK: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<64x768xbf16>) {sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 1 : i64, bias = 2 : i64, c = 3 : i64, k = 256 : i64, kind = "cublas_gemm", m = 64 : i64, n = 768 : i64}}
// CHECK-NOT: gpu.launch_func
// CHECK: return
// A chain that is not a bias add stays a kernel of its own.
// CHECK-LABEL: func.func @scaled
// CHECK: gpu.launch_func @sinter_kernels::@matmul_1
// CHECK: gpu.launch_func @sinter_kernels::@fused_2
// The fallback kernel: + bias[n] in f32, one rounding to bf16 at the store.
// CHECK: gpu.func @matmul_0
// CHECK: arith.addf
// CHECK: arith.truncf {{.*}} to vector<1xbf16>
// KERNEL-LABEL: func.func @linear
// KERNEL: gpu.launch_func @sinter_kernels::@fused_0
// KERNEL: gpu.launch_func @sinter_kernels::@matmul_1
// KERNEL: gpu.launch_func @sinter_kernels::@fused_2
// MANIFEST: "kind": "cublas_gemm"
// MANIFEST: "bias": {
// MANIFEST-NEXT: "arg": 2
// MANIFEST: "bias_dtype": "bfloat16"
// MANIFEST: "c_dtype": "bfloat16"
func.func @linear(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> tensor<64x768xbf16> {
  %bias = sinter.fused ins(%b : tensor<768xbf16>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%v: bf16):
    %w32 = arith.extf %v : bf16 to f32
    sinter.yield %w32 : f32
  } -> tensor<768xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %y = sinter.fused ins(%acc, %bias : tensor<64x768xf32>, tensor<768xf32>) maps [#id, #col] {
  ^bb0(%x: f32, %c: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.truncf %s : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<64x768xbf16>
  return %y : tensor<64x768xbf16>
}

func.func @scaled(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %scale: tensor<768xf32>) -> tensor<64x768xbf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%z : tensor<64x768xf32>) -> tensor<64x768xf32>
  %y = sinter.fused ins(%acc, %scale : tensor<64x768xf32>, tensor<768xf32>) maps [#id, #col] {
  ^bb0(%x: f32, %c: f32):
    %s = arith.mulf %x, %c : f32
    %r = arith.truncf %s : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<64x768xbf16>
  return %y : tensor<64x768xbf16>
}
