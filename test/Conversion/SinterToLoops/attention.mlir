// RUN: sinter-opt %s --sinter-lower-to-loops --split-input-file | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-lower-to-loops="block-m=32 block-n=16" --split-input-file | FileCheck %s --check-prefix=TILES
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --split-input-file | FileCheck %s --check-prefix=LOOPS

// Causal GQA attention with ragged tails (Sq = 100, Skv = 70 are not
// multiples of 64) in bf16, with lse: one program per (b, h, query tile),
// key/value head h / 4, an scf.for over key tiles up to the causal diagonal
// carrying (m, l, acc), products in f32, the output rounded once.

// The transposed K tile is indexed (d2, d1): reduction, key.
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @causal_gqa_ragged
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x8x100x16xbf16>, %[[K:[a-z0-9]+]]: tensor<2x2x70x16xbf16>, %[[V:[a-z0-9]+]]: tensor<2x2x70x8xbf16>
// CHECK-NOT:     sinter.
// CHECK:         %[[RES:.*]]:2 = scf.forall (%[[B:.*]], %[[H:.*]], %[[QT:.*]]) in (2, 8, 2) shared_outs(%[[O:.*]] = %{{.*}}, %[[LSE:.*]] = %{{.*}}) -> (tensor<2x8x100x8xbf16>, tensor<2x8x100xf32>)
// CHECK:           %[[I0:.*]] = arith.muli %[[QT]], %c64
// CHECK:           %[[G:.*]] = arith.divui %[[H]], %c4
// Ragged query tail: the valid rows of the tile, copied into a zero tile.
// CHECK:           %[[ROWS:.*]] = arith.minsi %c64, %{{.*}}
// CHECK:           %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[I0]], 0] [1, 1, %[[ROWS]], 16] [1, 1, 1, 1] : tensor<2x8x100x16xbf16> to tensor<?x16xbf16>
// CHECK:           %[[QT0:.*]] = linalg.fill
// CHECK:           %[[QTILE:.*]] = tensor.insert_slice %[[QS]] into %[[QT0]][0, 0] [%[[ROWS]], 16]
// Causal: the key loop stops at the last tile that the diagonal reaches.
// CHECK:           %[[KEND:.*]] = arith.maxsi
// CHECK:           %[[NT:.*]] = arith.divui %{{.*}}, %c64
// CHECK:           scf.for %[[JT:.*]] = %c0 to %[[NT]] step %c1 iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x8xf32>)
// CHECK:             tensor.extract_slice %[[K]][%[[B]], %[[G]], %{{.*}}, 0] [1, 1, %{{.*}}, 16]
// CHECK:             tensor.extract_slice %[[V]][%[[B]], %[[G]], %{{.*}}, 0] [1, 1, %{{.*}}, 8]
// S = Q K^T on a 64 x 64 f32 tile, K's tile transposed first (the key
// loop is then contiguous in every operand).
// CHECK:             %[[KT:.*]] = linalg.transpose ins(%{{.*}} : tensor<64x16xbf16>) outs(%{{.*}} : tensor<16x64xbf16>) permutation = [1, 0]
// CHECK:             linalg.generic {indexing_maps = [#{{.*}}, #[[$KMAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[QTILE]], %[[KT]] : tensor<64x16xbf16>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK:               arith.extf
// CHECK:               arith.extf
// Key tail and causal masks, only on the last key tile and on the tiles
// that cross the diagonal.
// CHECK:             %[[LAST:.*]] = arith.cmpi eq, %[[JT]], %c1 : index
// CHECK:             %[[CROSS:.*]] = arith.cmpi ugt
// CHECK:             %[[NEED:.*]] = arith.ori %[[LAST]], %[[CROSS]] : i1
// CHECK:             scf.if %[[NEED]] -> (tensor<64x64xf32>) {
// CHECK:               linalg.generic
// CHECK:                 arith.cmpi slt, %{{.*}}, %c70
// CHECK:                 arith.cmpi ule
// CHECK:                 arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK:             } else {
// CHECK-NOT:           arith.cmpi
// CHECK:               scf.yield
// Online softmax: tile max, m_new in place of m, rescale factor.
// CHECK:             arith.maximumf
// CHECK:             linalg.generic {{.*}} outs(%[[M]], %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
// CHECK:               math.exp
// CHECK:             math.exp
// CHECK:             outs(%[[L]] : tensor<64xf32>)
// CHECK:             outs(%[[ACC]] : tensor<64x8xf32>)
// CHECK:             scf.yield
// Final division, rounded once to bf16; lse = m + log(l).
// CHECK:           arith.divf
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           math.log
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.*}} into %[[O]][%[[B]], %[[H]], %[[I0]], 0] [1, 1, %[[ROWS]], 8]
// CHECK:             tensor.parallel_insert_slice %{{.*}} into %[[LSE]][%[[B]], %[[H]], %[[I0]]] [1, 1, %[[ROWS]]]
// CHECK:         } {sinter.tile = {block_m = 64 : i64, block_n = 64 : i64, kind = "attention"}}
// CHECK:         return %[[RES]]#0, %[[RES]]#1

