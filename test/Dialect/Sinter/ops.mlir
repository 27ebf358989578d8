// Round trip of every sinter op through the custom and the generic form.
// RUN: sinter-opt %s | sinter-opt | FileCheck %s
// RUN: sinter-opt %s --mlir-print-op-generic | sinter-opt | FileCheck %s
// RUN: sinter-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The fused op's maps are printed as aliases at the top of the module.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[TR:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ZERO:.*]] = affine_map<(d0, d1) -> (0, d1)>

// CHECK-LABEL: func.func @attention_basic
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16> -> tensor<2x8x128x64xbf16>
// GENERIC-DAG: "sinter.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{dropout_p = 0.000000e+00 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}>
func.func @attention_basic(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x128x64xbf16>,
                           %v: tensor<2x8x128x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %o = sinter.attention %q, %k, %v : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>,
      tensor<2x8x128x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}

// GQA (8 query heads over 2 key/value heads), causal with Sq != Skv, lse.
// CHECK-LABEL: func.func @attention_gqa_causal_lse
// CHECK: %[[O:.*]], %[[L:.*]] = sinter.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<2x8x17x64xf16>, tensor<2x2x113x64xf16>, tensor<2x2x113x32xf16> -> tensor<2x8x17x32xf16>, tensor<2x8x17xf32>
// CHECK: return %[[O]], %[[L]]
func.func @attention_gqa_causal_lse(%q: tensor<2x8x17x64xf16>, %k: tensor<2x2x113x64xf16>,
    %v: tensor<2x2x113x32xf16>) -> (tensor<2x8x17x32xf16>, tensor<2x8x17xf32>) {
  %o, %lse = sinter.attention %q, %k, %v {causal} : tensor<2x8x17x64xf16>,
      tensor<2x2x113x64xf16>, tensor<2x2x113x32xf16>
      -> tensor<2x8x17x32xf16>, tensor<2x8x17xf32>
  return %o, %lse : tensor<2x8x17x32xf16>, tensor<2x8x17xf32>
}

// Mask, dropout with a seed, explicit scale; MQA (one key/value head).
// CHECK-LABEL: func.func @attention_mask_dropout
// CHECK: sinter.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x4x9xf32>) seed(%{{.*}}) {dropout_p = 1.000000e-01 : f64, scale = 5.000000e-01 : f32}
func.func @attention_mask_dropout(%q: tensor<3x4x4x16xf32>, %k: tensor<3x1x9x16xf32>,
    %v: tensor<3x1x9x16xf32>, %m: tensor<1x1x4x9xf32>, %seed: i64) -> tensor<3x4x4x16xf32> {
  %o = sinter.attention %q, %k, %v mask(%m : tensor<1x1x4x9xf32>) seed(%seed)
      {dropout_p = 0.1 : f64, scale = 0.5 : f32}
      : tensor<3x4x4x16xf32>, tensor<3x1x9x16xf32>, tensor<3x1x9x16xf32> -> tensor<3x4x4x16xf32>
  return %o : tensor<3x4x4x16xf32>
}

