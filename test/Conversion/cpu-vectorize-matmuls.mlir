// RUN: sinter-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(sinter-cpu-vectorize-matmuls{rows=2 cols=8}))" | FileCheck %s
// RUN: not sinter-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(sinter-cpu-vectorize-matmuls{rows=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// f32: 2 x 8 tiles of C over the full extents (n - n % 8 columns, outer;
// m - m % 2 rows), each row of the tile loaded into a vector, one vector
// FMA per row and k with a broadcast element of A, then stored; the strips
// stay linalg.matmul on subviews.
// CHECK-LABEL: func.func @f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[M:.*]] = memref.dim %[[C:.*]], %[[C0]]
// CHECK: %[[N:.*]] = memref.dim %[[C]], %[[C1]]
// CHECK: %[[K:.*]] = memref.dim %[[A:.*]], %[[C1]]
// CHECK: %[[MR:.*]] = arith.remui %[[M]], %[[C2]]
// CHECK: %[[MF:.*]] = arith.subi %[[M]], %[[MR]]
// CHECK: %[[NR:.*]] = arith.remui %[[N]], %[[C8]]
// CHECK: %[[NF:.*]] = arith.subi %[[N]], %[[NR]]
// CHECK: scf.for %[[J:.*]] = %[[C0]] to %[[NF]] step %[[C8]]
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[MF]] step %[[C2]]
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[X0:.*]] = vector.load %[[C]][%[[I]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[X1:.*]] = vector.load %[[C]][%[[I1]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[KK:.*]] = %[[C0]] to %[[K]] step %[[C1]] iter_args(%[[Y0:.*]] = %[[X0]], %[[Y1:.*]] = %[[X1]])
// CHECK: %[[ROW:.*]] = vector.load %[[B:.*]][%[[KK]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[A0:.*]] = memref.load %[[A]][%[[I]], %[[KK]]]
// CHECK: %[[S0:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK: %[[F0:.*]] = vector.fma %[[S0]], %[[ROW]], %[[Y0]] : vector<8xf32>
// CHECK: %[[A1:.*]] = memref.load %[[A]][%[[I1]], %[[KK]]]
// CHECK: %[[S1:.*]] = vector.broadcast %[[A1]] : f32 to vector<8xf32>
// CHECK: %[[F1:.*]] = vector.fma %[[S1]], %[[ROW]], %[[Y1]] : vector<8xf32>
// CHECK: scf.yield %[[F0]], %[[F1]]
// CHECK: vector.store %[[R]]#0, %[[C]][%[[I]], %[[J]]]
// CHECK: vector.store %[[R]]#1, %[[C]][%[[I1]], %[[J]]]
// The right strip (full rows), then the bottom one (every column).
// CHECK: %[[NREST:.*]] = arith.subi %[[N]], %[[NF]]
// CHECK: %[[MREST:.*]] = arith.subi %[[M]], %[[MF]]
// CHECK: %[[SA:.*]] = memref.subview %[[A]][0, 0] [%[[MF]], %[[K]]] [1, 1]
// CHECK: %[[SB:.*]] = memref.subview %[[B]][0, %[[NF]]] [%[[K]], %[[NREST]]] [1, 1]
// CHECK: %[[SC:.*]] = memref.subview %[[C]][0, %[[NF]]] [%[[MF]], %[[NREST]]] [1, 1]
// CHECK: linalg.matmul ins(%[[SA]], %[[SB]] : {{.*}}) outs(%[[SC]] : {{.*}})
// CHECK: %[[TA:.*]] = memref.subview %[[A]][%[[MF]], 0] [%[[MREST]], %[[K]]] [1, 1]
// CHECK: %[[TC:.*]] = memref.subview %[[C]][%[[MF]], 0] [%[[MREST]], %[[N]]] [1, 1]
// CHECK: linalg.matmul ins(%[[TA]], %[[B]] : {{.*}}) outs(%[[TC]] : {{.*}})
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// f64: the same registers hold half as many elements (cols = 8 f32 lanes
// -> vector<4xf64>); static shapes and strided rows (unit last stride).
// CHECK-LABEL: func.func @f64_strided
// CHECK: vector.load {{.*}} : memref<6x10xf64, strided<[20, 1], offset: ?>>, vector<4xf64>
// CHECK: vector.fma {{.*}} : vector<4xf64>
func.func @f64_strided(%a: memref<6x3xf64>, %b: memref<3x10xf64>, %big: memref<6x20xf64>, %off: index) {
  %c = memref.subview %big[0, %off] [6, 10] [1, 1] : memref<6x20xf64> to memref<6x10xf64, strided<[20, 1], offset: ?>>
  linalg.matmul ins(%a, %b : memref<6x3xf64>, memref<3x10xf64>) outs(%c : memref<6x10xf64, strided<[20, 1], offset: ?>>)
  return
}

// -----

// Left for the scalar path: a transposed operand (user maps), bf16, mixed
// element types, a column-strided operand, and tensors.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: vector.
// CHECK-COUNT-5: linalg.matmul
// CHECK-NOT: vector.
func.func @untouched(%a: memref<4x8xf32>, %bt: memref<16x8xf32>, %c: memref<4x16xf32>,
                     %ah: memref<4x8xbf16>, %bh: memref<8x16xbf16>, %ch: memref<4x16xbf16>,
                     %b: memref<8x16xf32>, %cs: memref<4x16xf32, strided<[1, 4]>>,
                     %ta: tensor<4x8xf32>, %tb: tensor<8x16xf32>, %tc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %bt : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%ah, %bh : memref<4x8xbf16>, memref<8x16xbf16>) outs(%ch : memref<4x16xbf16>)
  linalg.matmul ins(%ah, %bh : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%cs : memref<4x16xf32, strided<[1, 4]>>)
  %r = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x16xf32>) outs(%tc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// BAD: sinter-cpu-vectorize-matmuls: rows and cols must be positive

// -----

// A batch_matmul: a loop over the batch around the matmul of each batch's
// matrices (rank-reducing subviews, rows still contiguous), which then
// takes the micro-kernel like any other.
// CHECK-LABEL: func.func @batched
// CHECK: scf.for %[[BI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[BA:.*]] = memref.subview %{{.*}}[%[[BI]], 0, 0] [1, 6, 5] [1, 1, 1] : memref<3x6x5xf32> to memref<6x5xf32, strided<[5, 1], offset: ?>>
// CHECK: %[[BB:.*]] = memref.subview %{{.*}}[%[[BI]], 0, 0] [1, 5, 16] [1, 1, 1] : memref<3x5x16xf32> to memref<5x16xf32, strided<[16, 1], offset: ?>>
// CHECK: %[[BC:.*]] = memref.subview %{{.*}}[%[[BI]], 0, 0] [1, 6, 16] [1, 1, 1] : memref<3x6x16xf32> to memref<6x16xf32, strided<[16, 1], offset: ?>>
// CHECK: vector.load %[[BC]]
// CHECK: vector.fma
// CHECK-NOT: linalg.batch_matmul
func.func @batched(%a: memref<3x6x5xf32>, %b: memref<3x5x16xf32>, %c: memref<3x6x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x6x5xf32>, memref<3x5x16xf32>) outs(%c : memref<3x6x16xf32>)
  return
}
