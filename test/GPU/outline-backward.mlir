// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a --no-fusion -o %t 2>&1 | FileCheck %s --check-prefix=CENSUS

// The backward ops on CUDA. The norms' backward is two tuned launches: a
// persistent row kernel writing dx and partial column sums into a scratch
// buffer ([K, blocks * rows per block, N] f32), then a column kernel that
// reads that scratch and writes dweight and dbias. Softmax's and
// attention's backward run their reference generics on the general path.

// CHECK-LABEL: func.func @layer_norm_backward
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<2x{{[0-9]+}}x768xf32>
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_[[N:[0-9]+]] blocks in (%{{.*}}) threads in (%{{.*}}) args({{.*}}, %[[SCRATCH]] : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[SCRATCH]]
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[T]]
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_[[N]]_1 {{.*}} args(%[[B]] : memref<2x{{[0-9]+}}x768xf32>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<768xf32>)
// CHECK: gpu.func @layer_norm_backward_[[N]](
// CHECK-SAME: nvvm.minctasm = 2
// CHECK: scf.for
// CHECK: gpu.func @layer_norm_backward_[[N]]_1(
// CENSUS: outline {{.*}}(3 tuned kernels (layer_norm_backward 2, rms_norm_backward 1); 2 general-path kernels (generic 1, reduce 1))
func.func @layer_norm_backward(%dy: tensor<1024x768xbf16>, %x: tensor<1024x768xbf16>,
    %mean: tensor<1024xf32>, %rstd: tensor<1024xf32>, %w: tensor<768xbf16>)
    -> (tensor<1024x768xbf16>, tensor<768xbf16>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xbf16>)
      : tensor<1024x768xbf16>, tensor<1024xf32> -> tensor<1024x768xbf16>
        dweight(tensor<768xbf16>) dbias(tensor<768xf32>)
  return %dx, %dw, %db : tensor<1024x768xbf16>, tensor<768xbf16>, tensor<768xf32>
}

// -----

// Without a weight gradient there is no scratch and one launch.
// CHECK-LABEL: func.func @rms_norm_backward_dx
// CHECK-NOT: memref<1x
// CHECK: gpu.launch_func @sinter_kernels::@rms_norm_backward_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<64x4096xf32>, %{{.*}} : memref<64x4096xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64x4096xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @rms_norm_backward_dx(%dy: tensor<64x4096xf32>, %x: tensor<64x4096xf32>,
    %rstd: tensor<64xf32>) -> tensor<64x4096xf32> {
  %dx = sinter.rms_norm_backward %dy, %x, %rstd : tensor<64x4096xf32>, tensor<64xf32> -> tensor<64x4096xf32>
  return %dx : tensor<64x4096xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_backward
// CHECK: gpu.launch_func @sinter_kernels::@reduce_
// CHECK: gpu.launch_func @sinter_kernels::@generic_
func.func @softmax_backward(%dy: tensor<8x100xf32>, %y: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %dx = sinter.softmax_backward %dy, %y dim 1 : tensor<8x100xf32>
  return %dx : tensor<8x100xf32>
}
