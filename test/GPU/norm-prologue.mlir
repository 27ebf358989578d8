// A norm computes the elementwise chain that makes its input (NormPrologue
// .cpp): pre-norm transformers' residual add before LayerNorm/RMSNorm. The
// norm kernel takes the chain's inputs, evaluates its body per element (in
// bf16, as the elementwise kernel would), and stores the sum for its other
// readers; the chain runs no kernel. Chains that broadcast, that are read
// before the norm, or with persistent row kernels keep their kernels.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=1" | FileCheck %s --check-prefix=PERSIST
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>

// CHECK-LABEL: func.func @residual_layer_norm
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_0 {{.*}} args(%{{.*}} : memref<2x7x768xbf16>, %{{.*}} : memref<2x7x768xbf16>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<768xbf16>, %[[N:.*]] : memref<2x7x768xbf16>, %[[S:.*]] : memref<2x7x768xbf16>)
// The next residual add reads the sum the norm kernel stored.
// CHECK: %[[ST:.*]] = bufferization.to_tensor %[[S]]
// CHECK: bufferization.to_buffer %[[ST]]
// CHECK: gpu.launch_func @sinter_kernels::@fused_1
// PERSIST-LABEL: func.func @residual_layer_norm
// PERSIST: gpu.launch_func @sinter_kernels::@fused_0
// PERSIST: gpu.launch_func @sinter_kernels::@layer_norm_1
// The sum is one bf16x2 add per pair (sm_90), stored, then normalized.
// PTX-LABEL: .entry layer_norm_0
// PTX: add.rn.bf16x2
// PTX: st.global
func.func @residual_layer_norm(%x: tensor<2x7x768xbf16>, %y: tensor<2x7x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xbf16>, %z: tensor<2x7x768xbf16>) -> (tensor<2x7x768xbf16>, tensor<2x7x768xbf16>) {
  %s = sinter.fused ins(%x, %y : tensor<2x7x768xbf16>, tensor<2x7x768xbf16>) maps [#id, #id] {
  ^bb0(%a: bf16, %c: bf16):
    %r = arith.addf %a, %c : bf16
    sinter.yield %r : bf16
  } -> tensor<2x7x768xbf16>
  %n = sinter.layer_norm %s weight(%w : tensor<768xbf16>) bias(%b : tensor<768xbf16>) : tensor<2x7x768xbf16> -> tensor<2x7x768xbf16>
  %next = sinter.fused ins(%s, %z : tensor<2x7x768xbf16>, tensor<2x7x768xbf16>) maps [#id, #id] {
  ^bb0(%a: bf16, %c: bf16):
    %r = arith.addf %a, %c : bf16
    sinter.yield %r : bf16
  } -> tensor<2x7x768xbf16>
  return %n, %next : tensor<2x7x768xbf16>, tensor<2x7x768xbf16>
}

// The chain's only reader is the norm: no second output.
// CHECK-LABEL: func.func @only_reader
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@rms_norm_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<5x96xf32>, %{{.*}} : memref<5x96xf32>, %{{.*}} : memref<5x96xf32>)
func.func @only_reader(%x: tensor<5x96xf32>, %y: tensor<5x96xf32>) -> tensor<5x96xf32> {
  %s = sinter.fused ins(%x, %y : tensor<5x96xf32>, tensor<5x96xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32, %c: f32):
    %m = arith.mulf %a, %c : f32
    %r = math.tanh %m : f32
    sinter.yield %r : f32
  } -> tensor<5x96xf32>
  %n = sinter.rms_norm %s : tensor<5x96xf32> -> tensor<5x96xf32>
  return %n : tensor<5x96xf32>
}

// Must not: a broadcast input (a bias), and a chain read before the norm.
// CHECK-LABEL: func.func @not_a_prologue
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_
func.func @not_a_prologue(%x: tensor<2x7x768xbf16>, %v: tensor<768xbf16>) -> (tensor<2x7x768xbf16>, tensor<2x7x768xbf16>, tensor<2x7x768xbf16>) {
  %s = sinter.fused ins(%x, %v : tensor<2x7x768xbf16>, tensor<768xbf16>) maps [#id, #row] {
  ^bb0(%a: bf16, %c: bf16):
    %r = arith.addf %a, %c : bf16
    sinter.yield %r : bf16
  } -> tensor<2x7x768xbf16>
  %n = sinter.layer_norm %s : tensor<2x7x768xbf16> -> tensor<2x7x768xbf16>
  %t = sinter.fused ins(%x, %x : tensor<2x7x768xbf16>, tensor<2x7x768xbf16>) maps [#id, #id] {
  ^bb0(%a: bf16, %c: bf16):
    %r = arith.mulf %a, %c : bf16
    sinter.yield %r : bf16
  } -> tensor<2x7x768xbf16>
  %early = sinter.fused ins(%t : tensor<2x7x768xbf16>) maps [#id] {
  ^bb0(%a: bf16):
    %r = arith.negf %a : bf16
    sinter.yield %r : bf16
  } -> tensor<2x7x768xbf16>
  %n2 = sinter.layer_norm %t : tensor<2x7x768xbf16> -> tensor<2x7x768xbf16>
  return %n, %early, %n2 : tensor<2x7x768xbf16>, tensor<2x7x768xbf16>, tensor<2x7x768xbf16>
}

// @residual_layer_norm's kernel stores the sum into its last parameter (global memory).
// CHECK: gpu.func @layer_norm_0({{.*}}, %[[SUM:.*]]: memref<2x7x768xbf16>) workgroup(
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[SUM]]
// CHECK: vector.store %{{.*}}, %[[FLAT]][
