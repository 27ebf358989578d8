// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s

// The general path of the CUDA backend (the serial kernel): what real models
// leave between fused kernels runs there, one thread per output element.

// A convolution reads its input through d0 + d1 (a patch embedding's
// d2 * 16 + d5): the kernel computes the index with the affine map.
// CHECK-LABEL: func.func @convolution
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0
// CHECK-LABEL: gpu.func @reduce_0
// CHECK: arith.addi
// CHECK: memref.load
func.func @convolution(%x: tensor<18xf32>, %k: tensor<3xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.conv_1d ins(%x, %k : tensor<18xf32>, tensor<3xf32>) outs(%c : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// An embedding gather with torch-mlir's bounds asserts: the table is a
// kernel argument, the assert stays (CUDA's __assertfail at run time).
// CHECK-LABEL: func.func @embedding
// CHECK: gpu.launch_func @sinter_kernels::@generic_0 {{.*}} args(%{{.*}} : memref<2x8xi64>, %{{.*}} : memref<512x16xf32>, %{{.*}} : memref<2x8x16xf32>)
// CHECK-LABEL: gpu.func @generic_0
// CHECK: cf.assert
// CHECK: memref.load
func.func @embedding(%ids: tensor<2x8xi64>, %table: tensor<512x16xf32>) -> tensor<2x8x16xf32> {
  %c512 = arith.constant 512 : index
  %e = tensor.empty() : tensor<2x8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x8xi64>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %ok = arith.cmpi slt, %i, %c512 : index
    cf.assert %ok, "index must be smaller than dim size"
    %v = tensor.extract %table[%i, %j] : tensor<512x16xf32>
    linalg.yield %v : f32
  } -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

// -----

// The cross-entropy's target logit gathered from logits sliced out of
// their padded product (torch-mlir's gather, with the forward saving the
// padded product): the kernel reads the product at the slice's offsets
// (sinter-tensor-ops-to-linalg), so no kernel copies the slice out.
// CHECK-LABEL: func.func @gather_from_slice
// CHECK-NOT: @extract_slice_
// CHECK: gpu.launch_func @sinter_kernels::@generic_0 {{.*}} args(%{{.*}} : memref<4x1xi64>, %{{.*}} : memref<4x16xf32>, %{{.*}} : memref<4x1xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @generic_0
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: arith.addi %{{.*}}, %[[C2]] : index
// CHECK: memref.load %{{.*}} : memref<64xf32>
func.func @gather_from_slice(%padded: tensor<4x16xf32>, %target: tensor<4x1xi64>) -> tensor<4x1xf32> {
  %logits = tensor.extract_slice %padded[0, 2] [4, 13] [1, 1] : tensor<4x16xf32> to tensor<4x13xf32>
  %e = tensor.empty() : tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%target : tensor<4x1xi64>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%t: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %t : i64 to index
    %v = tensor.extract %logits[%i, %j] : tensor<4x13xf32>
    linalg.yield %v : f32
  } -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// A concat of booleans (HF's position checks) becomes a gathering
// generic: each half read at a clamped index, the right one selected.
// (Other concats run one elementwise kernel per part: outline-concat.mlir.)
// CHECK-LABEL: func.func @concat
// CHECK: gpu.launch_func @sinter_kernels::@generic_0
// CHECK-LABEL: gpu.func @generic_0
// CHECK-DAG: arith.minsi
// CHECK-DAG: arith.maxsi
// CHECK: arith.select
func.func @concat(%a: tensor<4x8xi1>, %b: tensor<4x8xi1>) -> tensor<4x16xi1> {
  %c = tensor.concat dim(1) %a, %b : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x16xi1>
  return %c : tensor<4x16xi1>
}

// -----

// A boolean reduction (HF's "all keys masked" check) on i1 elements.
// CHECK-LABEL: func.func @all_i1
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0
func.func @all_i1(%x: tensor<4x64xi1>) -> tensor<4xi1> {
  %t = arith.constant true
  %e = tensor.empty() : tensor<4xi1>
  %f = linalg.fill ins(%t : i1) outs(%e : tensor<4xi1>) -> tensor<4xi1>
  %r = linalg.reduce { arith.andi } ins(%x : tensor<4x64xi1>) outs(%f : tensor<4xi1>) dimensions = [1]
  return %r : tensor<4xi1>
}

// -----

// Softmax over a leading axis: the row kernel holds the trailing one, so
// it becomes a max and a sum over the axis (the general path's column
// reductions, ColumnReduction.cpp: 2 blocks of 32 columns, one chunk of
// the 128 rows; their fills folded into the accumulators) and a
// normalizing elementwise kernel; each body applies the scale and reads
// the mask through its broadcast map.
// CHECK-LABEL: func.func @softmax_dim0
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c2, {{.*}} args(%{{.*}} : memref<128x64xbf16>, %{{.*}} : memref<1x64xf32>, %{{.*}} : memref<64xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_1 {{.*}} args(%{{.*}} : memref<128x64xbf16>, %{{.*}} : memref<1x64xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@generic_2
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @reduce_0
// CHECK: arith.maximumf
// CHECK-LABEL: gpu.func @reduce_1
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-LABEL: gpu.func @generic_2
// CHECK: arith.divf
// CHECK: arith.truncf
func.func @softmax_dim0(%x: tensor<128x64xbf16>, %m: tensor<1x64xf32>) -> tensor<128x64xbf16> {
  %y = sinter.softmax %x dim 0 mask(%m : tensor<1x64xf32>) {scale = 5.000000e-01 : f32} : tensor<128x64xbf16>
  return %y : tensor<128x64xbf16>
}

// -----

// GELU-tanh's x**3 as torch-mlir lowers it (an i64 exponent): the kernel
// calls fpowi with the i32 exponent libdevice's __nv_powif takes, clamped
// with its parity kept.
// CHECK-LABEL: func.func @cube
// CHECK: gpu.func
// CHECK: arith.maxsi
// CHECK: %[[E:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: math.fpowi %{{.*}}, %[[E]] : f32, i32
func.func @cube(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %c3 = arith.constant 3 : i64
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c3 : f32, i64
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// GPT-2's query heads as torch-mlir lowers them (gpt2_sdpa_b2_bf16, lines
// 67-73): a slice of the fused QKV projection, split into heads and
// transposed. The split moves before the slice, and the transpose reads
// the projection in place at the slice's offset: no copy kernel.
// CHECK-LABEL: func.func @query_heads
// CHECK-NOT: @extract_slice
// CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<2x32x12x64xbf16>, %{{.*}} : memref<2x4x32x64xbf16>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @query_heads(%qkv: tensor<2x32x768xbf16>) -> tensor<2x4x32x64xbf16> {
  %s = tensor.extract_slice %qkv[0, 0, 256] [2, 32, 256] [1, 1, 1] : tensor<2x32x768xbf16> to tensor<2x32x256xbf16>
  %e = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [2, 32, 4, 64] : tensor<2x32x256xbf16> into tensor<2x32x4x64xbf16>
  %init = tensor.empty() : tensor<2x4x32x64xbf16>
  %t = linalg.transpose ins(%e : tensor<2x32x4x64xbf16>) outs(%init : tensor<2x4x32x64xbf16>) permutation = [0, 2, 1, 3]
  return %t : tensor<2x4x32x64xbf16>
}
