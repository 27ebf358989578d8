// Every verifier error of the sinter dialect, each at the op's location.
// RUN: sinter-opt %s -split-input-file -verify-diagnostics

func.func @attention_query_rank(%q: tensor<8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{query must have rank 4 ([B, Hq, Sq, D]), got rank 3}}
  %o = sinter.attention %q, %k, %v : tensor<8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<1x8x128x64xf32>, %k: tensor<8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{key must have rank 4 ([B, Hkv, Skv, D]), got rank 3}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_value_rank(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x1x8x128x64xf32>) {
  // expected-error @+1 {{value must have rank 4 ([B, Hkv, Skv, Dv]), got rank 5}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_output_rank(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{output must have rank 4 ([B, Hq, Sq, Dv]), got rank 3}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<8x128x64xf32>
  return
}

// -----

func.func @attention_element_types(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xbf16>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{query, key and value must have the same element type, got 'f32', 'bf16' and 'f32'}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_output_element_type(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x8x128x64xbf16>, %v: tensor<1x8x128x64xbf16>) {
  // expected-error @+1 {{output element type 'f32' must match the query's 'bf16'}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_integer_operands(%q: tensor<1x8x128x64xi8>, %k: tensor<1x8x128x64xi8>, %v: tensor<1x8x128x64xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xi8>, tensor<1x8x128x64xi8>, tensor<1x8x128x64xi8> -> tensor<1x8x128x64xi8>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{batch size of key (1) does not match the query's (2)}}
  %o = sinter.attention %q, %k, %v : tensor<2x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<2x8x128x64xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x32xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{head dimension of key (32) does not match the query's (64)}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x32xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_empty_head_dim(%q: tensor<1x2x16x0xbf16>, %k: tensor<1x2x16x0xbf16>, %v: tensor<1x2x16x0xbf16>) {
  // expected-error @+1 {{head dimension must be at least 1, got 0}}
  %o = sinter.attention %q, %k, %v : tensor<1x2x16x0xbf16>, tensor<1x2x16x0xbf16>, tensor<1x2x16x0xbf16> -> tensor<1x2x16x0xbf16>
  return
}

// -----

func.func @attention_empty_value_head_dim(%q: tensor<1x2x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x0xf32>) {
  // expected-error @+1 {{value head dimension must be at least 1, got 0}}
  %o = sinter.attention %q, %k, %v : tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x0xf32> -> tensor<1x2x16x0xf32>
  return
}

// -----

func.func @attention_value_shape(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x96x64xf32>) {
  // expected-error @+1 {{value must have the batch, heads and sequence length of key: [1, 8, 96] vs [1, 8, 128]}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x96x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_gqa_heads(%q: tensor<1x6x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) {
  // expected-error @+1 {{number of query heads (6) must be a multiple of the number of key/value heads (4)}}
  %o = sinter.attention %q, %k, %v : tensor<1x6x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x6x128x64xf32>
  return
}

// -----

func.func @attention_output_shape(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x32xf32>) {
  // expected-error @+1 {{output shape must be [B, Hq, Sq, Dv] = [1, 8, 128, 32], got [1, 8, 128, 64]}}
  %o = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x32xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_lse_shape(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{lse shape must be [B, Hq, Sq] = [1, 8, 128], got [1, 8, 64]}}
  %o, %l = sinter.attention %q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x64xf32>
  return
}

// -----

func.func @attention_lse_type(%q: tensor<1x8x128x64xf16>, %k: tensor<1x8x128x64xf16>, %v: tensor<1x8x128x64xf16>) {
  // expected-error @+1 {{result #1 must be ranked tensor of 32-bit float values}}
  %o, %l = sinter.attention %q, %k, %v : tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16> -> tensor<1x8x128x64xf16>, tensor<1x8x128xf16>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x96x64xf32>, %v: tensor<1x8x96x64xf32>, %m: tensor<128x128xf32>) {
  // expected-error @+1 {{mask of shape [128, 128] does not broadcast to the scores [B, Hq, Sq, Skv] = [1, 8, 128, 96]}}
  %o = sinter.attention %q, %k, %v mask(%m : tensor<128x128xf32>) : tensor<1x8x128x64xf32>, tensor<1x8x96x64xf32>, tensor<1x8x96x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %m: tensor<1x1x8x128x128xf32>) {
  // expected-error @+1 {{mask of shape [1, 1, 8, 128, 128] does not broadcast to the scores}}
  %o = sinter.attention %q, %k, %v mask(%m : tensor<1x1x8x128x128xf32>) : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{scale must be finite and nonzero, got 0}}
  %o = sinter.attention %q, %k, %v {scale = 0.0 : f32} : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_dropout_range(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %s: i64) {
  // expected-error @+1 {{dropout_p must be in [0, 1), got 1}}
  %o = sinter.attention %q, %k, %v seed(%s) {dropout_p = 1.0 : f64} : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_dropout_seed(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error @+1 {{dropout_p > 0 requires a seed operand}}
  %o = sinter.attention %q, %k, %v {dropout_p = 0.1 : f64} : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @softmax_dimension(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{dimension 2 is out of range for an input of rank 2}}
  %y = sinter.softmax %x dim 2 : tensor<4x128xf32>
  return
}

// -----

func.func @softmax_negative_dimension(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{dimension -1 is out of range for an input of rank 2}}
  %y = sinter.softmax %x dim -1 : tensor<4x128xf32>
  return
}

// -----

func.func @softmax_mask(%x: tensor<4x128xf32>, %m: tensor<64xf32>) {
  // expected-error @+1 {{mask of shape [64] does not broadcast to the input [4, 128]}}
  %y = sinter.softmax %x dim 1 mask(%m : tensor<64xf32>) : tensor<4x128xf32>
  return
}

// -----

func.func @softmax_scale(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{scale must be finite and nonzero, got inf}}
  %y = sinter.softmax %x dim 1 {scale = 0x7F800000 : f32} : tensor<4x128xf32>
  return
}

// -----

func.func @layer_norm_rank(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{normalized_rank 3 must be in [1, 2]}}
  %y = sinter.layer_norm %x {normalized_rank = 3} : tensor<4x128xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{epsilon must be positive and finite, got 0}}
  %y = sinter.layer_norm %x {epsilon = 0.0 : f32} : tensor<4x128xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @layer_norm_negative_epsilon(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{epsilon must be positive and finite, got -1e-05}}
  %y = sinter.layer_norm %x {epsilon = -1.0e-5 : f32} : tensor<4x128xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @layer_norm_output(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{output type 'tensor<4x64xbf16>' must have the shape of the input type 'tensor<4x128xf32>'}}
  %y = sinter.layer_norm %x : tensor<4x128xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<4x128xf32>, %w: tensor<4x128xf32>) {
  // expected-error @+1 {{weight shape [4, 128] must equal the normalized shape [128]}}
  %y = sinter.layer_norm %x weight(%w : tensor<4x128xf32>) : tensor<4x128xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<4x8x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias shape [16] must equal the normalized shape [8, 16]}}
  %y = sinter.layer_norm %x bias(%b : tensor<16xf32>) {normalized_rank = 2} : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  return
}

