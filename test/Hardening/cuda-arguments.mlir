// Issue #17, crash 2: function arguments of type index and tensor<4xindex>
// compiled for CUDA crashed the artifact planner (the bit width of index).
// index is 64-bit on the device: the manifest passes it as an int64 scalar
// or buffer. Types the runtime cannot pass are located errors.
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t --quiet
// RUN: FileCheck %s < %t/manifest.json
// RUN: not sinterc %S/Inputs/cuda-unpassable.mlir --target=cuda:sm_90a -o %t.bad --quiet 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: "name": "scale_by_count",
// CHECK: "name": "n",
// CHECK-NEXT: "role": "input",
// CHECK-NEXT: "kind": "scalar",
// CHECK-NEXT: "dtype": "int64",
// CHECK-NEXT: "shape": [],
// CHECK-NEXT: "bytes": 8
// CHECK: "name": "ids",
// CHECK-NEXT: "role": "input",
// CHECK-NEXT: "kind": "buffer",
// CHECK-NEXT: "dtype": "int64",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 4
// CHECK-NEXT: ],
// CHECK-NEXT: "bytes": 32
// CHECK: "kind": "kernel",
// CHECK-NEXT: "kernel": "fused_0",
func.func @scale_by_count(%n: index, %ids: tensor<4xindex>,
                          %x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %y = sinter.fused ins(%x, %n : tensor<4x64xf32>, index)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%v: f32, %c: index):
    %i = arith.index_cast %c : index to i64
    %f = arith.sitofp %i : i64 to f32
    %r = arith.mulf %v, %f : f32
    sinter.yield %r : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// BAD: cuda-unpassable.mlir:3:27: error: the CUDA target cannot pass 'complex<f32>' (argument #1 'c' of @complex_scalar): it takes statically shaped tensors and scalars of f16, bf16, f32, f64, i1, i8, i16, i32, i64 or index
