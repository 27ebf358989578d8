// Leftover matmuls become cuBLASLt library calls with the CUDA-core kernel
// as their fallback (option matmul of sinter-outline-cuda-kernels and
// sinter-lower-to-nvvm, sinterc --cuda-matmul; docs/Manifest.md). No GPU
// needed: the artifacts go through ptxas.

// The launch carries the call; matmul=kernel leaves the kernel alone.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s --check-prefix=IR
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="matmul=kernel" | FileCheck %s --check-prefix=KERNEL --implicit-check-not=sinter.library_call
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa matmul=kernel" | FileCheck %s --check-prefix=KERNEL --implicit-check-not=sinter.library_call
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="matmul=cublasLt" 2>&1 | FileCheck %s --check-prefix=BAD

// The manifest (format 2): one entry written out in full, the others
// summarized; the fallback kernels are in the cubin either way.
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t/cublas --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/cublas/manifest.json
// RUN: %python %S/Inputs/summarize_launches.py %t/cublas/manifest.json | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=PTX < %t/cublas/kernels.ptx
// RUN: sinterc %s --target=cuda:sm_80 -o %t/sm80 --quiet
// RUN: %python %S/Inputs/summarize_launches.py %t/sm80/manifest.json | FileCheck %s --check-prefix=SUMMARY
// RUN: sinterc %s --target=cuda:sm_90a -o %t/kernel --quiet --cuda-matmul=kernel
// RUN: %python %S/Inputs/summarize_launches.py %t/kernel/manifest.json | FileCheck %s --check-prefix=NOLIB --implicit-check-not=cublas_gemm
// RUN: FileCheck %s --check-prefix=PTX < %t/kernel/kernels.ptx
// RUN: not sinterc %s --target=cuda:sm_90a -o %t/bad --quiet --cuda-matmul=cublasLt 2>&1 | FileCheck %s --check-prefix=BAD

// IR-LABEL: func.func @mm_bf16
// IR: gpu.launch_func @sinter_kernels::@matmul_0 {{.*}} args({{.*}} : memref<127x257xbf16>, {{.*}} : memref<257x65xbf16>, {{.*}} : memref<127x65xbf16>) {sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 1 : i64, c = 2 : i64, k = 257 : i64, kind = "cublas_gemm", m = 127 : i64, n = 65 : i64}}
// IR-LABEL: func.func @bmm_f16_acc
// IR: gpu.launch_func @sinter_kernels::@batch_matmul_1 {{.*}} args({{.*}} : memref<3x127x257xf16>, {{.*}} : memref<3x257x65xf16>, {{.*}} : memref<3x127x65xf16>, {{.*}} : memref<3x127x65xf16>) {sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 3 : i64, c = 3 : i64, c_init = 2 : i64, k = 257 : i64, kind = "cublas_gemm", m = 127 : i64, n = 65 : i64}}
// IR-LABEL: func.func @mm_bf16_to_f32
// IR: gpu.launch_func @sinter_kernels::@matmul_2 {{.*}} {sinter.library_call = {{{.*}}kind = "cublas_gemm"
// IR-LABEL: func.func @mm_f32
// IR: gpu.launch_func @sinter_kernels::@matmul_3 {{.*}} {sinter.library_call = {{{.*}}kind = "cublas_gemm"
// A non-zero fill has no cuBLASLt form, nor do these type mixes.
// IR-LABEL: func.func @mm_fill_one
// IR-NOT: sinter.library_call
// IR-LABEL: func.func @mm_f16_bf16
// IR-NOT: sinter.library_call
// IR-LABEL: func.func @mm_f32_to_bf16
// IR-NOT: sinter.library_call
// IR-LABEL: func.func @mlp
// IR: gpu.launch_func @sinter_kernels::@generic_
// IR: gpu.launch_func @sinter_kernels::@matmul_{{.*}}sinter.library_call
// IR: gpu.launch_func @sinter_kernels::@generic_

// KERNEL-COUNT-8: gpu.launch_func @sinter_kernels::@{{(batch_)?}}matmul_

// BAD: bad matmul 'cublasLt': expected 'cublas' or 'kernel'

// MANIFEST: "format_version": 6,
// MANIFEST: "name": "mm_bf16"
// MANIFEST: "launches": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "cublas_gemm",
// MANIFEST-NEXT: "name": "matmul_0",
// MANIFEST-NEXT: "layout": "row-major",
// MANIFEST-NEXT: "m": 127,
// MANIFEST-NEXT: "n": 65,
// MANIFEST-NEXT: "k": 257,
// MANIFEST-NEXT: "batch": 1,
// MANIFEST-NEXT: "a": {
// MANIFEST-NEXT: "arg": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "b": {
// MANIFEST-NEXT: "arg": 1
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "c": {
// MANIFEST-NEXT: "arg": 2
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "accumulate": false,
// MANIFEST-NEXT: "alpha": 1,
// MANIFEST-NEXT: "beta": 0,
// MANIFEST-NEXT: "a_dtype": "bfloat16",
// MANIFEST-NEXT: "b_dtype": "bfloat16",
// MANIFEST-NEXT: "c_dtype": "bfloat16",
// MANIFEST-NEXT: "compute_dtype": "float32",
// MANIFEST-NEXT: "lda": 257,
// MANIFEST-NEXT: "ldb": 65,
// MANIFEST-NEXT: "ldc": 65,
// MANIFEST-NEXT: "stride_a": 32639,
// MANIFEST-NEXT: "stride_b": 16705,
// MANIFEST-NEXT: "stride_c": 8255,
// MANIFEST-NEXT: "fallback": {
// MANIFEST-NEXT: "kind": "kernel",
// MANIFEST-NEXT: "kernel": "matmul_0",
// MANIFEST-NEXT: "grid": [
// MANIFEST-NEXT: 4,
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arg": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arg": 1
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arg": 2
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: }
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ]

