// RUN: sinter-opt %s --sinter-lower-to-loops="elementwise-block=1024" --split-input-file | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-lower-to-loops="elementwise-block=1024" --one-shot-bufferize="bufferize-function-boundaries" --split-input-file | FileCheck %s --check-prefix=BUF
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --split-input-file | FileCheck %s --check-prefix=LOOPS

// Two parameter tensors in one program nest: program c updates chunk c of
// both (1024 elements: 1024 rows of the 1-D tensor, 16 rows of 64 of the
// 2-D one). The 2-D tensor has fewer chunks, so its slices are clamped
// (empty in the surplus programs). The parameters and moments are the
// shared outs and the generic reads them from its outs.

// CHECK-LABEL: func.func @two_tensors
// CHECK-SAME:    %[[P0:[a-z0-9]+]]: tensor<4096xf32>, %[[P1:[a-z0-9]+]]: tensor<40x64xbf16>,
// CHECK-SAME:    %[[G0:[a-z0-9]+]]: tensor<4096xf32>, %[[G1:[a-z0-9]+]]: tensor<40x64xbf16>,
// CHECK-SAME:    %[[M0:[a-z0-9]+]]: tensor<4096xf32>, %[[M1:[a-z0-9]+]]: tensor<40x64xf32>,
// CHECK-SAME:    %[[V0:[a-z0-9]+]]: tensor<4096xf32>, %[[V1:[a-z0-9]+]]: tensor<40x64xf32>,
// CHECK-SAME:    %[[LR:[a-z0-9]+]]: f32, %[[STEP:[a-z0-9]+]]: f32
// Bias corrections from the step operand, once.
// CHECK:         %[[POW1:.*]] = math.powf %cst{{.*}}, %[[STEP]] : f32
// CHECK:         %[[BC1:.*]] = arith.subf %{{.*}}, %[[POW1]]
// CHECK:         %[[POW2:.*]] = math.powf %cst{{.*}}, %[[STEP]] : f32
// CHECK:         %[[BC2:.*]] = arith.subf %{{.*}}, %[[POW2]]
// CHECK:         %[[R:.*]]:6 = scf.forall (%[[C:.*]]) in (4) shared_outs(%[[OP0:.*]] = %[[P0]], %[[OP1:.*]] = %[[P1]], %[[OM0:.*]] = %[[M0]], %[[OM1:.*]] = %[[M1]], %[[OV0:.*]] = %[[V0]], %[[OV1:.*]] = %[[V1]])
// CHECK:           %[[OFF0:.*]] = arith.muli %[[C]], %c1024
// CHECK:           %[[GS0:.*]] = tensor.extract_slice %[[G0]][%[[OFF0]]] [1024] [1] : tensor<4096xf32> to tensor<1024xf32>
// CHECK:           %[[PS0:.*]] = tensor.extract_slice %[[OP0]][%[[OFF0]]] [1024] [1]
// CHECK:           %[[MS0:.*]] = tensor.extract_slice %[[OM0]][%[[OFF0]]] [1024] [1]
// CHECK:           %[[VS0:.*]] = tensor.extract_slice %[[OV0]][%[[OFF0]]] [1024] [1]
// CHECK:           %[[U0:.*]]:3 = linalg.generic {{.*}} ins(%[[GS0]] : tensor<1024xf32>) outs(%[[PS0]], %[[MS0]], %[[VS0]] : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
// CHECK:             arith.divf %{{.*}}, %[[BC2]]
// CHECK:             math.sqrt
// CHECK:             arith.divf %{{.*}}, %[[BC1]]
// CHECK:             arith.mulf %[[LR]]
// Clamped chunk of the second tensor.
// CHECK:           %[[START:.*]] = arith.minsi %{{.*}}, %c40
// CHECK:           %[[ROWS:.*]] = arith.minsi %c16, %{{.*}}
// CHECK:           tensor.extract_slice %[[G1]][%[[START]], 0] [%[[ROWS]], 64] [1, 1] : tensor<40x64xbf16> to tensor<?x64xbf16>
// CHECK:           %[[U1:.*]]:3 = linalg.generic
// CHECK:             arith.extf %{{.*}} : bf16 to f32
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:           scf.forall.in_parallel
// CHECK-DAG:         tensor.parallel_insert_slice %[[U0]]#0 into %[[OP0]][%[[OFF0]]] [1024] [1]
// CHECK-DAG:         tensor.parallel_insert_slice %[[U0]]#1 into %[[OM0]][%[[OFF0]]] [1024] [1]
// CHECK-DAG:         tensor.parallel_insert_slice %[[U0]]#2 into %[[OV0]][%[[OFF0]]] [1024] [1]
// CHECK-DAG:         tensor.parallel_insert_slice %[[U1]]#0 into %[[OP1]][%[[START]], 0] [%[[ROWS]], 64] [1, 1]
// CHECK:         } {sinter.tile = {chunk = 1024 : i64, kind = "adamw", num_tensors = 2 : i64}}
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[R]]#4, %[[R]]#5