// TILES-LABEL: func.func @causal_gqa_ragged
// TILES:         scf.forall ({{.*}}) in (2, 8, 4)
// TILES:         scf.for
// TILES-SAME:      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x8xf32>)
// TILES:         {sinter.tile = {block_m = 32 : i64, block_n = 16 : i64, kind = "attention"}}

// LOOPS-LABEL: func.func @causal_gqa_ragged
// LOOPS-NOT:     linalg.
// LOOPS:         scf.forall
// LOOPS:         scf.for
func.func @causal_gqa_ragged(%q: tensor<2x8x100x16xbf16>, %k: tensor<2x2x70x16xbf16>,
                             %v: tensor<2x2x70x8xbf16>)
    -> (tensor<2x8x100x8xbf16>, tensor<2x8x100xf32>) {
  %o, %lse = sinter.attention %q, %k, %v {causal}
      : tensor<2x8x100x16xbf16>, tensor<2x2x70x16xbf16>, tensor<2x2x70x8xbf16>
      -> tensor<2x8x100x8xbf16>, tensor<2x8x100xf32>
  return %o, %lse : tensor<2x8x100x8xbf16>, tensor<2x8x100xf32>
}

// -----

// Tile-aligned, non-causal: static tiles straight out of the operands, no
// padding, every key tile visited, no causal mask.

// CHECK-LABEL: func.func @aligned
// CHECK:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 4, 2)
// CHECK-NOT:       tensor.insert_slice
// CHECK-NOT:       arith.cmpi
// CHECK:           tensor.extract_slice %{{.*}} : tensor<1x4x128x32xf32> to tensor<64x32xf32>
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK-NOT:         {{arith.cmpi|scf.if}}
// CHECK:             tensor.extract_slice %{{.*}} : tensor<1x4x256x32xf32> to tensor<64x32xf32>
// CHECK:             arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK-NOT:         arith.cmpi
// CHECK:             scf.yield
// CHECK-NOT:       arith.truncf
// CHECK:         sinter.tile
func.func @aligned(%q: tensor<1x4x128x32xf32>, %k: tensor<1x4x256x32xf32>,
                   %v: tensor<1x4x256x32xf32>) -> tensor<1x4x128x32xf32> {
  %o = sinter.attention %q, %k, %v {scale = 0.125 : f32}
      : tensor<1x4x128x32xf32>, tensor<1x4x256x32xf32>, tensor<1x4x256x32xf32>
      -> tensor<1x4x128x32xf32>
  return %o : tensor<1x4x128x32xf32>
}

// -----

// The additive mask [1, Hq, 1, Skv] is read by index inside the score
// generic (broadcast dimensions read index 0), never broadcast into a
// tensor; dropout draws a Philox word per (b, h, i, j) after l is updated.

// CHECK-LABEL: func.func @mask_dropout
// CHECK-SAME:    %[[MASK:[a-z0-9]+]]: tensor<1x2x1x64xf16>, %[[SEED:[a-z0-9]+]]: i64
// CHECK:         scf.forall (%[[B:.*]], %[[H:.*]], %{{.*}}) in (2, 2, 1)
// CHECK:           scf.for
// CHECK:             linalg.generic
// CHECK:               %[[J:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:               %[[MV:.*]] = tensor.extract %[[MASK]][%c0, %[[H]], %c0, %[[J]]] : tensor<1x2x1x64xf16>
// CHECK:               arith.extf %[[MV]] : f16 to f32
// Row sum of the undropped probabilities, then dropout.
// CHECK:             linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:               arith.addf
// CHECK:             linalg.generic
// CHECK:               arith.muli %{{.*}}, %c64_i64 : i64
// CHECK:               arith.divui %{{.*}}, %c8_i64 : i64
// CHECK:               arith.trunci %[[SEED]] : i64 to i32
// CHECK-COUNT-10:      arith.muli %{{.*}}, %c3528531795_i64 : i64
// The 16-bit draw of an odd offset is its word's high half; an even one's
// is shifted up. p = 0.1: floor(0.1 * 2^16) << 16.
// CHECK:               arith.shli %{{.*}}, %c16_i32 : i32
// CHECK:               arith.cmpi uge, %{{.*}}, %c429457408_i32 : i32
// CHECK:               %[[KEEP:.*]] = arith.select
// CHECK:               arith.select %[[KEEP]]
// CHECK:             outs(%{{.*}} : tensor<32x16xf32>)
func.func @mask_dropout(%q: tensor<2x2x32x16xf16>, %k: tensor<2x2x64x16xf16>,
                        %v: tensor<2x2x64x16xf16>, %mask: tensor<1x2x1x64xf16>,
                        %seed: i64) -> tensor<2x2x32x16xf16> {
  %o = sinter.attention %q, %k, %v mask(%mask : tensor<1x2x1x64xf16>)
      seed(%seed) {dropout_p = 0.1 : f64}
      : tensor<2x2x32x16xf16>, tensor<2x2x64x16xf16>, tensor<2x2x64x16xf16>
      -> tensor<2x2x32x16xf16>
  return %o : tensor<2x2x32x16xf16>
}