// -----

func.func @layer_norm_mean(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{mean shape [4, 1] must equal the leading (unnormalized) shape [4]}}
  %y, %m, %r = sinter.layer_norm %x : tensor<4x128xf32> -> tensor<4x128xf32> mean(tensor<4x1xf32>) rstd(tensor<4xf32>)
  return
}

// -----

func.func @layer_norm_rstd(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{rstd shape [128] must equal the leading (unnormalized) shape [4]}}
  %y, %r = sinter.layer_norm %x : tensor<4x128xf32> -> tensor<4x128xf32> rstd(tensor<128xf32>)
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<4x128xbf16>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{weight shape [64] must equal the normalized shape [128]}}
  %y = sinter.rms_norm %x weight(%w : tensor<64xbf16>) : tensor<4x128xbf16> -> tensor<4x128xbf16>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<4x128xbf16>) {
  // expected-error @+1 {{epsilon must be positive and finite, got 0}}
  %y = sinter.rms_norm %x {epsilon = 0.0 : f32} : tensor<4x128xbf16> -> tensor<4x128xbf16>
  return
}

// -----

func.func @rms_norm_rank(%x: tensor<4x128xbf16>) {
  // expected-error @+1 {{normalized_rank 0 must be in [1, 2]}}
  %y = sinter.rms_norm %x {normalized_rank = 0} : tensor<4x128xbf16> -> tensor<4x128xbf16>
  return
}

