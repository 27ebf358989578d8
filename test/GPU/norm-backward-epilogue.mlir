// A norm backward computes the elementwise chain that reads its dx
// (NormPrologue.cpp): the residual stream's gradient, where each norm's
// input gradient is added to what the later layers passed back and
// autocast rounds the sum for the next matmul (GPT-2's real backward). The
// row kernel takes the chain's other inputs, evaluates its body where it
// would store dx and stores the chain's results; dx is never written and
// the chain runs no kernel. A dx read elsewhere too, or a chain reading a
// value defined after the norm backward, keep the chain's kernel.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @residual_gradient
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_0 {{.*}} args(%{{.*}} : memref<2x7x768xbf16>, %{{.*}} : memref<2x7x768xf32>, %{{.*}} : memref<2x7xf32>, %{{.*}} : memref<2x7xf32>, %{{.*}} : memref<768xf32>, %{{.*}} : memref<2x7x768xf32>, %[[S:.*]] : memref<2x7x768xf32>, %[[H:.*]] : memref<2x7x768xbf16>, %{{.*}} : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_0_1
// CHECK-NOT: @fused_
// CHECK: return
// The sum in f32, rounded to bf16 for its second store (dx alone is f32).
// PTX-LABEL: .entry layer_norm_backward_0(
// PTX: add.rn.f32
// PTX: cvt.rn.bf16x2.f32
// PTX-LABEL: .entry layer_norm_backward_0_1(
func.func @residual_gradient(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xf32>, tensor<2x7x768xbf16>, tensor<768xf32>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s:2 = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    %h = arith.truncf %r : f32 to bf16
    sinter.yield %r, %h : f32, bf16
  } -> tensor<2x7x768xf32>, tensor<2x7x768xbf16>
  return %s#0, %s#1, %dw, %db : tensor<2x7x768xf32>, tensor<2x7x768xbf16>, tensor<768xf32>, tensor<768xf32>
}

// RMSNorm's bf16 dx: the chain reads it rounded to bf16, as stored.
// CHECK-LABEL: func.func @rms_bf16
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@rms_norm_backward_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<4x256xbf16>, %{{.*}} : memref<4x256xbf16>, %{{.*}} : memref<4xf32>, %{{.*}} : memref<256xbf16>, %{{.*}} : memref<4x256xbf16>, %{{.*}} : memref<4x256xbf16>, %{{.*}} : memref<1x{{[0-9]+}}x256xf32>)
// CHECK-NOT: @fused_
// CHECK: return
func.func @rms_bf16(%dy: tensor<4x256xbf16>, %x: tensor<4x256xbf16>, %rstd: tensor<4xf32>, %w: tensor<256xbf16>, %g: tensor<4x256xbf16>) -> (tensor<4x256xbf16>, tensor<256xbf16>) {
  %dx, %dw = sinter.rms_norm_backward %dy, %x, %rstd weight(%w : tensor<256xbf16>) : tensor<4x256xbf16>, tensor<4xf32> -> tensor<4x256xbf16> dweight(tensor<256xbf16>)
  %s = sinter.fused ins(%dx, %g : tensor<4x256xbf16>, tensor<4x256xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: bf16, %b: bf16):
    %r = arith.addf %a, %b : bf16
    sinter.yield %r : bf16
  } -> tensor<4x256xbf16>
  return %s, %dw : tensor<4x256xbf16>, tensor<256xbf16>
}

// dx returned too: the norm backward writes it and the chain keeps its kernel.
// CHECK-LABEL: func.func @dx_read_twice
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}} {{.*}} args({{.*}}, %{{.*}} : memref<768xf32>, %{{.*}} : memref<2x7x768xf32>, %{{.*}} : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@fused_
func.func @dx_read_twice(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xf32>, tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    sinter.yield %r : f32
  } -> tensor<2x7x768xf32>
  return %s, %dx, %dw, %db : tensor<2x7x768xf32>, tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>
}

// The chain's other input is made after the norm backward (by an op the
// kernel would run before): the chain keeps its kernel.
// CHECK-LABEL: func.func @input_made_later
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}} {{.*}} args({{.*}}, %{{.*}} : memref<768xf32>, %{{.*}} : memref<2x7x768xf32>, %{{.*}} : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@fused_
// CHECK: gpu.launch_func @sinter_kernels::@fused_
func.func @input_made_later(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %g2 = sinter.fused ins(%g : tensor<2x7x768xf32>) maps [#id] {
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    sinter.yield %r : f32
  } -> tensor<2x7x768xf32>
  %s = sinter.fused ins(%g2, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    sinter.yield %r : f32
  } -> tensor<2x7x768xf32>
  return %s, %dw, %db : tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>
}

// A chain with an i1 result (a comparison): the row kernel stores floats
// only, so the chain keeps its kernel.
// CHECK-LABEL: func.func @boolean_result
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}}
// CHECK: gpu.launch_func @sinter_kernels::@fused_
func.func @boolean_result(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xi1>, tensor<768xf32>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.cmpf olt, %a, %b : f32
    sinter.yield %r : i1
  } -> tensor<2x7x768xi1>
  return %s, %dw, %db : tensor<2x7x768xi1>, tensor<768xf32>, tensor<768xf32>
}

// The epilogue is also the input of a norm (a norm prologue's form): the
// norm backward takes it, its kernel stores the sum, and the norm reads that
// sum (it is no one's chain twice).
// CHECK-LABEL: func.func @epilogue_feeds_a_norm
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}} {{.*}} args({{.*}}, %{{.*}} : memref<768xf32>, %{{.*}} : memref<2x7x768xf32>, %[[S:.*]] : memref<2x7x768xf32>, %{{.*}} : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: %[[ST:.*]] = bufferization.to_tensor %[[S]]
// CHECK: %[[SB:.*]] = bufferization.to_buffer %[[ST]]
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_{{[0-9]+}} {{.*}} args(%[[SB]] : memref<2x7x768xf32>
// CHECK-NOT: @fused_
// CHECK: return
func.func @epilogue_feeds_a_norm(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    sinter.yield %r : f32
  } -> tensor<2x7x768xf32>
  %n = sinter.layer_norm %s weight(%w : tensor<768xf32>) : tensor<2x7x768xf32> -> tensor<2x7x768xf32>
  return %n, %dw, %db : tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>
}
