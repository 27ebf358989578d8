// The kernels as they were built before the defaults changed (four
// vectors per thread in row kernels, AdamW blocks not persistent): the
// structure checked below; test/GPU/persistent.mlir checks the defaults.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-vectors=4 adamw-persistent=0" --split-input-file | FileCheck %s

// A norm becomes buffers, one launch and a kernel that reads the row with
// 16-byte vector loads and reduces across the row with shuffles.
// CHECK-LABEL: func.func @rms
// CHECK-SAME: (%[[X:.*]]: tensor<16x4096xbf16>, %[[W:.*]]: tensor<4096xbf16>)
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only
// CHECK-DAG: %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK-DAG: %[[Y:.*]] = memref.alloc() : memref<16x4096xbf16>
// CHECK-DAG: %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK-DAG: %[[GRID:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[BLOCK]], %{{.*}}, %{{.*}}) args(%[[XB]] : memref<16x4096xbf16>, %[[WB]] : memref<4096xbf16>, %[[Y]] : memref<16x4096xbf16>, %[[R]] : memref<16xf32>)
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: %[[RT:.*]] = bufferization.to_tensor %[[R]] restrict writable
// CHECK: return %[[YT]], %[[RT]]
// CHECK: gpu.module @sinter_kernels
// CHECK: gpu.func @rms_norm_0({{.*}}) workgroup({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-COUNT-4: vector.load {{.*}} {alignment = 16 : i64} : memref<65536xbf16>, vector<8xbf16>
// CHECK: gpu.shuffle xor
// CHECK: math.rsqrt
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 16 : i64} : memref<65536xbf16>, vector<8xbf16>
func.func @rms(%x: tensor<16x4096xbf16>, %w: tensor<4096xbf16>) -> (tensor<16x4096xbf16>, tensor<16xf32>) {
  %y, %r = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<16x4096xbf16> -> tensor<16x4096xbf16> rstd(tensor<16xf32>)
  return %y, %r : tensor<16x4096xbf16>, tensor<16xf32>
}

// -----

// Rows longer than one warp's share reduce across warps in shared memory;
// a ragged row (3000 = 375 x 8 over 128 lanes) masks the last vector of each thread.
// CHECK-LABEL: func.func @layer_norm_ragged
// CHECK: gpu.func @layer_norm_0
// CHECK-SAME: workgroup(%[[S0:.*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[S1:.*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.cmpi ult, %{{.*}}, %c375
// CHECK: scf.if
// CHECK: vector.load
// CHECK: memref.store %{{.*}}, %[[S0]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[S1]]
// CHECK: gpu.barrier
func.func @layer_norm_ragged(%x: tensor<7x3000xbf16>, %w: tensor<3000xbf16>, %b: tensor<3000xbf16>) -> tensor<7x3000xbf16> {
  %y = sinter.layer_norm %x weight(%w : tensor<3000xbf16>) bias(%b : tensor<3000xbf16>) : tensor<7x3000xbf16> -> tensor<7x3000xbf16>
  return %y : tensor<7x3000xbf16>
}

// -----

