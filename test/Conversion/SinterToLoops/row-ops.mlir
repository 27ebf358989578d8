// RUN: sinter-opt %s --sinter-lower-to-loops --split-input-file | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --split-input-file | FileCheck %s --check-prefix=LOOPS
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --cse --canonicalize --split-input-file | FileCheck %s --check-prefix=BUF

// Outputs and statistics are written in place into the results: after
// bufferization (and CSE + canonicalization of the self-copies) nothing is
// copied; the only per-program buffers are the f32 row tile and the 0-d
// accumulators.
// BUF-NOT: memref.copy

// Softmax over the trailing dimension: one program per row; the row is
// loaded once into an f32 tile, reduced (max, then sum of exp), and the
// normalised row is stored once, rounded to bf16.

// CHECK-LABEL: func.func @softmax_last
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x128xbf16>
// CHECK-NOT:     sinter.
// CHECK:         scf.forall (%[[I:.*]]) in (4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<4x128xbf16>)
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 128] [1, 1] : tensor<4x128xbf16> to tensor<128xbf16>
// CHECK:           %[[TILE:.*]] = linalg.generic {{.*}} ins(%[[ROW]] : tensor<128xbf16>) outs(%{{.*}} : tensor<128xf32>)
// CHECK:             arith.extf
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[TILE]] : tensor<128xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:             arith.maximumf
// CHECK:           %[[MAX:.*]] = tensor.extract
// CHECK:           %[[ALLMASKED:.*]] = arith.cmpf oeq, %[[MAX]]
// CHECK:           %[[SHIFT:.*]] = arith.select %[[ALLMASKED]], %{{.*}}, %[[MAX]]
// CHECK:           %[[E:.*]] = linalg.generic {{.*}} outs(%[[TILE]] : tensor<128xf32>)
// CHECK:             arith.subf %{{.*}}, %[[SHIFT]]
// CHECK:             math.exp
// CHECK:           iterator_types = ["reduction"]} ins(%[[E]] : tensor<128xf32>)
// CHECK:             arith.addf
// The output row is written into the program's slice of the result.
// CHECK:           %[[DST:.*]] = tensor.extract_slice %[[O]][%[[I]], 0] [1, 128] [1, 1]
// CHECK:           %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<128xf32>) outs(%[[DST]] : tensor<128xbf16>)
// CHECK:             arith.divf
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:           tensor.parallel_insert_slice %[[OUT]] into %[[O]][%[[I]], 0] [1, 128] [1, 1]
// CHECK:         } {sinter.tile = {kind = "row", op = "softmax", row_size = 128 : i64}}
// LOOPS-LABEL: func.func @softmax_last
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         return
func.func @softmax_last(%x: tensor<4x128xbf16>) -> tensor<4x128xbf16> {
  %y = sinter.softmax %x dim 1 : tensor<4x128xbf16>
  return %y : tensor<4x128xbf16>
}

// -----

// Softmax over a non-trailing dimension: the programs cover the other
// dimensions and each row is a strided slice; the mask [5, 1] is read by
// index (its broadcast dimension at index 0).

// CHECK-LABEL: func.func @softmax_middle_masked
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<3x5x4xf32>, %[[M:[a-z0-9]+]]: tensor<5x1xf32>
// CHECK:         scf.forall (%[[I:.*]], %[[K:.*]]) in (3, 4)
// CHECK:           tensor.extract_slice %[[X]][%[[I]], 0, %[[K]]] [1, 5, 1] [1, 1, 1] : tensor<3x5x4xf32> to tensor<5xf32>
// CHECK:           linalg.generic
// CHECK:             arith.mulf %{{.*}}, %cst
// CHECK:             %[[J:.*]] = linalg.index 0 : index
// CHECK:             tensor.extract %[[M]][%[[J]], %c0] : tensor<5x1xf32>
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], 0, %[[K]]] [1, 5, 1] [1, 1, 1] : tensor<5xf32> into tensor<3x5x4xf32>
// CHECK:         {sinter.tile = {kind = "row", op = "softmax", row_size = 5 : i64}}
// LOOPS-LABEL: func.func @softmax_middle_masked
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         return
func.func @softmax_middle_masked(%x: tensor<3x5x4xf32>, %m: tensor<5x1xf32>) -> tensor<3x5x4xf32> {
  %y = sinter.softmax %x dim 1 mask(%m : tensor<5x1xf32>) {scale = 0.5 : f32} : tensor<3x5x4xf32>
  return %y : tensor<3x5x4xf32>
}

// -----

// LayerNorm over the two trailing dimensions, with affine parameters and
// the statistics: mean, then the variance as a second pass over the loaded
// tile (sum of centred squares, not E[x^2] - E[x]^2).