// -----

func.func @rms_norm_rstd(%x: tensor<4x128xbf16>) {
  // expected-error @+1 {{rstd shape [4, 128] must equal the leading (unnormalized) shape [4]}}
  %y, %r = sinter.rms_norm %x : tensor<4x128xbf16> -> tensor<4x128xbf16> rstd(tensor<4x128xf32>)
  return
}

// -----

func.func @adamw_empty(%lr: f32, %t: f32) {
  // expected-error @+1 {{requires at least one parameter tensor}}
  "sinter.adamw"(%lr, %t) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64, operandSegmentSizes = array<i32: 0, 0, 0, 0, 1, 1>}> : (f32, f32) -> ()
  return
}

// -----

func.func @adamw_list_length(%p: tensor<8xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{exp_avgs has 2 tensors but params has 1}}
  %r:4 = sinter.adamw params(%p : tensor<8xf32>) grads(%p : tensor<8xf32>) exp_avgs(%p, %p : tensor<8xf32>, tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t)
  return
}

// -----

func.func @adamw_shapes(%p: tensor<8xf32>, %g: tensor<4x2xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{grads #0 of shape [4, 2] does not match params #0 of shape [8]}}
  %r:3 = sinter.adamw params(%p : tensor<8xf32>) grads(%g : tensor<4x2xf32>) exp_avgs(%p : tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t)
  return
}

// -----

func.func @adamw_beta1(%p: tensor<8xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{beta1 must be in [0, 1), got 1}}
  %r:3 = sinter.adamw params(%p : tensor<8xf32>) grads(%p : tensor<8xf32>) exp_avgs(%p : tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t) {beta1 = 1.0 : f64}
  return
}

// -----

func.func @adamw_beta2(%p: tensor<8xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{beta2 must be in [0, 1), got -0.5}}
  %r:3 = sinter.adamw params(%p : tensor<8xf32>) grads(%p : tensor<8xf32>) exp_avgs(%p : tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t) {beta2 = -0.5 : f64}
  return
}

// -----

func.func @adamw_eps(%p: tensor<8xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{eps must be positive and finite, got 0}}
  %r:3 = sinter.adamw params(%p : tensor<8xf32>) grads(%p : tensor<8xf32>) exp_avgs(%p : tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t) {eps = 0.0 : f64}
  return
}

// -----

func.func @adamw_weight_decay(%p: tensor<8xf32>, %lr: f32, %t: f32) {
  // expected-error @+1 {{weight_decay must be non-negative and finite, got -0.01}}
  %r:3 = sinter.adamw params(%p : tensor<8xf32>) grads(%p : tensor<8xf32>) exp_avgs(%p : tensor<8xf32>) exp_avg_sqs(%p : tensor<8xf32>) lr(%lr) step(%t) {weight_decay = -0.01 : f64}
  return
}

// -----

func.func @fused_no_results(%x: tensor<8xf32>) {
  // expected-error @+1 {{requires at least one result}}
  "sinter.fused"(%x) <{indexing_maps = [affine_map<(d0) -> (d0)>]}> ({
  ^bb0(%a: f32):
    sinter.yield
  }) : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @fused_result_shapes(%x: tensor<8xf32>) {
  // expected-error @+1 {{all results must have the iteration shape [8], got [4]}}
  %r:2 = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a, %a : f32, f32
  } -> tensor<8xf32>, tensor<4xf32>
  return
}

// -----