// Dynamic batch and sequence sizes are accepted by the verifier.
// CHECK-LABEL: func.func @attention_dynamic
// CHECK: sinter.attention {{.*}} : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x4x?x64xf32>
func.func @attention_dynamic(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>,
    %v: tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32> {
  %o = sinter.attention %q, %k, %v : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>,
      tensor<?x4x?x64xf32> -> tensor<?x4x?x64xf32>
  return %o : tensor<?x4x?x64xf32>
}

// CHECK-LABEL: func.func @softmax
// CHECK: sinter.softmax %{{.*}} dim 3 : tensor<2x8x128x128xf32>
// CHECK: sinter.softmax %{{.*}} dim 0 mask(%{{.*}} : tensor<128xf32>) {scale = 1.250000e-01 : f32} : tensor<4x128xbf16>
func.func @softmax(%s: tensor<2x8x128x128xf32>, %t: tensor<4x128xbf16>, %m: tensor<128xf32>)
    -> (tensor<2x8x128x128xf32>, tensor<4x128xbf16>) {
  %p = sinter.softmax %s dim 3 : tensor<2x8x128x128xf32>
  %q = sinter.softmax %t dim 0 mask(%m : tensor<128xf32>) {scale = 0.125 : f32} : tensor<4x128xbf16>
  return %p, %q : tensor<2x8x128x128xf32>, tensor<4x128xbf16>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK: sinter.layer_norm %{{.*}} weight(%{{.*}} : tensor<768xbf16>) bias(%{{.*}} : tensor<768xf32>) : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16>
// CHECK: sinter.layer_norm %{{.*}} {epsilon = 9.99999996E-13 : f32, normalized_rank = 2 : i64} : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16> mean(tensor<8xf32>) rstd(tensor<8xf32>)
// CHECK: sinter.layer_norm %{{.*}} : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16> rstd(tensor<8x64xf32>)
// GENERIC-DAG: "sinter.layer_norm"{{.*}}resultSegmentSizes = array<i32: 1, 1, 1>
func.func @layer_norm(%x: tensor<8x64x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xf32>) {
  %y = sinter.layer_norm %x weight(%w : tensor<768xbf16>) bias(%b : tensor<768xf32>)
      : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16>
  %y2, %mean, %rstd = sinter.layer_norm %x {normalized_rank = 2, epsilon = 1.0e-12 : f32}
      : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16> mean(tensor<8xf32>) rstd(tensor<8xf32>)
  %y3, %r3 = sinter.layer_norm %x : tensor<8x64x768xbf16> -> tensor<8x64x768xbf16>
      rstd(tensor<8x64xf32>)
  return
}

// CHECK-LABEL: func.func @rms_norm
// CHECK: sinter.rms_norm %{{.*}} weight(%{{.*}} : tensor<4096xbf16>) : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
// CHECK: sinter.rms_norm %{{.*}} {epsilon = 9.99999974E-6 : f32} : tensor<16x4096xbf16> -> tensor<16x4096xbf16> rstd(tensor<16xf32>)
func.func @rms_norm(%x: tensor<16x4096xbf16>, %w: tensor<4096xbf16>) {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>)
      : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
  %z, %r = sinter.rms_norm %x {epsilon = 1.0e-5 : f32}
      : tensor<16x4096xbf16> -> tensor<16x4096xbf16> rstd(tensor<16xf32>)
  return
}

// CHECK-LABEL: func.func @adamw
// CHECK: %{{.*}}:6 = sinter.adamw params(%{{.*}}, %{{.*}} : tensor<1024xf32>, tensor<16x16xbf16>) grads(%{{.*}}, %{{.*}} : tensor<1024xf32>, tensor<16x16xbf16>) exp_avgs(%{{.*}}, %{{.*}} : tensor<1024xf32>, tensor<16x16xf32>) exp_avg_sqs(%{{.*}}, %{{.*}} : tensor<1024xf32>, tensor<16x16xf32>) lr(%{{.*}}) step(%{{.*}}) {beta2 = 0.94999999999999996 : f64, weight_decay = 0.000000e+00 : f64}
func.func @adamw(%p0: tensor<1024xf32>, %p1: tensor<16x16xbf16>, %g0: tensor<1024xf32>,
    %g1: tensor<16x16xbf16>, %m0: tensor<1024xf32>, %m1: tensor<16x16xf32>,
    %v0: tensor<1024xf32>, %v1: tensor<16x16xf32>, %lr: f32, %t: f32)
    -> (tensor<1024xf32>, tensor<16x16xbf16>) {
  %r:6 = sinter.adamw params(%p0, %p1 : tensor<1024xf32>, tensor<16x16xbf16>)
      grads(%g0, %g1 : tensor<1024xf32>, tensor<16x16xbf16>)
      exp_avgs(%m0, %m1 : tensor<1024xf32>, tensor<16x16xf32>)
      exp_avg_sqs(%v0, %v1 : tensor<1024xf32>, tensor<16x16xf32>)
      lr(%lr) step(%t) {beta2 = 0.95 : f64, weight_decay = 0.0 : f64}
  return %r#0, %r#1 : tensor<1024xf32>, tensor<16x16xbf16>
}

// Bias + tanh-GELU with dropout, a transposed operand and a scalar seed.
// CHECK-LABEL: func.func @fused
// CHECK: %[[R:.*]]:2 = sinter.fused ins(%{{.*}} : tensor<16x64xbf16>, tensor<64xbf16>, tensor<64x16xf32>, i64, tensor<1x64xf32>) maps [#[[ID]], #[[ROW]], #[[TR]], #[[SCALAR]], #[[ZERO]]] {
// CHECK: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: f32, %[[SEED:.*]]: i64, %{{.*}}: f32):
// CHECK:   math.tanh
// CHECK:   sinter.dropout %{{.*}}, %[[SEED]] p = 1.000000e-01 : f32
// CHECK:   sinter.yield %{{.*}}, %{{.*}} : bf16, f32
// CHECK: } -> tensor<16x64xbf16>, tensor<16x64xf32>
func.func @fused(%x: tensor<16x64xbf16>, %b: tensor<64xbf16>, %t: tensor<64x16xf32>,
                 %seed: i64, %z: tensor<1x64xf32>) -> tensor<16x64xbf16> {
  %y:2 = sinter.fused ins(%x, %b, %t, %seed, %z : tensor<16x64xbf16>, tensor<64xbf16>,
                          tensor<64x16xf32>, i64, tensor<1x64xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
            affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>,
            affine_map<(d0, d1) -> (0, d1)>] {
  ^bb0(%xv: bf16, %bv: bf16, %tv: f32, %s: i64, %zv: f32):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %bv : bf16 to f32
    %sum = arith.addf %a, %c : f32
    %g = math.tanh %sum : f32
    %d = sinter.dropout %g, %s p = 0.1 : f32
    %e = arith.addf %d, %tv : f32
    %f = arith.addf %e, %zv : f32
    %r = arith.truncf %f : f32 to bf16
    sinter.yield %r, %e : bf16, f32
  } -> tensor<16x64xbf16>, tensor<16x64xf32>
  return %y#0 : tensor<16x64xbf16>
}

// The backward ops: GQA attention with a mask, its gradient and dropout.
// CHECK-LABEL: func.func @attention_backward
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = sinter.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x128x128xf32>) seed(%{{.*}}) {causal, deterministic, dropout_p = 1.000000e-01 : f64, scale = 1.250000e-01 : f32} : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32> -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16> dmask(tensor<1x1x128x128xf32>)
// CHECK: sinter.attention_backward {{.*}} -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>{{$}}
// GENERIC: "sinter.attention_backward"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>
func.func @attention_backward(%do: tensor<2x8x128x64xbf16>, %q: tensor<2x8x128x64xbf16>,
                              %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xbf16>,
                              %o: tensor<2x8x128x64xbf16>, %lse: tensor<2x8x128xf32>,
                              %m: tensor<1x1x128x128xf32>, %seed: i64) {
  %g:4 = sinter.attention_backward %do, %q, %k, %v, %o, %lse mask(%m : tensor<1x1x128x128xf32>)
      seed(%seed) {causal, deterministic, dropout_p = 0.1 : f64, scale = 0.125 : f32}
      : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
      -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
         dmask(tensor<1x1x128x128xf32>)
  %h:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse
      : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
      -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  return
}

