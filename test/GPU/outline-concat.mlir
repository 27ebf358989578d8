// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s

// A concatenation runs as one elementwise kernel per part, each storing
// into the concatenation's buffer at its offset (lib/GPU/ConcatKernel.cpp):
// the first allocates it, the others write it in place; a part's producer
// runs in its kernel when nothing else reads it.

// GPT-2's backward joins dQ, dK, dV through their transposes to [B, S,
// H*D] (reduced from its real IR): three kernels over the heads' [B, S, H,
// D], each reading its gradient in vectors and storing vectors into the
// joined buffer; no transpose or gather kernel.
// CHECK-LABEL: func.func @qkv_gradient
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2x4x384xbf16>
// CHECK: gpu.launch_func @sinter_kernels::@concat_0 {{.*}} args(%{{.*}} : memref<2x2x4x64xbf16>, %[[BUF]] : memref<2x4x384xbf16>)
// CHECK: %[[T1:.*]] = bufferization.to_tensor %[[BUF]]
// CHECK: %[[B1:.*]] = bufferization.to_buffer %[[T1]] : tensor<2x4x384xbf16>
// CHECK: gpu.launch_func @sinter_kernels::@concat_0_1 {{.*}} args(%{{.*}} : memref<2x2x4x64xbf16>, %[[B1]] : memref<2x4x384xbf16>)
// CHECK: %[[T2:.*]] = bufferization.to_tensor %[[B1]]
// CHECK: %[[B2:.*]] = bufferization.to_buffer %[[T2]] : tensor<2x4x384xbf16>
// CHECK: gpu.launch_func @sinter_kernels::@concat_0_2 {{.*}} args(%{{.*}} : memref<2x2x4x64xbf16>, %[[B2]] : memref<2x4x384xbf16>)
// CHECK: %[[T3:.*]] = bufferization.to_tensor %[[B2]]
// CHECK-NOT: gpu.launch_func
// CHECK: return %[[T3]]
// CHECK-LABEL: gpu.func @concat_0_1
// CHECK: vector.load {{.*}} vector<8xbf16>
// CHECK: %[[OFF:.*]] = arith.constant 128 : index
// CHECK: vector.store {{.*}} vector<8xbf16>
func.func @qkv_gradient(%dq: tensor<2x2x4x64xbf16>, %dk: tensor<2x2x4x64xbf16>, %dv: tensor<2x2x4x64xbf16>) -> tensor<2x4x384xbf16> {
  %e = tensor.empty() : tensor<2x4x2x64xbf16>
  %tq = linalg.transpose ins(%dq : tensor<2x2x4x64xbf16>) outs(%e : tensor<2x4x2x64xbf16>) permutation = [0, 2, 1, 3]
  %tk = linalg.transpose ins(%dk : tensor<2x2x4x64xbf16>) outs(%e : tensor<2x4x2x64xbf16>) permutation = [0, 2, 1, 3]
  %tv = linalg.transpose ins(%dv : tensor<2x2x4x64xbf16>) outs(%e : tensor<2x4x2x64xbf16>) permutation = [0, 2, 1, 3]
  %cq = tensor.collapse_shape %tq [[0], [1], [2, 3]] : tensor<2x4x2x64xbf16> into tensor<2x4x128xbf16>
  %ck = tensor.collapse_shape %tk [[0], [1], [2, 3]] : tensor<2x4x2x64xbf16> into tensor<2x4x128xbf16>
  %cv = tensor.collapse_shape %tv [[0], [1], [2, 3]] : tensor<2x4x2x64xbf16> into tensor<2x4x128xbf16>
  %c = tensor.concat dim(2) %cq, %ck, %cv : (tensor<2x4x128xbf16>, tensor<2x4x128xbf16>, tensor<2x4x128xbf16>) -> tensor<2x4x384xbf16>
  return %c : tensor<2x4x384xbf16>
}

// -----

// Must not fuse a part read elsewhere too: its producer runs on its own
// and the part copies its result. Parts of odd rows store element by
// element.
// CHECK-LABEL: func.func @shared_part
// CHECK: gpu.launch_func @sinter_kernels::@fused_0
// CHECK: gpu.launch_func @sinter_kernels::@concat_1
// CHECK: gpu.launch_func @sinter_kernels::@concat_1_1
// CHECK-LABEL: gpu.func @concat_1
// CHECK-NOT: vector.store
// CHECK: memref.store
func.func @shared_part(%x: tensor<3x5xf32>) -> (tensor<3x10xf32>, tensor<3x5xf32>) {
  %n = sinter.fused ins(%x : tensor<3x5xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32):
    %r = arith.negf %a : f32
    sinter.yield %r : f32
  } -> tensor<3x5xf32>
  %c = tensor.concat dim(1) %n, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x10xf32>
  return %c, %n : tensor<3x10xf32>, tensor<3x5xf32>
}

// -----

// Booleans (HF's position checks) stay a gather on the serial kernel.
// CHECK-LABEL: func.func @booleans
// CHECK: gpu.launch_func @sinter_kernels::@generic_0
// CHECK-NOT: @concat_
func.func @booleans(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<8xi1> {
  %c = tensor.concat dim(0) %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<8xi1>
  return %c : tensor<8xi1>
}