// After bufferization the update is in place: no buffer is allocated and
// the function returns its operands.
// BUF-LABEL: func.func @two_tensors
// BUF-SAME:    (%[[P0:[a-z0-9]+]]: memref<4096xf32, {{.*}}>, %[[P1:[a-z0-9]+]]: memref<40x64xbf16, {{.*}}>, %{{[a-z0-9]+}}: {{.*}}, %{{[a-z0-9]+}}: {{.*}}, %[[M0:[a-z0-9]+]]: memref<4096xf32, {{.*}}>, %[[M1:[a-z0-9]+]]: memref<40x64xf32, {{.*}}>, %[[V0:[a-z0-9]+]]: memref<4096xf32, {{.*}}>, %[[V1:[a-z0-9]+]]: memref<40x64xf32, {{.*}}>
// BUF-NOT:     memref.alloc
// BUF:         return %[[P0]], %[[P1]], %[[M0]], %[[M1]], %[[V0]], %[[V1]]
// LOOPS-LABEL: func.func @two_tensors
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         return
func.func @two_tensors(%p0: tensor<4096xf32>, %p1: tensor<40x64xbf16>,
                       %g0: tensor<4096xf32>, %g1: tensor<40x64xbf16>,
                       %m0: tensor<4096xf32>, %m1: tensor<40x64xf32>,
                       %v0: tensor<4096xf32>, %v1: tensor<40x64xf32>,
                       %lr: f32, %step: f32)
    -> (tensor<4096xf32>, tensor<40x64xbf16>, tensor<4096xf32>, tensor<40x64xf32>,
        tensor<4096xf32>, tensor<40x64xf32>) {
  %r:6 = sinter.adamw params(%p0, %p1 : tensor<4096xf32>, tensor<40x64xbf16>)
      grads(%g0, %g1 : tensor<4096xf32>, tensor<40x64xbf16>)
      exp_avgs(%m0, %m1 : tensor<4096xf32>, tensor<40x64xf32>)
      exp_avg_sqs(%v0, %v1 : tensor<4096xf32>, tensor<40x64xf32>)
      lr(%lr) step(%step) {weight_decay = 0.1 : f64}
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
      : tensor<4096xf32>, tensor<40x64xbf16>, tensor<4096xf32>, tensor<40x64xf32>,
        tensor<4096xf32>, tensor<40x64xf32>
}

// -----

// A rank-0 parameter takes part as a 1-element view and is still updated in
// place.

// CHECK-LABEL: func.func @scalar_param
// CHECK-SAME:    %[[P:[a-z0-9]+]]: tensor<f32>
// CHECK:         %[[P1:.*]] = tensor.expand_shape %[[P]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         %[[R:.*]]:3 = scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %[[P1]],
// CHECK:           tensor.extract_slice %{{.*}}[%{{.*}}] [1] [1] : tensor<1xf32> to tensor<1xf32>
// CHECK:         %[[PR:.*]] = tensor.collapse_shape %[[R]]#0 [] : tensor<1xf32> into tensor<f32>
// CHECK:         return %[[PR]],

// BUF-LABEL: func.func @scalar_param
// BUF-SAME:    (%[[P:[a-z0-9]+]]: memref<f32, {{.*}}>, %{{[a-z0-9]+}}: memref<f32, {{.*}}>, %[[M:[a-z0-9]+]]: memref<f32, {{.*}}>, %[[V:[a-z0-9]+]]: memref<f32, {{.*}}>
// BUF-NOT:     memref.alloc
// BUF:         %[[PE:.*]] = memref.expand_shape %[[P]]
// BUF-NOT:     memref.alloc
// BUF:         memref.collapse_shape %[[PE]]
// BUF-NOT:     memref.alloc
// BUF:         return
// LOOPS-LABEL: func.func @scalar_param
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         scf.forall
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         memref.store
// LOOPS-NOT:     {{linalg\.|sinter\.adamw}}
// LOOPS:         return
func.func @scalar_param(%p: tensor<f32>, %g: tensor<f32>, %m: tensor<f32>, %v: tensor<f32>,
                        %lr: f32, %t: f32) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:3 = sinter.adamw params(%p : tensor<f32>) grads(%g : tensor<f32>)
      exp_avgs(%m : tensor<f32>) exp_avg_sqs(%v : tensor<f32>) lr(%lr) step(%t)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}
