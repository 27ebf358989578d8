// RUN: sinter-opt %s --sinter-raise-norms --split-input-file -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s
// RUN: sinter-opt %s --sinter-raise-norms --split-input-file -mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Positive cases: LayerNorm and RMSNorm as frontends decompose them.

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#last = affine_map<(d0, d1, d2) -> (d2)>
// torch-mlir's decomposition of aten.native_layer_norm: one generic per aten
// op, keepdim reductions, weight and bias.
// CHECK-LABEL: func.func @layer_norm_torch(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[Y:.*]] = sinter.layer_norm %[[X]] weight(%[[W]] : tensor<8xf32>) bias(%[[B]] : tensor<8xf32>) {epsilon = 9.99999997E-7 : f32, sinter.fusion = [{bytes_avoided = 1216 : i64, pattern = "layer_norm"}]} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[Y]]
// REMARK: remark: fused layer_norm: 1216 bytes of intermediates no longer written
func.func @layer_norm_torch(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999997E-7 : f32
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %e = tensor.empty() : tensor<2x4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%z : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %xc = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xc : tensor<2x4x8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %vsum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<2x4x8xf32>) outs(%z : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %var = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%vsum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.rsqrt %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xc, %rstd : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %r: f32, %o: f32):
    %0 = arith.mulf %in, %r : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %yw = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %w : tensor<2x4x8xf32>, tensor<8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %ww: f32, %o: f32):
    %0 = arith.mulf %in, %ww : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %yb = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%yw, %b : tensor<2x4x8xf32>, tensor<8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %0 = arith.addf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  return %yb : tensor<2x4x8xf32>
}

// -----

// E[x^2] - E[x]^2 variance, multiplication by 1/N, 1/sqrt as a division,
// no affine parameters; the mean is also returned, so it becomes the op's
// mean result (reshaped back to the keepdim shape).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @layer_norm_moments(
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>)
// CHECK: %[[Y:.*]], %[[MEAN:.*]] = sinter.layer_norm %[[X]] {sinter.fusion = [{bytes_avoided = 64 : i64, pattern = "layer_norm"}]} : tensor<4x16xf32> -> tensor<4x16xf32> mean(tensor<4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]], %[[MEAN]]
func.func @layer_norm_moments(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %inv = arith.constant 6.250000e-02 : f32
  %one = arith.constant 1.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s1 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.mulf %in, %inv : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s2, %mean : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.mulf %in, %inv : f32
    %1 = arith.mulf %m, %m : f32
    %2 = arith.subf %0, %1 : f32
    %3 = arith.addf %2, %eps : f32
    %4 = math.sqrt %3 : f32
    %5 = arith.divf %one, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %rstd : tensor<4x16xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %r : f32
    linalg.yield %1 : f32
  } -> tensor<4x16xf32>
  return %y, %mean : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// bf16 activations upcast to f32 around the decomposition (torch autocast),
