// RUN: sinter-opt %s --sinter-outline-cuda-kernels --split-input-file | FileCheck %s

// Leftover linalg reductions run on the serial kernel: one thread per output
// element, the reduction loops serial in the thread, the region evaluated
// per point. A row sum into a zero fill: the fill folds into the initial
// accumulator (no fill kernel, no init buffer), 8 outputs -> one block of 8.
// CHECK-LABEL: func.func @row_sum
// CHECK-NOT: linalg.
// CHECK: %[[XB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<8x100xf32> to memref<8x100xf32>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<8xf32>
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c1, %{{.*}}, %{{.*}}) threads in (%c8, %{{.*}}, %{{.*}}) args(%[[XB]] : memref<8x100xf32>, %[[Y]] : memref<8xf32>)
// CHECK-NOT: linalg.
// CHECK: gpu.func @reduce_0(%{{.*}}: memref<8x100xf32>, %[[OUT:.*]]: memref<8xf32>) kernel
// CHECK: %[[X:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<8x100xf32> into memref<800xf32>
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c100 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK: %[[ROW:.*]] = arith.muli %[[TID]], %c100
// CHECK: %[[AT:.*]] = arith.addi %[[K]], %[[ROW]]
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[AT]]]
// CHECK: %[[NEXT:.*]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %[[OUT]][%[[TID]]]
func.func @row_sum(%x: tensor<8x100xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x100xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A short column (non-trailing) sum, as linalg.reduce over bf16 (40 rows,
// too few for the column form): consecutive threads read consecutive
// columns (stride 300 along the loop); the bf16 region adds in f32 and the
// result is rounded to bf16 once, after the loop. 300 outputs -> 2 blocks
// of 256, the tail guarded.
// CHECK-LABEL: func.func @column_sum
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c2, %{{.*}}, %{{.*}}) threads in (%c256,
// CHECK: gpu.func @reduce_0
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[TID]], %c300
// CHECK: scf.if %[[IN]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c40 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c300
// CHECK: %[[AT:.*]] = arith.addi %[[TID]], %[[OFF]]
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[AT]]] : memref<12000xbf16>
// CHECK: %[[W:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK: arith.addf %[[W]], %[[ACC]] : f32
// CHECK: scf.yield
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK: memref.store %[[R]], %{{.*}}[%[[TID]]] : memref<300xbf16>
func.func @column_sum(%x: tensor<40x300xbf16>) -> tensor<300xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<300xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<300xbf16>) -> tensor<300xbf16>
  %r = linalg.reduce ins(%x : tensor<40x300xbf16>) outs(%z : tensor<300xbf16>) dimensions = [0]
    (%in: bf16, %init: bf16) {
      %0 = arith.addf %in, %init : bf16
      linalg.yield %0 : bf16
    }
  return %r : tensor<300xbf16>
}

// -----

