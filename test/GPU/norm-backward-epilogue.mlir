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
// The column sums: a block per (sum, 32 columns), 2 x 24.
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_0_1 blocks in (%c48,
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

// The next linear layer's bias gradient sums the rounded gradient over the
// tokens (torch-mlir's collapse to [tokens, C] and a column sum into a
// zero fill, in bf16): the row kernel adds it up beside dweight and dbias
// (a third partial row), and the column kernel writes it. No reduce kernel.
// CHECK-LABEL: func.func @bias_gradient_of_the_sum
// CHECK-NOT: @reduce_
// CHECK: gpu.launch_func @sinter_kernels::@[[K:layer_norm_backward_[0-9]+]] {{.*}}, %{{.*}} : memref<2x7x768xbf16>, %{{.*}} : memref<3x{{[0-9]+}}x768xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@[[K]]_1 {{.*}} args(%{{.*}} : memref<3x{{[0-9]+}}x768xf32>, %{{.*}} : memref<768xf32>, %{{.*}} : memref<768xf32>, %[[DB:.*]] : memref<1x768xbf16>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[DB]]
// CHECK-NOT: @reduce_
// CHECK: return {{.*}}, %[[T]]
func.func @bias_gradient_of_the_sum(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<1x768xbf16>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s:2 = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    %h = arith.truncf %r : f32 to bf16
    sinter.yield %r, %h : f32, bf16
  } -> tensor<2x7x768xf32>, tensor<2x7x768xbf16>
  %c = tensor.collapse_shape %s#1 [[0, 1], [2]] : tensor<2x7x768xbf16> into tensor<14x768xbf16>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x768xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x768xbf16>) -> tensor<1x768xbf16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%c : tensor<14x768xbf16>) outs(%z : tensor<1x768xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %t = arith.addf %in, %acc : bf16
    linalg.yield %t : bf16
  } -> tensor<1x768xbf16>
  return %s#0, %dw, %db, %sum : tensor<2x7x768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<1x768xbf16>
}

// A sum from a nonzero init is not one: it keeps its reduce kernel.
// CHECK-LABEL: func.func @sum_from_one
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}} {{.*}}, %{{.*}} : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}}_1
// CHECK: gpu.launch_func @sinter_kernels::@reduce_
func.func @sum_from_one(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2x7xf32>, %rstd: tensor<2x7xf32>, %w: tensor<768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<768xf32>, tensor<768xf32>, tensor<1x768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xf32>) : tensor<2x7x768xf32>, tensor<2x7xf32> -> tensor<2x7x768xf32> dweight(tensor<768xf32>) dbias(tensor<768xf32>) dy(tensor<2x7x768xbf16>)
  %s = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    sinter.yield %r : f32
  } -> tensor<2x7x768xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x7x768xf32> into tensor<14x768xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x768xf32>
  %z = linalg.fill ins(%one : f32) outs(%e : tensor<1x768xf32>) -> tensor<1x768xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%c : tensor<14x768xf32>) outs(%z : tensor<1x768xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1x768xf32>
  return %dw, %db, %sum : tensor<768xf32>, tensor<768xf32>, tensor<1x768xf32>
}

// A norm over two dimensions: its row kernel's columns are the S*C
// normalized elements, not the C the sum is over. The sum keeps its
// reduce kernel (the epilogue is still computed by the row kernel).
// CHECK-LABEL: func.func @sum_over_a_two_dimension_norm
// CHECK-NOT: @fused_
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}} {{.*}}, %{{.*}} : memref<2x{{[0-9]+}}x5376xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_{{[0-9]+}}_1
// CHECK: gpu.launch_func @sinter_kernels::@reduce_
func.func @sum_over_a_two_dimension_norm(%dy: tensor<2x7x768xbf16>, %x: tensor<2x7x768xf32>, %mean: tensor<2xf32>, %rstd: tensor<2xf32>, %w: tensor<7x768xf32>, %g: tensor<2x7x768xf32>) -> (tensor<7x768xf32>, tensor<7x768xf32>, tensor<1x768xbf16>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<7x768xf32>) {normalized_rank = 2} : tensor<2x7x768xf32>, tensor<2xf32> -> tensor<2x7x768xf32> dweight(tensor<7x768xf32>) dbias(tensor<7x768xf32>) dy(tensor<2x7x768xbf16>)
  %s = sinter.fused ins(%g, %dx : tensor<2x7x768xf32>, tensor<2x7x768xf32>) maps [#id, #id] {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    %h = arith.truncf %r : f32 to bf16
    sinter.yield %h : bf16
  } -> tensor<2x7x768xbf16>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x7x768xbf16> into tensor<14x768xbf16>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x768xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x768xbf16>) -> tensor<1x768xbf16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%c : tensor<14x768xbf16>) outs(%z : tensor<1x768xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %t = arith.addf %in, %acc : bf16
    linalg.yield %t : bf16
  } -> tensor<1x768xbf16>
  return %dw, %db, %sum : tensor<7x768xf32>, tensor<7x768xf32>, tensor<1x768xbf16>
}

// @residual_gradient's row kernel loads the chain's other input (%g) with
// x and dy, a row ahead, never after the row's reductions: a load behind
// their barriers would expose its latency on every row.
// CHECK-LABEL: gpu.func @layer_norm_backward_0(
// CHECK: %[[GV:.*]] = memref.collapse_shape %arg5
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %[[GV]]
// CHECK: gpu.barrier
// CHECK-NOT: vector.load %[[GV]]
// CHECK: gpu.return
