// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s

// torch-mlir's RNG state in train mode (test/Frontends/Inputs/
// gpt2_eager_b2_f32_train.linalg.mlir, lines 21 and 217-222, reduced): a
// seed in an ml_program.global, updated on the host by scalar arithmetic
// and stored back, and read by the generic that draws the dropout bits.
// The global becomes a mutable, 16-byte aligned global of the kernel module
// initialized from its value; its load and store are copy kernels; the
// scalar update a 0-d generic; the generic reads the new seed from its 0-d
// tensor.
module {
  ml_program.global private mutable @global_seed(dense<7> : tensor<i64>) : tensor<i64>
  // CHECK-LABEL: func.func @draw
  // CHECK: gpu.launch_func @sinter_kernels::@global_load_{{[0-9]+}}
  // CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}}
  // CHECK: gpu.launch_func @sinter_kernels::@global_store_{{[0-9]+}}
  // CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}}
  // CHECK-NOT: ml_program.global_load
  // CHECK-NOT: ml_program.global_store
  // CHECK: gpu.module @sinter_kernels
  // CHECK: memref.global "private" @sinter_state_global_seed : memref<i64> = dense<7> {alignment = 16 : i64}
  // CHECK: gpu.func @global_load_{{[0-9]+}}(%[[OUT:.*]]: memref<i64>)
  // CHECK: %[[G:.*]] = memref.get_global @sinter_state_global_seed
  // CHECK: memref.load
  // CHECK: memref.store
  // CHECK: gpu.func @global_store_{{[0-9]+}}(%[[IN:.*]]: memref<i64>)
  // CHECK: memref.get_global @sinter_state_global_seed
  func.func @draw() -> tensor<4xi64> {
    %c6364136223846793005_i64 = arith.constant 6364136223846793005 : i64
    %c1442695040888963407_i64 = arith.constant 1442695040888963407 : i64
    %seed = ml_program.global_load @global_seed : tensor<i64>
    %extracted = tensor.extract %seed[] : tensor<i64>
    %0 = arith.muli %extracted, %c6364136223846793005_i64 : i64
    %1 = arith.addi %0, %c1442695040888963407_i64 : i64
    %inserted = tensor.insert %1 into %seed[] : tensor<i64>
    ml_program.global_store @global_seed = %inserted : tensor<i64>
    %e = tensor.empty() : tensor<4xi64>
    %bits = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<4xi64>) {
    ^bb0(%out: i64):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %h = arith.muli %ii, %1 : i64
      linalg.yield %h : i64
    } -> tensor<4xi64>
    return %bits : tensor<4xi64>
  }
}

// -----

// AdamW's step counter computed by a kernel (adamw_f32.linalg.mlir: the
// increment of the 0-d state_step, read back as the step of sinter.adamw):
// the AdamW kernel takes the 0-d buffer and loads the step itself (the
// launch passes memref<f32>, not an f32 read on the host).
// CHECK-LABEL: func.func @adamw_device_step
// CHECK: gpu.launch_func @sinter_kernels::@adamw_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<64xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : f32, %{{.*}} : memref<f32>)
// CHECK: gpu.func @adamw_{{[0-9]+}}
// CHECK-SAME: %[[STEP:[a-z0-9]+]]: memref<f32>)
// CHECK: memref.load %[[STEP]][] : memref<f32>
func.func @adamw_device_step(%p: tensor<64xf32>, %g: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>, %step: tensor<f32>) -> (tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %lr = arith.constant 1.000000e-03 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<f32>
  %next = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%step : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.addf %s, %one : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %t = tensor.extract %next[] : tensor<f32>
  %r:3 = sinter.adamw params(%p : tensor<64xf32>) grads(%g : tensor<64xf32>) exp_avgs(%m : tensor<64xf32>) exp_avg_sqs(%v : tensor<64xf32>) lr(%lr) step(%t) {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64}
  return %next, %r#0, %r#1, %r#2 : tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