func.func @fused_map_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected 1 indexing maps (one per input), got 2}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_map_dims(%x: tensor<8xf32>) {
  // expected-error @+1 {{indexing map #0 must have 1 dimensions (the iteration rank) and no symbols, got affine_map<(d0, d1) -> (d0)>}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0, d1) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_unranked_input(%x: memref<8xf32>) {
  // expected-error @+1 {{input #0 must be a ranked tensor or a scalar, got 'memref<8xf32>'}}
  %r = sinter.fused ins(%x : memref<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_map_results(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{indexing map #0 has 1 results but input #0 has rank 2}}
  %r = sinter.fused ins(%x : tensor<8x4xf32>) maps [affine_map<(d0, d1) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8x4xf32>
  return
}

// -----

func.func @fused_map_permutation(%x: tensor<8xf32>) {
  // expected-error @+1 {{indexing map #0 must be a projected permutation (broadcasts and transposes only), got affine_map<(d0, d1) -> (d0 + d1)>}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0, d1) -> (d0 + d1)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8x8xf32>
  return
}

// -----

func.func @fused_map_constant(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{input #0 dimension 0 is indexed by constant 0 and must have size 1, got 2}}
  %r = sinter.fused ins(%x : tensor<2x8xf32>) maps [affine_map<(d0, d1) -> (0, d1)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<4x8xf32>
  return
}

// -----

func.func @fused_map_size(%x: tensor<8x4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{input #1 dimension 0 (size 8) does not match iteration dimension d1 (size 4)}}
  %r = sinter.fused ins(%x, %b : tensor<8x4xf32>, tensor<8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    sinter.yield %s : f32
  } -> tensor<8x4xf32>
  return
}

// -----

func.func @fused_block_args(%x: tensor<8xf32>) {
  // expected-error @+1 {{body must have 1 arguments (one per input), got 2}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32, %b: f32):
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_block_arg_type(%x: tensor<8xbf16>) {
  // expected-error @+1 {{body argument #0 has type 'f32' but input #0 provides 'bf16'}}
  %r = sinter.fused ins(%x : tensor<8xbf16>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_terminator(%x: tensor<8xf32>) {
  // expected-error @+1 {{body must end with sinter.yield}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    llvm.unreachable
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_yield_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{body yields 2 values but the op has 1 results}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a, %a : f32, f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_yield_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{yielded value #0 has type 'f32' but result #0 has element type 'bf16'}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    sinter.yield %a : f32
  } -> tensor<8xbf16>
  return
}

// -----

func.func @fused_foreign_op(%x: tensor<8xf32>) {
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    // expected-error @+1 {{'tensor.from_elements' op is not allowed in a sinter.fused body (only arith, math and sinter.dropout ops are)}}
    %t = tensor.from_elements %a : tensor<1xf32>
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_shaped_op(%x: tensor<8xf32>) {
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    // expected-error @+1 {{'arith.constant' op must operate on scalars inside a sinter.fused body, got 'tensor<4xf32>'}}
    %c = arith.constant dense<1.0> : tensor<4xf32>
    sinter.yield %a : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @fused_isolated(%x: tensor<8xf32>, %y: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = sinter.fused ins(%x : tensor<8xf32>) maps [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    // expected-error @+1 {{using value defined outside the region}}
    %s = arith.addf %a, %y : f32
    sinter.yield %s : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @dropout_rate(%x: tensor<8xf32>, %seed: i64) {
  %r = sinter.fused ins(%x, %seed : tensor<8xf32>, i64) maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>] {
  ^bb0(%a: f32, %s: i64):
    // expected-error @+1 {{p must be in [0, 1), got 1.5}}
    %d = sinter.dropout %a, %s p = 1.5 : f32
    sinter.yield %d : f32
  } -> tensor<8xf32>
  return
}

// -----

func.func @dropout_outside_fused(%a: f32, %s: i64) -> f32 {
  // expected-error @+1 {{'sinter.dropout' op expects parent op 'sinter.fused'}}
  %d = sinter.dropout %a, %s p = 0.5 : f32
  return %d : f32
}

// -----

func.func @yield_outside_fused() {
  // expected-error @+1 {{'sinter.yield' op expects parent op 'sinter.fused'}}
  sinter.yield
}

// -----

func.func @attention_backward_rank(%do: tensor<1x8x128x64xf32>, %q: tensor<8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>) {
  // expected-error @+1 {{query must have rank 4 ([B, Hq, Sq, D]), got rank 3}}
  %g:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<1x8x128x64xf32>, tensor<8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_backward_lse(%do: tensor<1x8x128x64xf32>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x64xf32>) {
  // expected-error @+1 {{lse shape must be [B, Hq, Sq] = [1, 8, 128], got [1, 8, 64]}}
  %g:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x64xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_backward_grad_key(%do: tensor<1x8x128x64xf32>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>) {
  // expected-error @+1 {{grad_key type 'tensor<1x8x128x64xf32>' must match the key type 'tensor<1x2x128x64xf32>'}}
  %g:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x2x128x64xf32>
  return
}

// -----

func.func @attention_backward_grad_output(%do: tensor<1x8x128x64xbf16>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>) {
  // expected-error @+1 {{grad_output type 'tensor<1x8x128x64xbf16>' must match the output type 'tensor<1x8x128x64xf32>'}}
  %g:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_backward_dmask_without_mask(%do: tensor<1x8x128x64xf32>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>) {
  // expected-error @+1 {{a grad_mask result requires a mask operand}}
  %g:4 = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> dmask(tensor<1x1x128x128xf32>)
  return
}

// -----

func.func @attention_backward_dmask_shape(%do: tensor<1x8x128x64xf32>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>, %m: tensor<1x1x128x128xf32>) {
  // expected-error @+1 {{grad_mask shape [1, 8, 128, 128] must equal the mask shape [1, 1, 128, 128]}}
  %g:4 = sinter.attention_backward %do, %q, %k, %v, %o, %lse mask(%m : tensor<1x1x128x128xf32>) : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32> dmask(tensor<1x8x128x128xf32>)
  return
}

// -----

func.func @attention_backward_dropout_seed(%do: tensor<1x8x128x64xf32>, %q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>, %lse: tensor<1x8x128xf32>) {
  // expected-error @+1 {{dropout_p > 0 requires a seed operand}}
  %g:3 = sinter.attention_backward %do, %q, %k, %v, %o, %lse {dropout_p = 0.1 : f64} : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128xf32> -> tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
  return
}

// -----

func.func @softmax_backward_dim(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dimension 2 is out of range for an output of rank 2}}
  %dx = sinter.softmax_backward %dy, %y dim 2 : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

func.func @softmax_backward_scale(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{scale must be finite and nonzero, got 0}}
  %dx = sinter.softmax_backward %dy, %y dim 1 {scale = 0.0 : f32} : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_backward_stats(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<8xf32>) {
  // expected-error @+1 {{mean shape [8] must equal the leading (unnormalized) shape [4]}}
  %dx = sinter.layer_norm_backward %dy, %x, %m, %m : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_rank(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{normalized_rank 3 must be in [1, 2]}}
  %dx = sinter.layer_norm_backward %dy, %x, %m, %m {normalized_rank = 3 : i64} : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_dbias(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{grad_bias shape [4] must equal the normalized shape [8]}}
  %dx:2 = sinter.layer_norm_backward %dy, %x, %m, %m : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32> dbias(tensor<4xf32>)
  return
}

// -----

func.func @rms_norm_backward_dweight(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{a grad_weight result requires a weight operand}}
  %dx:2 = sinter.rms_norm_backward %dy, %x, %r : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32> dweight(tensor<8xf32>)
  return
}

// -----

func.func @rms_norm_backward_types(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, grad_input} have same type}}
  %dx = "sinter.rms_norm_backward"(%dy, %x, %r) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @layer_norm_backward_dy_shape(%dy: tensor<4x4xbf16>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{grad_output type 'tensor<4x4xbf16>' must have the shape of the input type 'tensor<4x8xf32>'}}
  %dx = sinter.layer_norm_backward %dy, %x, %m, %r : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32> dy(tensor<4x4xbf16>)
  return
}