// The column form (ColumnReduction.cpp) of a longer column sum: blocks of
// 32 columns x 8 warps, 10 groups x 3 chunks of 336 rows; each warp reads
// every 8th row of its chunk, 8 per loop trip (the rows past the chunk
// keep the accumulator), the warps' partials meet in shared memory and
// warp 0 stores an f32 partial per chunk; reduce_0_1 adds a column's
// chunks in order and rounds to bf16 once.
// CHECK-LABEL: func.func @column_sum_chunks
// CHECK: %[[P:.*]] = memref.alloc() : memref<900xf32>
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c30, %{{.*}}, %{{.*}}) threads in (%c256, {{.*}} args(%{{.*}} : memref<1000x300xbf16>, %[[P]] : memref<900xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0_1 blocks in (%c2, {{.*}} args(%{{.*}} : memref<900xf32>, %{{.*}} : memref<300xbf16>)
// CHECK: gpu.func @reduce_0(%{{.*}}: memref<1000x300xbf16>, %{{.*}}: memref<900xf32>) workgroup(%[[SMEM:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64{{.*}} iter_args
// CHECK-COUNT-8: arith.select
// CHECK: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-8: memref.load %[[SMEM]]
// CHECK: memref.store %{{.*}} : memref<900xf32>
// CHECK: gpu.func @reduce_0_1
// CHECK-COUNT-3: memref.load %{{.*}} : memref<900xf32>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}} : memref<300xbf16>
func.func @column_sum_chunks(%x: tensor<1000x300xbf16>) -> tensor<300xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<300xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<300xbf16>) -> tensor<300xbf16>
  %r = linalg.reduce ins(%x : tensor<1000x300xbf16>) outs(%z : tensor<300xbf16>) dimensions = [0]
    (%in: bf16, %init: bf16) {
      %0 = arith.addf %in, %init : bf16
      linalg.yield %0 : bf16
    }
  return %r : tensor<300xbf16>
}

// -----

// A bias gradient's column sum over GPT-2's MLP width: each lane takes 8
// adjacent columns, one 16-byte load per row (vector.load, its 8 elements
// summed into 8 accumulators), so a warp reads 512 bytes of a row at once;
// 12 groups of 256 columns x 22 chunks: 264 blocks, 2 on each of the 132
// SMs (balancedChunks). The warps' partials meet in shared memory (8
// warps x 256 columns, column v of lane l at slot 32 v + l).
// CHECK-LABEL: func.func @column_sum_vectors
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c264, %{{.*}}, %{{.*}}) threads in (%c256, {{.*}} args(%{{.*}} : memref<8192x3072xbf16>, %{{.*}} : memref<67584xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0_1 blocks in (%c12,
// CHECK: gpu.func @reduce_0({{.*}}) workgroup(%[[SMEM:.*]] : memref<2048xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-8: vector.load %{{.*}} {alignment = 16 : i64} : memref<25165824xbf16>, vector<8xbf16>
// CHECK: scf.yield
// CHECK-COUNT-8: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-64: memref.load %[[SMEM]]
func.func @column_sum_vectors(%x: tensor<8192x3072xbf16>) -> tensor<3072xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<3072xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<3072xbf16>) -> tensor<3072xbf16>
  %r = linalg.reduce ins(%x : tensor<8192x3072xbf16>) outs(%z : tensor<3072xbf16>) dimensions = [0]
    (%in: bf16, %init: bf16) {
      %0 = arith.addf %in, %init : bf16
      linalg.yield %0 : bf16
    }
  return %r : tensor<3072xbf16>
}

// -----

// The bias gradient as torch-mlir writes it (test/GPU/Inputs/
// train_gpt2_l1_bf16_backward.mlir's MLP bias: a bf16 sum into a
// [1, 3072] init read at (0, d1)), at GPT-2's B8 T1024 rows: the same
// vector form, its [1, 3072] result stored at the lanes' columns.
// CHECK-LABEL: func.func @column_sum_real_form
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c264, %{{.*}}, %{{.*}}) threads in (%c256, {{.*}} args(%{{.*}} : memref<8192x3072xbf16>, %{{.*}} : memref<67584xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0_1 blocks in (%c12, {{.*}} args(%{{.*}} : memref<67584xf32>, %{{.*}} : memref<1x3072xbf16>)
// CHECK: gpu.func @reduce_0(
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-8: vector.load %{{.*}} {alignment = 16 : i64} : memref<25165824xbf16>, vector<8xbf16>
func.func @column_sum_real_form(%x: tensor<8192x3072xbf16>) -> tensor<1x3072xbf16> {
  %cst = arith.constant 0.000000e+00 : bf16
  %e = tensor.empty() : tensor<1x3072xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<1x3072xbf16>) -> tensor<1x3072xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<8192x3072xbf16>) outs(%z : tensor<1x3072xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %s = arith.addf %in, %out : bf16
    linalg.yield %s : bf16
  } -> tensor<1x3072xbf16>
  return %r : tensor<1x3072xbf16>
}

// -----

// Enough columns for the target's blocks in one chunk: one launch, warp 0
// joins the init (read from the tensor) and stores the result.
// CHECK-LABEL: func.func @column_sum_one_chunk
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c512, {{.*}} args(%{{.*}} : memref<64x16384xf32>, %{{.*}} : memref<16384xf32>, %{{.*}} : memref<16384xf32>)
// CHECK-NOT: gpu.launch_func
func.func @column_sum_one_chunk(%x: tensor<64x16384xf32>, %init: tensor<16384xf32>) -> tensor<16384xf32> {
  %r = linalg.reduce ins(%x : tensor<64x16384xf32>) outs(%init : tensor<16384xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<16384xf32>
}

// -----

// Must not take the column form: a transposed read (the reduced operand is
// not contiguous along the output's columns) stays one thread per element.
// CHECK-LABEL: func.func @transposed_sum
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c2, {{.*}} args(%{{.*}} : memref<300x100xf32>, %{{.*}} : memref<300xf32>)
// CHECK-NOT: reduce_0_1
func.func @transposed_sum(%x: tensor<300x100xf32>) -> tensor<300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<300x100xf32>) outs(%z : tensor<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  return %r : tensor<300xf32>
}

// -----

// A max-reduce over the middle axis into a -inf fill: the fill's value
// becomes the initial accumulator; the thread's (d0, d2) come from its
// index in the [4, 8] output, the input index is d0*400 + k*8 + d2.
// CHECK-LABEL: func.func @max_middle
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c1, %{{.*}}, %{{.*}}) threads in (%c32,
// CHECK: gpu.func @reduce_0
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[D2:.*]] = arith.remui %[[TID]], %c8
// CHECK: %[[D0:.*]] = arith.divui %[[TID]], %c8
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c50 step %{{.*}} iter_args(%[[ACC:.*]] = %[[NINF]]) -> (f32)
// CHECK: arith.muli %[[K]], %c8
// CHECK: arith.muli %[[D0]], %c400
// CHECK: %[[V:.*]] = memref.load
// CHECK: arith.maximumf %[[V]], %[[ACC]] : f32
// CHECK: memref.store %[[MAX]], %{{.*}}[%[[TID]]] : memref<32xf32>
func.func @max_middle(%x: tensor<4x50x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<4x50x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A matmul with B transposed (user indexing maps) is not the tiled matmul
// kernel's: it runs on the serial kernel, reading B[n, k]; the plain matmul
// beside it keeps the tiled kernel. Both fold the shared zero fill.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-NOT: linalg.
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c1, %{{.*}}, %{{.*}}) threads in (%c128, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<8x4xbf16>, %{{.*}} : memref<16x4xbf16>, %{{.*}} : memref<8x16xbf16>)
// CHECK: gpu.launch_func @sinter_kernels::@matmul_1
// CHECK-NOT: linalg.
// CHECK: gpu.func @reduce_0
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[N:.*]] = arith.remui %[[TID]], %c16
// CHECK: %[[M:.*]] = arith.divui %[[TID]], %c16
// CHECK: %[[C:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c4 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.muli %[[M]], %c4
// CHECK: %[[A:.*]] = memref.load %{{.*}} : memref<32xbf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK: arith.muli %[[N]], %c4
// CHECK: %[[B:.*]] = memref.load %{{.*}} : memref<64xbf16>
// CHECK: %[[BF:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[C]] : f32 to bf16
// CHECK: memref.store %[[R]], %{{.*}}[%[[TID]]] : memref<128xbf16>
// CHECK: gpu.func @matmul_1
func.func @matmul_transpose_b(%a: tensor<8x4xbf16>, %b: tensor<16x4xbf16>, %b2: tensor<4x16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<8x16xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<8x4xbf16>, tensor<16x4xbf16>) outs(%z : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %p = linalg.matmul ins(%a, %b2 : tensor<8x4xbf16>, tensor<4x16xbf16>) outs(%z : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  return %r, %p : tensor<8x16xbf16>, tensor<8x16xbf16>
}

// -----

// batch_matmul with B transposed, and a contraction generic with A
// transposed, accumulating into an init read from memory (an argument).
// CHECK-LABEL: func.func @transposed_contractions
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 {{.*}} args(%{{.*}} : memref<2x8x4xf32>, %{{.*}} : memref<2x16x4xf32>, %{{.*}} : memref<2x8x16xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_1 {{.*}} args(%{{.*}} : memref<4x8xf32>, %{{.*}} : memref<4x16xf32>, %[[C:.*]] : memref<8x16xf32>, %{{.*}} : memref<8x16xf32>)
// CHECK: gpu.func @reduce_0
// CHECK: scf.for {{.*}} to %c4
// CHECK: gpu.func @reduce_1
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[C0:.*]] = memref.load %{{.*}}[%[[TID]]] : memref<128xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %{{.*}} iter_args(%{{.*}} = %[[C0]]) -> (f32)
func.func @transposed_contractions(%a: tensor<2x8x4xf32>, %b: tensor<2x16x4xf32>, %at: tensor<4x8xf32>, %bt: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : tensor<2x8x4xf32>, tensor<2x16x4xf32>) outs(%z : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%at, %bt : tensor<4x8xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r, %g : tensor<2x8x16xf32>, tensor<8x16xf32>
}

// -----

// Several results and linalg.index (argmax): the accumulators travel
// together through the loop, each result is stored once.
// CHECK-LABEL: func.func @argmax
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 {{.*}} args(%{{.*}} : memref<6x40xf32>, %{{.*}} : memref<6xf32>, %{{.*}} : memref<6xi64>)
// CHECK: gpu.func @reduce_0
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[R:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} to %c40 step %{{.*}} iter_args(%[[M:.*]] = %[[NINF]], %[[I:.*]] = %[[ZERO]]) -> (f32, i64)
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %[[M]]
// CHECK: arith.select %[[GT]], %[[KI]], %[[I]] : i64
// CHECK: memref.store %[[R]]#0
// CHECK: memref.store %[[R]]#1
func.func @argmax(%x: tensor<6x40xf32>) -> (tensor<6xf32>, tensor<6xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<6xf32>
  %ei = tensor.empty() : tensor<6xi64>
  %z = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %zi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<6xi64>) -> tensor<6xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x40xf32>) outs(%z, %zi : tensor<6xf32>, tensor<6xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %ni = arith.select %gt, %ji, %i : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<6xf32>, tensor<6xi64>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<6xi64>
}

