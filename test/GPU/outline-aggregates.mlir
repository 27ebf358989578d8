// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a --no-fusion -o %t --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// A linalg.softmax that fusion did not raise (here: fusion off) runs as its
// upstream decomposition: max and sum reductions on the serial kernel, the
// exp and the division on the elementwise kernel. It used to reach the
// planner whole ("result #0 is not computed by a kernel").

// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0
// CHECK: gpu.launch_func @sinter_kernels::@generic_1
// CHECK: gpu.launch_func @sinter_kernels::@reduce_2
// CHECK: gpu.launch_func @sinter_kernels::@generic_3
// CHECK: return
// MANIFEST: "name": "softmax",
// MANIFEST-COUNT-4: "kind": "kernel",
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