// CHECK-LABEL: func.func @layer_norm_stats
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<8x4x6xf16>, %[[W:[a-z0-9]+]]: tensor<4x6xf16>, %[[B:[a-z0-9]+]]: tensor<4x6xf16>
// CHECK:         %[[R:.*]]:3 = scf.forall (%[[I:.*]]) in (8) shared_outs(%[[O:.*]] = %{{.*}}, %[[MO:.*]] = %{{.*}}, %[[RO:.*]] = %{{.*}}) -> (tensor<8x4x6xf16>, tensor<8xf32>, tensor<8xf32>)
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[I]], 0, 0] [1, 4, 6] [1, 1, 1] : tensor<8x4x6xf16> to tensor<4x6xf16>
// CHECK:           %[[TILE:.*]] = linalg.generic {{.*}} ins(%[[ROW]] : tensor<4x6xf16>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[TILE]] : tensor<4x6xf32>)
// CHECK:           %[[MEAN:.*]] = arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[TILE]] : tensor<4x6xf32>)
// CHECK:             %[[C:.*]] = arith.subf %{{.*}}, %[[MEAN]]
// CHECK:             %[[C2:.*]] = arith.mulf %[[C]], %[[C]]
// CHECK:             arith.addf %{{.*}}, %[[C2]]
// CHECK:           math.sqrt
// CHECK:           %[[RSTD:.*]] = arith.divf
// CHECK:           %[[DST:.*]] = tensor.extract_slice %[[O]][%[[I]], 0, 0] [1, 4, 6] [1, 1, 1] : tensor<8x4x6xf16> to tensor<4x6xf16>
// CHECK:           %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[TILE]], %[[W]], %[[B]] : tensor<4x6xf32>, tensor<4x6xf16>, tensor<4x6xf16>) outs(%[[DST]] : tensor<4x6xf16>)
// CHECK:           %[[MS:.*]] = tensor.extract_slice %[[MO]][%[[I]]] [1] [1] : tensor<8xf32> to tensor<f32>
// CHECK:           %[[MT:.*]] = tensor.insert %[[MEAN]] into %[[MS]][] : tensor<f32>
// CHECK:           %[[RS:.*]] = tensor.extract_slice %[[RO]][%[[I]]] [1] [1] : tensor<8xf32> to tensor<f32>
// CHECK:           %[[RT:.*]] = tensor.insert %[[RSTD]] into %[[RS]][] : tensor<f32>
// CHECK:           tensor.parallel_insert_slice %[[OUT]] into %[[O]][%[[I]], 0, 0] [1, 4, 6]
// CHECK:           tensor.parallel_insert_slice %[[MT]] into %[[MO]][%[[I]]] [1] [1] : tensor<f32> into tensor<8xf32>
// CHECK:           tensor.parallel_insert_slice %[[RT]] into %[[RO]][%[[I]]] [1] [1] : tensor<f32> into tensor<8xf32>
// CHECK:         {sinter.tile = {kind = "row", op = "layer_norm", row_size = 24 : i64}}
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#2
// LOOPS-LABEL: func.func @layer_norm_stats
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         return
func.func @layer_norm_stats(%x: tensor<8x4x6xf16>, %w: tensor<4x6xf16>, %b: tensor<4x6xf16>)
    -> (tensor<8x4x6xf16>, tensor<8xf32>, tensor<8xf32>) {
  %y, %mean, %rstd = sinter.layer_norm %x weight(%w : tensor<4x6xf16>) bias(%b : tensor<4x6xf16>)
      {normalized_rank = 2 : i64} : tensor<8x4x6xf16> -> tensor<8x4x6xf16>
      mean(tensor<8xf32>) rstd(tensor<8xf32>)
  return %y, %mean, %rstd : tensor<8x4x6xf16>, tensor<8xf32>, tensor<8xf32>
}

// -----

// RMSNorm: the sum of squares of the loaded tile, no mean.

// CHECK-LABEL: func.func @rms_norm
// CHECK:         scf.forall (%{{.*}}) in (16)
// CHECK:           linalg.generic
// CHECK:             arith.extf
// CHECK-NOT:       arith.subf
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction"]}
// CHECK:             arith.mulf %[[V:.*]], %[[V]] : f32
// CHECK:           math.sqrt
// CHECK:           linalg.generic
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:         {sinter.tile = {kind = "row", op = "rms_norm", row_size = 4096 : i64}}
// LOOPS-LABEL: func.func @rms_norm
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         return
func.func @rms_norm(%x: tensor<16x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<16x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-6 : f32}
      : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
  return %y : tensor<16x4096xbf16>
}

// -----

// Normalising every dimension: a single program, 0-d statistic.

// CHECK-LABEL: func.func @rms_norm_whole
// CHECK:         scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}, %[[RO:.*]] = %{{.*}}) -> (tensor<8xf32>, tensor<f32>)
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %[[RO]][] [] [] : tensor<f32> into tensor<f32>
// LOOPS-LABEL: func.func @rms_norm_whole
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(softmax|layer_norm|rms_norm)}}
// LOOPS:         return
func.func @rms_norm_whole(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %y, %r = sinter.rms_norm %x : tensor<8xf32> -> tensor<8xf32> rstd(tensor<f32>)
  return %y, %r : tensor<8xf32>, tensor<f32>
}