// CHECK-LABEL: func.func @softmax_backward
// CHECK: sinter.softmax_backward %{{.*}}, %{{.*}} dim 0 {scale = 5.000000e-01 : f32} : tensor<7x33xf16>
func.func @softmax_backward(%dy: tensor<7x33xf16>, %y: tensor<7x33xf16>) -> tensor<7x33xf16> {
  %dx = sinter.softmax_backward %dy, %y dim 0 {scale = 0.5 : f32} : tensor<7x33xf16>
  return %dx : tensor<7x33xf16>
}

// CHECK-LABEL: func.func @norm_backward
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = sinter.layer_norm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} weight(%{{.*}} : tensor<768xbf16>) : tensor<8x16x768xbf16>, tensor<8x16xf32> -> tensor<8x16x768xbf16> dweight(tensor<768xf32>) dbias(tensor<768xbf16>)
// CHECK: sinter.layer_norm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {normalized_rank = 2 : i64} : tensor<8x16x768xbf16>, tensor<8xf32> -> tensor<8x16x768xbf16> dbias(tensor<16x768xf32>)
// CHECK: %{{.*}}, %{{.*}} = sinter.rms_norm_backward %{{.*}}, %{{.*}}, %{{.*}} weight(%{{.*}} : tensor<768xbf16>) : tensor<8x16x768xbf16>, tensor<8x16xf32> -> tensor<8x16x768xbf16> dweight(tensor<768xbf16>)
// GENERIC: "sinter.layer_norm_backward"{{.*}}resultSegmentSizes = array<i32: 1, 1, 1>
// GENERIC: "sinter.layer_norm_backward"{{.*}}resultSegmentSizes = array<i32: 1, 0, 1>
func.func @norm_backward(%dy: tensor<8x16x768xbf16>, %x: tensor<8x16x768xbf16>,
                         %mean: tensor<8x16xf32>, %rstd: tensor<8x16xf32>,
                         %w: tensor<768xbf16>, %m8: tensor<8xf32>, %r8: tensor<8xf32>) {
  %a:3 = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xbf16>)
      : tensor<8x16x768xbf16>, tensor<8x16xf32>
      -> tensor<8x16x768xbf16> dweight(tensor<768xf32>) dbias(tensor<768xbf16>)
  %b:2 = sinter.layer_norm_backward %dy, %x, %m8, %r8 {normalized_rank = 2 : i64}
      : tensor<8x16x768xbf16>, tensor<8xf32> -> tensor<8x16x768xbf16> dbias(tensor<16x768xf32>)
  %c:2 = sinter.rms_norm_backward %dy, %x, %rstd weight(%w : tensor<768xbf16>)
      : tensor<8x16x768xbf16>, tensor<8x16xf32> -> tensor<8x16x768xbf16> dweight(tensor<768xbf16>)
  return
}