// -----

// A fill that also feeds something other than a reduction's init is
// written by its own kernel, and the reduction reads it; a full reduction
// to a rank-0 tensor is one thread; a constant captured from above the
// region is rematerialized in the kernel (f16 carried in f32).
// CHECK-LABEL: func.func @materialized_init
// CHECK: gpu.launch_func @sinter_kernels::@generic_0
// CHECK: gpu.launch_func @sinter_kernels::@reduce_1 blocks in (%c1{{.*}}, %{{.*}}, %{{.*}}) threads in (%c1{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<7x9xf16>, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>)
// CHECK: gpu.launch_func @sinter_kernels::@generic_2
// CHECK: gpu.func @reduce_1
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f16
// CHECK: %[[TWOF:.*]] = arith.extf %[[TWO]] : f16 to f32
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[] : memref<f16>
// CHECK: %[[INITF:.*]] = arith.extf %[[INIT]] : f16 to f32
// CHECK: scf.for {{.*}} to %c7 {{.*}} iter_args(%{{.*}} = %[[INITF]]) -> (f32)
// CHECK: scf.for {{.*}} to %c9
// CHECK: arith.mulf %{{.*}}, %[[TWOF]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f16>
func.func @materialized_init(%x: tensor<7x9xf16>, %s: f16) -> (tensor<f16>, tensor<f16>) {
  %two = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<f16>
  %z = linalg.fill ins(%s : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<7x9xf16>) outs(%z : tensor<f16>) {
  ^bb0(%a: f16, %acc: f16):
    %m = arith.mulf %a, %two : f16
    %s2 = arith.addf %m, %acc : f16
    linalg.yield %s2 : f16
  } -> tensor<f16>
  %e2 = tensor.empty() : tensor<f16>
  %d = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%r, %z : tensor<f16>, tensor<f16>) outs(%e2 : tensor<f16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.subf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<f16>
  return %r, %d : tensor<f16>, tensor<f16>
}

