// RUN: sinter-opt %s --sinter-lower-to-cpu | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-cpu=emit-c-interface=false | FileCheck %s --check-prefix=NOWRAP

// The calling convention: the result becomes a trailing output buffer that
// the kernel writes directly (no allocation, no copy), and a C wrapper takes
// each memref as a pointer to its descriptor.

// CHECK-LABEL: llvm.func @relu(
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %[[OUTALIGNED:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK-NOT: llvm.call @malloc
// CHECK: %[[DST:.*]] = llvm.getelementptr {{.*}}%[[OUTALIGNED]][
// CHECK: llvm.store %{{.*}}, %[[DST]] : f32, !llvm.ptr
// CHECK: llvm.return
// CHECK: llvm.func @_mlir_ciface_relu(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.call @relu(
// Without the wrappers: the same functions, and no _mlir_ciface_ symbol.
// NOWRAP-NOT: _mlir_ciface_
// NOWRAP-LABEL: llvm.func @relu(
// NOWRAP-NOT: _mlir_ciface_
// NOWRAP: llvm.func @gelu_sum(
// NOWRAP-NOT: _mlir_ciface_
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Temporaries are freed; transcendentals without an LLVM intrinsic call libm
// (erff) and libm functions get no C wrappers of their own.

// CHECK-LABEL: llvm.func @gelu_sum(
// CHECK: %[[TMP:.*]] = llvm.call @malloc
// CHECK: llvm.call @erff
// CHECK: {{llvm.call @tanhf|llvm.intr.tanh}}
// CHECK: llvm.call @free(%[[TMP]])
// CHECK: llvm.func @_mlir_ciface_gelu_sum(
// CHECK-NOT: _mlir_ciface_erff
// CHECK-NOT: _mlir_ciface_tanhf
func.func @gelu_sum(%x: tensor<16x32xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.erf %a : f32
    %u = math.tanh %t : f32
    linalg.yield %u : f32
  } -> tensor<16x32xf32>
  %er = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.reduce ins(%g : tensor<16x32xf32>) outs(%f : tensor<16xf32>)
      dimensions = [1]
    (%in: f32, %acc: f32) {
      %v = arith.addf %in, %acc : f32
      linalg.yield %v : f32
    }
  return %s : tensor<16xf32>
}