// A bf16 dy of an f32 input (autocast's gradient of an f32 residual's norm).
// CHECK-LABEL: func.func @norm_backward_narrow_dy
// CHECK: sinter.layer_norm_backward {{.*}} -> tensor<8x768xf32> dbias(tensor<768xf32>) dy(tensor<8x768xbf16>)
// CHECK: sinter.rms_norm_backward {{.*}} -> tensor<8x768xf32> dy(tensor<8x768xbf16>)
// GENERIC: "sinter.layer_norm_backward"{{.*}}(tensor<8x768xbf16>, tensor<8x768xf32>, tensor<8xf32>, tensor<8xf32>)
func.func @norm_backward_narrow_dy(%dy: tensor<8x768xbf16>, %x: tensor<8x768xf32>,
                                   %mean: tensor<8xf32>, %rstd: tensor<8xf32>) {
  %a:2 = sinter.layer_norm_backward %dy, %x, %mean, %rstd
      : tensor<8x768xf32>, tensor<8xf32> -> tensor<8x768xf32> dbias(tensor<768xf32>) dy(tensor<8x768xbf16>)
  %b = sinter.rms_norm_backward %dy, %x, %rstd
      : tensor<8x768xf32>, tensor<8xf32> -> tensor<8x768xf32> dy(tensor<8x768xbf16>)
  return
}
