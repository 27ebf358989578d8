// RUN: sinter-opt %s --sinter-lower-to-loops="elementwise-block=1024" --split-input-file | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --split-input-file | FileCheck %s --check-prefix=LOOPS


// Bias + tanh: programs over blocks of 16 rows (1024 / 64); each program is
// one linalg.generic with the op's maps on its slices (the bias, indexed
// only by d1, is not sliced) and the body cloned.

// CHECK-LABEL: func.func @bias_tanh
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<40x64xbf16>, %[[B:[a-z0-9]+]]: tensor<64xbf16>
// CHECK-NOT:     sinter.
// CHECK:         scf.forall (%[[P:.*]]) in (3) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<40x64xbf16>)
// CHECK:           %[[R0:.*]] = arith.muli %[[P]], %c16
// CHECK:           %[[N:.*]] = arith.minsi %c16, %{{.*}}
// CHECK:           %[[XS:.*]] = tensor.extract_slice %[[X]][%[[R0]], 0] [%[[N]], 64] [1, 1] : tensor<40x64xbf16> to tensor<?x64xbf16>
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][0] [64] [1] : tensor<64xbf16> to tensor<64xbf16>
// CHECK:           %[[OS:.*]] = tensor.extract_slice %[[O]][%[[R0]], 0] [%[[N]], 64]
// CHECK:           %[[G:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[XS]], %[[BS]] : tensor<?x64xbf16>, tensor<64xbf16>) outs(%[[OS]] : tensor<?x64xbf16>)
// CHECK:             arith.addf
// CHECK:             math.tanh
// CHECK:             linalg.yield
// CHECK:           tensor.parallel_insert_slice %[[G]] into %[[O]][%[[R0]], 0] [%[[N]], 64] [1, 1]
// CHECK:         } {sinter.tile = {kind = "elementwise", rows_per_program = 16 : i64}}
// LOOPS-LABEL: func.func @bias_tanh
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         return
func.func @bias_tanh(%x: tensor<40x64xbf16>, %b: tensor<64xbf16>) -> tensor<40x64xbf16> {
  %y = sinter.fused ins(%x, %b : tensor<40x64xbf16>, tensor<64xbf16>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%xv: bf16, %bv: bf16):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %bv : bf16 to f32
    %s = arith.addf %a, %c : f32
    %g = math.tanh %s : f32
    %r = arith.truncf %g : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<40x64xbf16>
  return %y : tensor<40x64xbf16>
}

// -----

// Dropout + residual with a scalar seed and two results: the seed is used
// directly, the Philox offset is the row-major linear index of the
// iteration point (the program's first row added to linalg.index 0).

// CHECK-LABEL: func.func @dropout_residual
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[RES:[a-z0-9]+]]: tensor<16x8xf32>, %[[SEED:[a-z0-9]+]]: i64
// CHECK:         scf.forall (%[[P:.*]]) in (1) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK:           %[[R0:.*]] = arith.muli %[[P]], %c8
// The transposed residual is sliced along its second dimension.
// CHECK:           tensor.extract_slice %[[RES]][0, %[[R0]]] [16, 8] [1, 1] : tensor<16x8xf32> to tensor<16x8xf32>
// CHECK:           linalg.generic
// CHECK:             %[[I0:.*]] = linalg.index 0 : index
// CHECK:             %[[ROW:.*]] = arith.addi %[[I0]], %[[R0]] : index
// CHECK:             arith.index_cast %[[ROW]] : index to i64
// CHECK:             arith.muli %{{.*}}, %c16_i64 : i64
// CHECK:             linalg.index 1 : index
// CHECK:             arith.trunci %[[SEED]] : i64 to i32
// CHECK:             arith.cmpi uge, %{{.*}}, %c1288437760_i32 : i32
// CHECK:             %[[KEEP:.*]] = arith.select
// CHECK:             %[[SCALED:.*]] = arith.divf %{{.*}}, %cst
// CHECK:             %[[D:.*]] = arith.select %[[KEEP]], %[[SCALED]], %cst
// CHECK:             %[[SUM:.*]] = arith.addf %[[D]], %{{.*}} : f32
// CHECK:             linalg.yield %[[SUM]], %[[D]] : f32, f32
// CHECK:         {sinter.tile = {kind = "elementwise", rows_per_program = 8 : i64}}
// LOOPS-LABEL: func.func @dropout_residual
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.(fused|dropout|yield)}}
// LOOPS:         return
func.func @dropout_residual(%x: tensor<8x16xf32>, %res: tensor<16x8xf32>, %seed: i64)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %y, %d = sinter.fused ins(%x, %res, %seed : tensor<8x16xf32>, tensor<16x8xf32>, i64)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>,
            affine_map<(d0, d1) -> ()>] {
  ^bb0(%xv: f32, %rv: f32, %sv: i64):
    %dv = sinter.dropout %xv, %sv p = 3.000000e-01 : f32
    %s = arith.addf %dv, %rv : f32
    sinter.yield %s, %dv : f32, f32
  } -> tensor<8x16xf32>, tensor<8x16xf32>
  return %y, %d : tensor<8x16xf32>, tensor<8x16xf32>
}
