// Repeated layers outline identical kernels; each distinct body is kept
// once and relaunched (DedupKernels.cpp). Two identical bias+GELU chains
// launch one kernel twice; a chain that differs (another constant) keeps
// its own.
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @layers
// CHECK: gpu.launch_func @sinter_kernels::@[[K:fused_[0-9]+]]
// CHECK: gpu.launch_func @sinter_kernels::@[[K]]
// CHECK: gpu.launch_func @sinter_kernels::@[[O:fused_[0-9]+]]
// CHECK: gpu.module @sinter_kernels
// CHECK-COUNT-2: gpu.func @fused_
// CHECK-NOT: gpu.func
func.func @layers(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %a = sinter.fused ins(%x : tensor<64x256xf32>) maps [#id] {
  ^bb0(%v: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %v, %c : f32
    %t = math.tanh %m : f32
    sinter.yield %t : f32
  } -> tensor<64x256xf32>
  %b = sinter.fused ins(%a : tensor<64x256xf32>) maps [#id] {
  ^bb0(%v: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %v, %c : f32
    %t = math.tanh %m : f32
    sinter.yield %t : f32
  } -> tensor<64x256xf32>
  %d = sinter.fused ins(%b : tensor<64x256xf32>) maps [#id] {
  ^bb0(%v: f32):
    %c = arith.constant 3.0 : f32
    %m = arith.mulf %v, %c : f32
    %t = math.tanh %m : f32
    sinter.yield %t : f32
  } -> tensor<64x256xf32>
  return %a, %b, %d : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}