// statistics in one fused generic with linalg.reduce, over the last two
// dims (normalized_shape = [4, 8]).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#lead = affine_map<(d0, d1, d2) -> (d0)>
#w2 = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm_bf16_rank2(
// CHECK-SAME: %[[X:.*]]: tensor<3x4x8xbf16>, %[[W:.*]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[Y:.*]] = sinter.layer_norm %[[X]] weight(%[[W]] : tensor<4x8xbf16>) {normalized_rank = 2 : i64, sinter.fusion = {{.*}}} : tensor<3x4x8xbf16> -> tensor<3x4x8xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_bf16_rank2(%x: tensor<3x4x8xbf16>, %w: tensor<4x8xbf16>) -> tensor<3x4x8xbf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 3.200000e+01 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %e = tensor.empty() : tensor<3x4x8xbf16>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.reduce ins(%x : tensor<3x4x8xbf16>) outs(%z : tensor<3xf32>) dimensions = [1, 2]
    (%in: bf16, %acc: f32) {
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.addf %0, %acc : f32
      linalg.yield %1 : f32
    }
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sum : tensor<3xf32>) outs(%e1 : tensor<3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %vsum = linalg.generic {indexing_maps = [#id3, #lead, #lead], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x, %mean : tensor<3x4x8xbf16>, tensor<3xf32>) outs(%z : tensor<3xf32>) {
  ^bb0(%in: bf16, %m: f32, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.subf %0, %m : f32
    %2 = arith.mulf %1, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<3xf32>
  %y = linalg.generic {indexing_maps = [#id3, #lead, #lead, #w2, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean, %vsum, %w : tensor<3x4x8xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<4x8xbf16>) outs(%e : tensor<3x4x8xbf16>) {
  ^bb0(%in: bf16, %m: f32, %vs: f32, %ww: bf16, %o: bf16):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.subf %0, %m : f32
    %2 = arith.divf %vs, %n : f32
    %3 = arith.addf %2, %eps : f32
    %4 = math.rsqrt %3 : f32
    %5 = arith.mulf %1, %4 : f32
    %6 = arith.extf %ww : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.truncf %7 : f32 to bf16
    linalg.yield %8 : bf16
  } -> tensor<3x4x8xbf16>
  return %y : tensor<3x4x8xbf16>
}

// -----

// RMSNorm (LLaMA): mean of squares, + eps, rsqrt, x * rstd * weight, f32.
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME: %[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[Y:.*]] = sinter.rms_norm %[[X]] weight(%[[W]] : tensor<64xf32>) {epsilon = 9.99999974E-6 : f32, sinter.fusion = {{.*}}} : tensor<4x64xf32> -> tensor<4x64xf32>
// CHECK-NEXT: return %[[Y]]
// REMARK: remark: {{.*}}rms_norm
func.func @rms_norm(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %c2 = arith.constant 2.000000e+00 : f32
    %0 = math.powf %in, %c2 : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x64xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %rstd : tensor<4x64xf32>, tensor<4x1xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %r: f32, %o: f32):
    %0 = arith.mulf %in, %r : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %yw = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %y : tensor<64xf32>, tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%ww: f32, %in: f32, %o: f32):
    %0 = arith.mulf %ww, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  return %yw : tensor<4x64xf32>
}

// -----

// RMSNorm as Hugging Face LLaMA writes it in bf16: the weight multiplies
// after the truncation to bf16, so only the f32 part is raised and the bf16
// weight multiply stays (raising it would round once instead of twice).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rms_norm_bf16_hf(
// CHECK-SAME: %[[X:.*]]: tensor<4x64xbf16>, %[[W:.*]]: tensor<64xbf16>)
// CHECK: %[[N:.*]] = sinter.rms_norm %[[X]] {sinter.fusion = {{.*}}} : tensor<4x64xbf16> -> tensor<4x64xbf16>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[N]] : tensor<64xbf16>, tensor<4x64xbf16>)
// CHECK: arith.mulf {{.*}} : bf16
// CHECK: return %[[Y]]
func.func @rms_norm_bf16_hf(%x: tensor<4x64xbf16>, %w: tensor<64xbf16>) -> tensor<4x64xbf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 9.99999997E-7 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %ef = tensor.empty() : tensor<4x64xf32>
  %e = tensor.empty() : tensor<4x64xbf16>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xbf16>) outs(%ef : tensor<4x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%xf : tensor<4x64xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%xf, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%in: f32, %s: f32, %o: bf16):
    %0 = arith.divf %s, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    %4 = arith.truncf %3 : f32 to bf16
    linalg.yield %4 : bf16
  } -> tensor<4x64xbf16>
  %yw = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %y : tensor<64xbf16>, tensor<4x64xbf16>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%ww: bf16, %in: bf16, %o: bf16):
    %0 = arith.mulf %ww, %in : bf16
    linalg.yield %0 : bf16
  } -> tensor<4x64xbf16>
  return %yw : tensor<4x64xbf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
// The normalized input is itself a product (a gated value): the product is
// kept as the input, not mistaken for factors of the normalization.
// CHECK-LABEL: func.func @rms_norm_prod(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x64xf32>, %[[B:[^:]*]]: tensor<4x64xf32>, %[[W:[^:]*]]: tensor<64xf32>)
// CHECK: %[[X:.*]] = linalg.mul ins(%[[A]], %[[B]]
// CHECK-NEXT: %[[Y:.*]] = sinter.rms_norm %[[X]] weight(%[[W]] : tensor<64xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_prod(%a: tensor<4x64xf32>, %bb: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %e0 = tensor.empty() : tensor<4x64xf32>
  %x = linalg.mul ins(%a, %bb : tensor<4x64xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %c2 = arith.constant 2.000000e+00 : f32
    %0 = math.powf %in, %c2 : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #bc], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x64xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.divf %in, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %rstd : tensor<4x64xf32>, tensor<4x1xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %r: f32, %o: f32):
    %0 = arith.mulf %in, %r : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %yw = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %y : tensor<64xf32>, tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%ww: f32, %in: f32, %o: f32):
    %0 = arith.mulf %ww, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  return %yw : tensor<4x64xf32>
}


// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> (0, 0, 0)>
// TOSA after tosa-to-linalg: linalg.reduce + expand_shape, 1/N as a splat
// [1, 1, 1] tensor, weight and bias given as [1, 1, C] and read at (0, 0, d2):
// they are collapsed to the normalized shape.
// CHECK-LABEL: func.func @layer_norm_tosa(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x64x128xf32>, %[[W:[^:]*]]: tensor<1x1x128xf32>, %[[B:[^:]*]]: tensor<1x1x128xf32>)
// CHECK-DAG: %[[W1:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2]] : tensor<1x1x128xf32> into tensor<128xf32>
// CHECK-DAG: %[[B1:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1, 2]] : tensor<1x1x128xf32> into tensor<128xf32>
// CHECK: %[[Y:.*]] = sinter.layer_norm %[[X]] weight(%[[W1]] : tensor<128xf32>) bias(%[[B1]] : tensor<128xf32>) {sinter.fusion = {{.*}}} : tensor<2x64x128xf32> -> tensor<2x64x128xf32>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_tosa(%arg0: tensor<2x64x128xf32>, %arg2: tensor<1x1x128xf32>, %arg3: tensor<1x1x128xf32>) -> tensor<2x64x128xf32> {
  %cst_1 = arith.constant 0.000000e+00 : f32
  %cst_2 = arith.constant dense<7.812500e-03> : tensor<1x1x1xf32>
  %cst_3 = arith.constant dense<9.99999974E-6> : tensor<1x1x1xf32>
    %0 = tensor.empty() : tensor<2x64xf32>
    %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x64xf32>) -> tensor<2x64xf32>
    %reduced = linalg.reduce ins(%arg0 : tensor<2x64x128xf32>) outs(%1 : tensor<2x64xf32>) dimensions = [2] 
      (%in: f32, %init: f32) {
        %68 = arith.addf %in, %init : f32
        linalg.yield %68 : f32
      }
    %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
    %2 = tensor.empty() : tensor<2x64x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %cst_2 : tensor<2x64x1xf32>, tensor<1x1x1xf32>) outs(%2 : tensor<2x64x1xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.mulf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x1xf32>
    %4 = tensor.empty() : tensor<2x64x128xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %3 : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%4 : tensor<2x64x128xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.subf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x128xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %5 : tensor<2x64x128xf32>, tensor<2x64x128xf32>) outs(%4 : tensor<2x64x128xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.mulf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x128xf32>
    %reduced_9 = linalg.reduce ins(%6 : tensor<2x64x128xf32>) outs(%1 : tensor<2x64xf32>) dimensions = [2] 
      (%in: f32, %init: f32) {
        %68 = arith.addf %in, %init : f32
        linalg.yield %68 : f32
      }
    %expanded_10 = tensor.expand_shape %reduced_9 [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_10, %cst_2 : tensor<2x64x1xf32>, tensor<1x1x1xf32>) outs(%2 : tensor<2x64x1xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.mulf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %cst_3 : tensor<2x64x1xf32>, tensor<1x1x1xf32>) outs(%2 : tensor<2x64x1xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.addf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x64x1xf32>) outs(%2 : tensor<2x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = math.rsqrt %in : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %9 : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%4 : tensor<2x64x128xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.mulf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x128xf32>
            %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %arg2 : tensor<2x64x128xf32>, tensor<1x1x128xf32>) outs(%4 : tensor<2x64x128xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.mulf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x128xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %arg3 : tensor<2x64x128xf32>, tensor<1x1x128xf32>) outs(%4 : tensor<2x64x128xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %68 = arith.addf %in, %in_59 : f32
      linalg.yield %68 : f32
    } -> tensor<2x64x128xf32>
  return %12 : tensor<2x64x128xf32>
}
