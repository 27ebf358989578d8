// RUN: sinter-opt %s --sinter-lower-to-loops | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-loops \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --convert-linalg-to-loops --scf-forall-to-for \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-index-to-llvm \
// RUN:   --finalize-memref-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Every sinter op of a module is lowered, each to one program loop with its
// tile configuration, and the result goes all the way to the LLVM dialect
// with upstream passes only.

// CHECK-LABEL: func.func @all_ops
// CHECK-NOT:     {{sinter\.(attention|softmax|layer_norm|rms_norm|adamw|fused|dropout|yield)}}
// CHECK:         } {sinter.tile = {block_m = 64 : i64, block_n = 64 : i64, kind = "attention"}}
// CHECK:         } {sinter.tile = {kind = "row", op = "softmax", row_size = 64 : i64}}
// CHECK:         } {sinter.tile = {kind = "row", op = "layer_norm", row_size = 16 : i64}}
// CHECK:         } {sinter.tile = {kind = "row", op = "rms_norm", row_size = 16 : i64}}
// CHECK:         } {sinter.tile = {kind = "elementwise", rows_per_program = 32 : i64}}
// CHECK:         } {sinter.tile = {chunk = 4096 : i64, kind = "adamw", num_tensors = 1 : i64}}
// CHECK-NOT:     {{sinter\.(attention|softmax|layer_norm|rms_norm|adamw|fused|dropout|yield)}}
// CHECK:         return

// LLVM-LABEL: llvm.func @all_ops
// LLVM-NOT:     {{sinter\.|linalg\.|scf\.|tensor\.|memref\.|bufferization\.}}
// LLVM:         llvm.return
func.func @all_ops(%q: tensor<1x4x96x16xbf16>, %k: tensor<1x2x80x16xbf16>,
                   %v: tensor<1x2x80x16xbf16>, %bias: tensor<96x80xf32>,
                   %seed: i64, %x: tensor<32x16xf16>, %w: tensor<16xf16>,
                   %p: tensor<32x16xf32>, %g: tensor<32x16xf32>,
                   %m: tensor<32x16xf32>, %s: tensor<32x16xf32>,
                   %lr: f32, %step: f32)
    -> (tensor<1x4x96x16xbf16>, tensor<1x4x96xf32>, tensor<1x4x96x64xbf16>,
        tensor<32x16xf16>, tensor<32x16xf16>, tensor<32x16xf16>,
        tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>) {
  %o, %lse = sinter.attention %q, %k, %v mask(%bias : tensor<96x80xf32>) seed(%seed)
      {causal, dropout_p = 0.1 : f64}
      : tensor<1x4x96x16xbf16>, tensor<1x2x80x16xbf16>, tensor<1x2x80x16xbf16>
      -> tensor<1x4x96x16xbf16>, tensor<1x4x96xf32>
  %sm_in = tensor.empty() : tensor<1x4x96x64xbf16>
  %sm = sinter.softmax %sm_in dim 3 : tensor<1x4x96x64xbf16>
  %ln = sinter.layer_norm %x weight(%w : tensor<16xf16>) bias(%w : tensor<16xf16>)
      : tensor<32x16xf16> -> tensor<32x16xf16>
  %rms = sinter.rms_norm %x weight(%w : tensor<16xf16>) : tensor<32x16xf16> -> tensor<32x16xf16>
  %f = sinter.fused ins(%ln, %w, %seed : tensor<32x16xf16>, tensor<16xf16>, i64)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
            affine_map<(d0, d1) -> ()>] {
  ^bb0(%a: f16, %b: f16, %sd: i64):
    %c = arith.addf %a, %b : f16
    %d = sinter.dropout %c, %sd p = 5.000000e-01 : f16
    sinter.yield %d : f16
  } -> tensor<32x16xf16>
  %np, %nm, %ns = sinter.adamw params(%p : tensor<32x16xf32>) grads(%g : tensor<32x16xf32>)
      exp_avgs(%m : tensor<32x16xf32>) exp_avg_sqs(%s : tensor<32x16xf32>) lr(%lr) step(%step)
  return %o, %lse, %sm, %ln, %rms, %f, %np, %nm, %ns
      : tensor<1x4x96x16xbf16>, tensor<1x4x96xf32>, tensor<1x4x96x64xbf16>,
        tensor<32x16xf16>, tensor<32x16xf16>, tensor<32x16xf16>,
        tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>
}