// A fused chain: the bias is broadcast along rows (one vector load at the
// column), the body runs once per element, the result is one vector store.
// bf16 results allow the hardware tanh approximation.
// CHECK-LABEL: func.func @bias_tanh
// CHECK: gpu.launch_func @sinter_kernels::@fused_0
// CHECK: gpu.func @fused_0
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<256xbf16>, vector<8xbf16>
// CHECK-COUNT-8: llvm.intr.tanh
// CHECK: vector.from_elements
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK-NOT: math.tanh
func.func @bias_tanh(%x: tensor<64x256xbf16>, %b: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %y = sinter.fused ins(%x, %b : tensor<64x256xbf16>, tensor<256xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%xv: bf16, %bv: bf16):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %bv : bf16 to f32
    %s = arith.addf %a, %c : f32
    %g = math.tanh %s : f32
    %r = arith.truncf %g : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

// -----

// f32 results keep the accurate tanh; a transposed operand is gathered.
// CHECK-LABEL: func.func @transposed_f32
// CHECK: gpu.func @fused_0
// CHECK-COUNT-4: memref.load
// CHECK: math.tanh
// CHECK-NOT: llvm.intr.tanh
func.func @transposed_f32(%x: tensor<8x16xf32>, %t: tensor<16x8xf32>) -> tensor<8x16xf32> {
  %y = sinter.fused ins(%x, %t : tensor<8x16xf32>, tensor<16x8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    %g = math.tanh %s : f32
    sinter.yield %g : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Unfused leftovers run too: the matmul (whose zero fill folds into its
// kernel), then the bias+tanh generic and the transpose as elementwise
// kernels; the fill and the empties disappear.
// CHECK-LABEL: func.func @unfused
// CHECK-NOT: linalg.
// CHECK: gpu.launch_func @sinter_kernels::@matmul_0
// CHECK: gpu.launch_func @sinter_kernels::@generic_1
// CHECK: gpu.launch_func @sinter_kernels::@generic_2
// CHECK-NOT: linalg.
// CHECK: tensor.expand_shape
// CHECK: gpu.func @matmul_0({{.*}}) workgroup(%{{.*}} : memref<64x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: gpu.func @generic_1
// CHECK: math.tanh
// CHECK: gpu.func @generic_2
// CHECK-COUNT-4: memref.load
func.func @unfused(%x: tensor<100x96xf32>, %w: tensor<96x200xf32>, %b: tensor<200xf32>) -> tensor<200x2x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x200xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x200xf32>) -> tensor<100x200xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<100x96xf32>, tensor<96x200xf32>) outs(%z : tensor<100x200xf32>) -> tensor<100x200xf32>
  %e2 = tensor.empty() : tensor<100x200xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<100x200xf32>, tensor<200xf32>) outs(%e2 : tensor<100x200xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %g = math.tanh %s : f32
    linalg.yield %g : f32
  } -> tensor<100x200xf32>
  %e3 = tensor.empty() : tensor<200x100xf32>
  %tr = linalg.transpose ins(%h : tensor<100x200xf32>) outs(%e3 : tensor<200x100xf32>) permutation = [1, 0]
  %r = tensor.expand_shape %tr [[0], [1, 2]] output_shape [200, 2, 50] : tensor<200x100xf32> into tensor<200x2x50xf32>
  return %r : tensor<200x2x50xf32>
}

// -----

// Dropout inside a fused chain: one Philox4x32-10 call (10 rounds of two
// 32x32->64 multiplies, 19 multiply-highs after the first round's zero
// folds) per eight elements (a bf16 slot), two 16-bit draws
// per word: keep = draw >= floor(p * 2^16), the low half shifted up.
// CHECK-LABEL: func.func @dropout_residual
// CHECK: gpu.func @fused_0
// CHECK: arith.divui %{{.*}}, %c8_i64
// CHECK-COUNT-19: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: arith.shli %{{.*}}, %c16_i32{{.*}}
// CHECK: arith.cmpi uge, %{{.*}}, %c429457408_i32{{.*}} : i32
// CHECK: arith.select
// CHECK: arith.cmpi uge, %{{.*}}, %c429457408_i32{{.*}} : i32
func.func @dropout_residual(%x: tensor<64x256xbf16>, %r: tensor<64x256xbf16>, %seed: i64) -> tensor<64x256xbf16> {
  %y = sinter.fused ins(%x, %r, %seed : tensor<64x256xbf16>, tensor<64x256xbf16>, i64) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%xv: bf16, %rv: bf16, %s: i64):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %rv : bf16 to f32
    %d = sinter.dropout %a, %s p = 0.1 : f32
    %o = arith.addf %d, %c : f32
    %t = arith.truncf %o : f32 to bf16
    sinter.yield %t : bf16
  } -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