// -----

// torch-mlir's cross-entropy counts its labels that are not ignore_index
// into a scalar: one output element, a long reduction -> a block of 256
// threads for it (each lane every 256th label), each warp's total by
// shuffles (i64: an integer sum splits too), the 8 totals meeting in
// shared memory after a barrier; thread 0 stores.
// CHECK-LABEL: func.func @count_labels
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c1, {{.*}} threads in (%c256,
// CHECK: gpu.func @reduce_0({{.*}}) workgroup(%[[TOTALS:.*]] : memref<8xi64, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} step %c256{{.*}} -> (i64)
// CHECK: gpu.shuffle xor {{.*}} : i64
// CHECK: memref.store {{.*}}, %[[TOTALS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[TOTALS]]
// CHECK: arith.cmpi eq
// CHECK: memref.store
func.func @count_labels(%labels: tensor<8192xi64>) -> tensor<i64> {
  %zero = arith.constant 0 : i64
  %ignore = arith.constant -100 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%labels : tensor<8192xi64>) outs(%z : tensor<i64>) {
  ^bb0(%a: i64, %acc: i64):
    %ne = arith.cmpi ne, %a, %ignore : i64
    %one = arith.extui %ne : i1 to i64
    %s = arith.addi %one, %acc : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// -----

// Many long rows keep a warp per row (no shared memory).
// CHECK-LABEL: func.func @many_rows
// CHECK: gpu.launch_func @sinter_kernels::@reduce_0 blocks in (%c63, {{.*}} threads in (%c256,
// CHECK: gpu.func @reduce_0
// CHECK-NOT: workgroup
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @many_rows(%x: tensor<500x300xf32>) -> tensor<500xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<500xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<500xf32>) -> tensor<500xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<500x300xf32>) outs(%z : tensor<500xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<500xf32>
  return %r : tensor<500xf32>
}
