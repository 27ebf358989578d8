// RUN: sinter-opt %s --sinter-outline-cuda-kernels --split-input-file | FileCheck %s

// A reduction reads a slice in the tensor it was sliced from
// (SlicedInputs.cpp): the cross-entropy's statistics over the padded
// lm_head product. The slice is also returned, so the reduction writes it
// as it reads it (a warp per row: each element once); no copy kernel runs.
// CHECK-LABEL: func.func @row_max_of_slice_returned
// CHECK-NOT: @extract_slice_
// CHECK: %[[P:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x1032xbf16> to memref<4x1032xbf16>
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 {{.*}}args(%[[P]] : memref<4x1032xbf16>, %{{.*}} : memref<4xf32>, %[[COPY:.*]] : memref<4x1025xbf16>)
// CHECK: %[[R:.*]] = bufferization.to_tensor
// CHECK: %[[S:.*]] = bufferization.to_tensor %[[COPY]]
// CHECK: return %[[R]], %[[S]]
// CHECK-NOT: @extract_slice_
// The kernel: the source at (row, column) of the slice, offsets (0, 0), row
// stride 1032; the copy at row stride 1025, its stores after the trip's
// four loads.
// CHECK: gpu.func @reduce_0(%{{.*}}: memref<4x1032xbf16>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4x1025xbf16>)
// CHECK: %[[SRC:.*]] = memref.collapse_shape %{{.*}} : memref<4x1032xbf16> into memref<4128xbf16>
// CHECK: %[[DST:.*]] = memref.collapse_shape %{{.*}} : memref<4x1025xbf16> into memref<4100xbf16>
// CHECK: scf.for
// CHECK-COUNT-4: memref.load %[[SRC]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[DST]]
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: memref.load %[[SRC]]
// CHECK: memref.store %{{.*}}, %[[DST]]
func.func @row_max_of_slice_returned(%p: tensor<4x1032xbf16>) -> (tensor<4xf32>, tensor<4x1025xbf16>) {
  %ninf = arith.constant 0xFF800000 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %x = arith.extf %a : bf16 to f32
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m, %s : tensor<4xf32>, tensor<4x1025xbf16>
}

// -----

// Only the reduction reads the slice (here at nonzero offsets): it reads
// the source in place and writes no copy.
// CHECK-LABEL: func.func @row_sum_of_slice_alone
// CHECK-NOT: @extract_slice_
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 {{.*}}args(%{{.*}} : memref<6x600xf32>, %{{.*}} : memref<4xf32>)
// CHECK: gpu.func @reduce_0(%{{.*}}: memref<6x600xf32>, %{{.*}}: memref<4xf32>)
// The offsets: row + 2, column + 3.
// CHECK-DAG: arith.addi %{{.*}}, %c2
// CHECK-DAG: arith.addi %{{.*}}, %c3
// CHECK-NOT: memref<2388xf32>
// CHECK: gpu.return
func.func @row_sum_of_slice_alone(%p: tensor<6x600xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[2, 3] [4, 597] [1, 1] : tensor<6x600xf32> to tensor<4x597xf32>
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x597xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The slice's other reader is an elementwise kernel, which reads it in
// place too: no copy at all.
// CHECK-LABEL: func.func @slice_also_read_elementwise
// CHECK-NOT: @extract_slice_
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 {{.*}}args(%{{.*}} : memref<4x1032xf32>, %{{.*}} : memref<4xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@generic_1 {{.*}}args(%{{.*}} : memref<4x1032xf32>, %{{.*}} : memref<4x1025xf32>)
func.func @slice_also_read_elementwise(%p: tensor<4x1032xf32>) -> (tensor<4xf32>, tensor<4x1025xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xf32> to tensor<4x1025xf32>
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x1025xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x1025xf32>) outs(%e2 : tensor<4x1025xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.negf %a : f32
    linalg.yield %t : f32
  } -> tensor<4x1025xf32>
  return %r, %n : tensor<4xf32>, tensor<4x1025xf32>
}

// -----

// Kept as it was: a reader of the slice before the reduction (the copy must
// exist before it), and a column sum over a slice that is also returned
// (the column form re-reads points and writes partials).
// CHECK-LABEL: func.func @slice_read_before
// CHECK: gpu.launch_func @sinter_kernels::@extract_slice_0
// CHECK: gpu.launch_func @sinter_kernels::@reduce_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<4x1025xbf16>
// CHECK-LABEL: func.func @column_sum_of_slice_returned
// CHECK: gpu.launch_func @sinter_kernels::@extract_slice_{{[0-9]+}}
// CHECK: gpu.launch_func @sinter_kernels::@reduce_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<4096x64xf32>
func.func @slice_read_before(%p: tensor<4x1032xbf16>, %i: index) -> (tensor<4xf32>, bf16) {
  %ninf = arith.constant 0xFF800000 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<1xbf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<1xbf16>) {
  ^bb0(%o: bf16):
    %v = tensor.extract %s[%i, %i] : tensor<4x1025xbf16>
    linalg.yield %v : bf16
  } -> tensor<1xbf16>
  %c0 = arith.constant 0 : index
  %first = tensor.extract %g[%c0] : tensor<1xbf16>
  %e1 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %x = arith.extf %a : bf16 to f32
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m, %first : tensor<4xf32>, bf16
}
func.func @column_sum_of_slice_returned(%p: tensor<4096x72xf32>) -> (tensor<64xf32>, tensor<4096x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %p[0, 0] [4096, 64] [1, 1] : tensor<4096x72xf32> to tensor<4096x64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%s : tensor<4096x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r, %s : tensor<64xf32>, tensor<4096x64xf32>
}

// -----

// A reduction whose body never reads the slice (it counts) would never
// write its copy: the slice keeps its copy kernel for its other reader.
// CHECK-LABEL: func.func @count_of_slice_returned
// CHECK: gpu.launch_func @sinter_kernels::@extract_slice_{{[0-9]+}}
// CHECK: gpu.launch_func @sinter_kernels::@reduce_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<4x1025xbf16>
func.func @count_of_slice_returned(%p: tensor<4x1032xbf16>) -> (tensor<4xf32>, tensor<4x1025xbf16>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %s = tensor.extract_slice %p[0, 0] [4, 1025] [1, 1] : tensor<4x1032xbf16> to tensor<4x1025xbf16>
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x1025xbf16>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %r = arith.addf %acc, %one : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x1025xbf16>
  %t = linalg.transpose ins(%s : tensor<4x1025xbf16>) outs(%e2 : tensor<4x1025xbf16>) permutation = [0, 1]
  return %n, %t : tensor<4xf32>, tensor<4x1025xbf16>
}