// SUMMARY: mm_bf16: cublas_gemm matmul_0 m=127 n=65 k=257 batch=1 a=arg0 b=arg1 c=arg2 accumulate=False beta=0 bfloat16 x bfloat16 -> bfloat16 (float32) ld=257,65,65 stride=32639,16705,8255 fallback=matmul_0[arg0,arg1,arg2]
// SUMMARY: bmm_f16_acc: cublas_gemm batch_matmul_1 m=127 n=65 k=257 batch=3 a=arg0 b=arg1 c=arg3 c_init=arg2 accumulate=True beta=1 float16 x float16 -> float16 (float32) ld=257,65,65 stride=32639,16705,8255 fallback=batch_matmul_1[arg0,arg1,arg2,arg3]
// SUMMARY: mm_bf16_to_f32: cublas_gemm matmul_2 m=64 n=48 k=32 batch=1 a=arg0 b=arg1 c=arg2 accumulate=False beta=0 bfloat16 x bfloat16 -> float32 (float32)
// SUMMARY: mm_f32: cublas_gemm matmul_3 m=256 n=2304 k=768 batch=1 a=arg0 b=arg1 c=arg2 accumulate=False beta=0 float32 x float32 -> float32 (float32) ld=768,2304,2304
// SUMMARY: mm_fill_one: kernel matmul_4
// SUMMARY: mm_f16_bf16: kernel matmul_5
// SUMMARY: mm_f32_to_bf16: kernel matmul_6
// Operands between kernels are temps; the bias add is the GEMM's epilogue
// (test/GPU/matmul-epilogue.mlir), which writes the result.
// SUMMARY: mlp: kernel {{.*}}
// SUMMARY-NEXT: mlp: cublas_gemm matmul_{{[0-9]+}} m=100 n=200 k=96 batch=1 a=temp0 b=arg1 c=arg3 bias=arg2:float32 accumulate=False beta=0 float32 x float32 -> float32
// SUMMARY-NOT: mlp:

// NOLIB: mm_bf16: kernel matmul_0
// NOLIB: bmm_f16_acc: kernel batch_matmul_1
// NOLIB: mm_f32: kernel matmul_3

// PTX-COUNT-8: .entry {{(batch_)?}}matmul_

func.func @mm_bf16(%a: tensor<127x257xbf16>, %b: tensor<257x65xbf16>) -> tensor<127x65xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<127x65xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<127x65xbf16>) -> tensor<127x65xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<127x257xbf16>, tensor<257x65xbf16>) outs(%z : tensor<127x65xbf16>) -> tensor<127x65xbf16>
  return %r : tensor<127x65xbf16>
}

func.func @bmm_f16_acc(%a: tensor<3x127x257xf16>, %b: tensor<3x257x65xf16>, %c0: tensor<3x127x65xf16>) -> tensor<3x127x65xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x127x257xf16>, tensor<3x257x65xf16>) outs(%c0 : tensor<3x127x65xf16>) -> tensor<3x127x65xf16>
  return %r : tensor<3x127x65xf16>
}

func.func @mm_bf16_to_f32(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%z : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

func.func @mm_f32(%a: tensor<256x768xf32>, %b: tensor<768x2304xf32>) -> tensor<256x2304xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x2304xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x2304xf32>) -> tensor<256x2304xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x768xf32>, tensor<768x2304xf32>) outs(%z : tensor<256x2304xf32>) -> tensor<256x2304xf32>
  return %r : tensor<256x2304xf32>
}

func.func @mm_fill_one(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %z = linalg.fill ins(%one : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%z : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

func.func @mm_f16_bf16(%a: tensor<64x32xf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xbf16>) outs(%z : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

func.func @mm_f32_to_bf16(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x48xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<64x48xbf16>) -> tensor<64x48xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%z : tensor<64x48xbf16>) -> tensor<64x48xbf16>
  return %r : tensor<64x48xbf16>
}

// tanh(x) x w + b: A comes from a kernel and C goes to one (temps).
func.func @mlp(%x: tensor<100x96xf32>, %w: tensor<96x200xf32>, %bias: tensor<200xf32>) -> tensor<100x200xf32> {
  %e0 = tensor.empty() : tensor<100x96xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<100x96xf32>) outs(%e0 : tensor<100x96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<100x96xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x200xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x200xf32>) -> tensor<100x200xf32>
  %mm = linalg.matmul ins(%h, %w : tensor<100x96xf32>, tensor<96x200xf32>) outs(%z : tensor<100x200xf32>) -> tensor<100x200xf32>
  %e2 = tensor.empty() : tensor<100x200xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<100x200xf32>, tensor<200xf32>) outs(%e2 : tensor<100x200xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<100x200xf32>
  return %y : tensor<100x200xf32>
}
