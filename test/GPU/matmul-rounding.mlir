// The rounding epilogue (MatmulEpilogue.cpp, splitMatmulRoundings): torch-mlir
// lowers the bf16 matmuls of AOTAutograd's training graphs (bench/train_gpt2.py
// under bf16 autocast, reduced) to f32-accumulating matmuls rounded to bf16
// before anything else. The rounding moves into the matmul (cuBLASLt's D in
// bf16, the fallback kernel storing bf16) and the chains read the bf16
// product; a chain that only rounded goes; reductions that only read the
// rounded product read it too, also through the slice that drops
// PadMatmuls' padding. Exact: one rounding per element as before.
//
// A bf16 addmm (the product rounded, then the bias added in bf16) instead
// rounds once, after the bias (roundBiasOnce), as torch's CUDA addmm does:
// one GEMM with cuBLASLt's bias epilogue, no chain.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="matmul=kernel" | FileCheck %s --check-prefix=KERNEL

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @addmm
// CHECK: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<64x768xbf16>) {sinter.library_call = {{{.*}}bias = 2 : i64{{.*}}kind = "cublas_gemm"
// CHECK-NOT: launch_func
// CHECK: return
// KERNEL-LABEL: func.func @addmm
// KERNEL: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}}: memref<64x768xf32>)
func.func @addmm(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> tensor<64x768xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%init : tensor<64x768xf32>) -> tensor<64x768xf32>
  %y = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id, #col] {
  ^bb0(%x: f32, %c: bf16):
    %r = arith.truncf %x : f32 to bf16
    %s = arith.addf %c, %r : bf16
    sinter.yield %s : bf16
  } -> tensor<64x768xbf16>
  return %y : tensor<64x768xbf16>
}

// A product rounded by one chain and read, rounded, by a max reduction:
// both read the bf16 product, the chain that only rounded goes.
// CHECK-LABEL: func.func @logits
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}: memref<64x1000xbf16>) {sinter.library_call
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@reduce_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x1000xbf16>
// CHECK-NOT: launch_func
// CHECK: return
func.func @logits(%a: tensor<64x256xbf16>, %w: tensor<256x1000xbf16>) -> (tensor<64x1000xbf16>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64x1000xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x1000xbf16>) outs(%init : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %l = sinter.fused ins(%acc : tensor<64x1000xf32>) maps [#id] {
  ^bb0(%x: f32):
    %r = arith.truncf %x : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<64x1000xbf16>
  %me = tensor.empty() : tensor<64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%me : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%acc : tensor<64x1000xf32>) outs(%m0 : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.truncf %x : f32 to bf16
    %w32 = arith.extf %r : bf16 to f32
    %mx = arith.maximumf %w32, %o : f32
    linalg.yield %mx : f32
  } -> tensor<64xf32>
  return %l, %m : tensor<64x1000xbf16>, tensor<64xf32>
}

// An f32 use of the product keeps it f32.
// CHECK-LABEL: func.func @also_f32
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}: memref<64x768xf32>)
func.func @also_f32(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>) -> (tensor<64x768xbf16>, tensor<64x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%init : tensor<64x768xf32>) -> tensor<64x768xf32>
  %y = sinter.fused ins(%acc : tensor<64x768xf32>) maps [#id] {
  ^bb0(%x: f32):
    %r = arith.truncf %x : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<64x768xbf16>
  %z = sinter.fused ins(%acc : tensor<64x768xf32>) maps [#id] {
  ^bb0(%x: f32):
    %s = arith.mulf %x, %x : f32
    sinter.yield %s : f32
  } -> tensor<64x768xf32>
  return %y, %z : tensor<64x768xbf16>, tensor<64x768xf32>
}

// A chain that does more than add the bias after the rounding keeps both
// roundings: the matmul takes the first, the chain the rest.
// CHECK-LABEL: func.func @addmm_then_more
// CHECK: gpu.launch_func @sinter_kernels::@matmul_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x256xbf16>, %{{.*}} : memref<256x768xbf16>, %{{.*}} : memref<64x768xbf16>) {sinter.library_call
// CHECK: gpu.launch_func @sinter_kernels::@fused_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64x768xbf16>, %{{.*}} : memref<768xbf16>
func.func @addmm_then_more(%a: tensor<64x256xbf16>, %w: tensor<256x768xbf16>, %b: tensor<768xbf16>) -> tensor<64x768xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %acc = linalg.matmul ins(%a, %w : tensor<64x256xbf16>, tensor<256x768xbf16>) outs(%init : tensor<64x768xf32>) -> tensor<64x768xf32>
  %y = sinter.fused ins(%acc, %b : tensor<64x768xf32>, tensor<768xbf16>) maps [#id, #col] {
  ^bb0(%x: f32, %c: bf16):
    %r = arith.truncf %x : f32 to bf16
    %s = arith.addf %c, %r : bf16
    %t = math.tanh %s : bf16
    sinter.yield %t : bf16
  } -> tensor<64x768xbf16>
  return %y : tensor<64x768xbf16>
}
