//===- gpt_block.mlir - A GPT-2 block in linalg-on-tensors ----------------===//
//
// Part of the Sinter project.
//
// One GPT-2 transformer block (B=2, T=64, C=128, 4 heads of 32, MLP 512,
// f32) in the linalg-on-tensors form torch-mlir emits for nanoGPT's `Block`:
// pre-LayerNorm (decomposed: mean = sum/N, variance = mean of squared
// deviations, rsqrt, weight, bias), QKV projection (matmul + bias), heads
// split with expand_shape + transpose, causal attention (batch_matmul with
// K^T, scale, masked_fill of the upper triangle with -inf as a select over
// linalg.index, decomposed softmax, batch_matmul), heads merged, output
// projection + bias, residual, LayerNorm, MLP (matmul + bias + tanh-GELU,
// matmul + bias), residual.
//
//   sinter-opt examples/gpt_block.mlir --sinter-fusion-pipeline \
//       --sinter-fusion-report=report.json
//
// gives two sinter.layer_norm, one sinter.attention and sinter.fused
// elementwise chains; only the matmuls and reshapes stay linalg/tensor.
//
//===----------------------------------------------------------------------===//

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#keep3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#chan3 = affine_map<(d0, d1, d2) -> (d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @gpt_block(%x: tensor<2x64x128xf32>,
    %ln1_w: tensor<128xf32>, %ln1_b: tensor<128xf32>,
    %attn_w: tensor<128x384xf32>, %attn_b: tensor<384xf32>,
    %proj_w: tensor<128x128xf32>, %proj_b: tensor<128xf32>,
    %ln2_w: tensor<128xf32>, %ln2_b: tensor<128xf32>,
    %fc_w: tensor<128x512xf32>, %fc_b: tensor<512xf32>,
    %mproj_w: tensor<512x128xf32>, %mproj_b: tensor<128xf32>)
    -> tensor<2x64x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = arith.constant 1.280000e+02 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %scale = arith.constant 0.176776692 : f32

  // LayerNorm (ln1): torch-mlir's decomposition of aten.native_layer_norm.
  %ln1_e2 = tensor.empty() : tensor<2x64xf32>
  %ln1_z2 = linalg.fill ins(%zero : f32) outs(%ln1_e2 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %ln1_sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x64x128xf32>) outs(%ln1_z2 : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %ln1_sumk = tensor.expand_shape %ln1_sum [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
  %ln1_e1 = tensor.empty() : tensor<2x64x1xf32>
  %ln1_mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_sumk : tensor<2x64x1xf32>) outs(%ln1_e1 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<2x64x1xf32>
  %ln1_e3 = tensor.empty() : tensor<2x64x128xf32>
  %ln1_xc = linalg.generic {indexing_maps = [#id3, #keep3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ln1_mean : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%ln1_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln1_sq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_xc : tensor<2x64x128xf32>) outs(%ln1_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln1_vsum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ln1_sq : tensor<2x64x128xf32>) outs(%ln1_z2 : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %ln1_vsumk = tensor.expand_shape %ln1_vsum [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
  %ln1_rstd = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_vsumk : tensor<2x64x1xf32>) outs(%ln1_e1 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.divf %in, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x64x1xf32>
  %ln1_norm = linalg.generic {indexing_maps = [#id3, #keep3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_xc, %ln1_rstd : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%ln1_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %d = arith.mulf %in, %r : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln1_g = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_norm, %ln1_w : tensor<2x64x128xf32>, tensor<128xf32>) outs(%ln1_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %g: f32, %out: f32):
    %d = arith.mulf %in, %g : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln1 = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_g, %ln1_b : tensor<2x64x128xf32>, tensor<128xf32>) outs(%ln1_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>

  // Linear (qkv): [B*T, 128] x [128, 384] matmul, then the bias add.
  %qkv_x2 = tensor.collapse_shape %ln1 [[0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
  %qkv_e = tensor.empty() : tensor<128x384xf32>
  %qkv_z = linalg.fill ins(%zero : f32) outs(%qkv_e : tensor<128x384xf32>) -> tensor<128x384xf32>
  %qkv_mm = linalg.matmul ins(%qkv_x2, %attn_w : tensor<128x128xf32>, tensor<128x384xf32>) outs(%qkv_z : tensor<128x384xf32>) -> tensor<128x384xf32>
  %qkv_mm3 = tensor.expand_shape %qkv_mm [[0, 1], [2]] output_shape [2, 64, 384] : tensor<128x384xf32> into tensor<2x64x384xf32>
  %qkv_e3 = tensor.empty() : tensor<2x64x384xf32>
  %qkv = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qkv_mm3, %attn_b : tensor<2x64x384xf32>, tensor<384xf32>) outs(%qkv_e3 : tensor<2x64x384xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x384xf32>

  // Split heads: q, k, v as [B, H, T, D].
  %q_s = tensor.extract_slice %qkv[0, 0, 0] [2, 64, 128] [1, 1, 1] : tensor<2x64x384xf32> to tensor<2x64x128xf32>
  %q_h = tensor.expand_shape %q_s [[0], [1], [2, 3]] output_shape [2, 64, 4, 32] : tensor<2x64x128xf32> into tensor<2x64x4x32xf32>
  %q_te = tensor.empty() : tensor<2x4x64x32xf32>
  %q = linalg.transpose ins(%q_h : tensor<2x64x4x32xf32>) outs(%q_te : tensor<2x4x64x32xf32>) permutation = [0, 2, 1, 3]
  %k_s = tensor.extract_slice %qkv[0, 0, 128] [2, 64, 128] [1, 1, 1] : tensor<2x64x384xf32> to tensor<2x64x128xf32>
  %k_h = tensor.expand_shape %k_s [[0], [1], [2, 3]] output_shape [2, 64, 4, 32] : tensor<2x64x128xf32> into tensor<2x64x4x32xf32>
  %k_te = tensor.empty() : tensor<2x4x64x32xf32>
  %k = linalg.transpose ins(%k_h : tensor<2x64x4x32xf32>) outs(%k_te : tensor<2x4x64x32xf32>) permutation = [0, 2, 1, 3]
  %v_s = tensor.extract_slice %qkv[0, 0, 256] [2, 64, 128] [1, 1, 1] : tensor<2x64x384xf32> to tensor<2x64x128xf32>
  %v_h = tensor.expand_shape %v_s [[0], [1], [2, 3]] output_shape [2, 64, 4, 32] : tensor<2x64x128xf32> into tensor<2x64x4x32xf32>
  %v_te = tensor.empty() : tensor<2x4x64x32xf32>
  %v = linalg.transpose ins(%v_h : tensor<2x64x4x32xf32>) outs(%v_te : tensor<2x4x64x32xf32>) permutation = [0, 2, 1, 3]

  // Scores: q @ k^T over [B*H, T, D] (aten.matmul on 4-D tensors).
  %kt_e = tensor.empty() : tensor<2x4x32x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x64x32xf32>) outs(%kt_e : tensor<2x4x32x64xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x32x64xf32> into tensor<8x32x64xf32>
  %sc_e = tensor.empty() : tensor<8x64x64xf32>
  %sc_z = linalg.fill ins(%zero : f32) outs(%sc_e : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %sc3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%sc_z : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %sc = tensor.expand_shape %sc3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 64] : tensor<8x64x64xf32> into tensor<2x4x64x64xf32>
  // Scale by 1/sqrt(D).
  %s4_e = tensor.empty() : tensor<2x4x64x64xf32>
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sc : tensor<2x4x64x64xf32>) outs(%s4_e : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %in, %scale : f32
    linalg.yield %d : f32
  } -> tensor<2x4x64x64xf32>
  // Causal mask: masked_fill(j > i, -inf), a select over linalg.index.
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scaled : tensor<2x4x64x64xf32>) outs(%s4_e : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %above = arith.cmpi ugt, %j, %i : index
    %d = arith.select %above, %ninf, %in : f32
    linalg.yield %d : f32
  } -> tensor<2x4x64x64xf32>
  // Softmax over the keys (aten._softmax decomposed: amax, sub, exp, sum, div).
  %r4_e = tensor.empty() : tensor<2x4x64xf32>
  %r4_ninf = linalg.fill ins(%ninf : f32) outs(%r4_e : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked : tensor<2x4x64x64xf32>) outs(%r4_ninf : tensor<2x4x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x4x64xf32>
  %mxk = tensor.expand_shape %mx [[0], [1], [2, 3]] output_shape [2, 4, 64, 1] : tensor<2x4x64xf32> into tensor<2x4x64x1xf32>
  %shifted = linalg.generic {indexing_maps = [#id4, #keep4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %mxk : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%s4_e : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x4x64x64xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%shifted : tensor<2x4x64x64xf32>) outs(%s4_e : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = math.exp %in : f32
    linalg.yield %d : f32
  } -> tensor<2x4x64x64xf32>
  %r4_z = linalg.fill ins(%zero : f32) outs(%r4_e : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
  %den = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x64x64xf32>) outs(%r4_z : tensor<2x4x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4x64xf32>
  %denk = tensor.expand_shape %den [[0], [1], [2, 3]] output_shape [2, 4, 64, 1] : tensor<2x4x64xf32> into tensor<2x4x64x1xf32>
  %probs = linalg.generic {indexing_maps = [#id4, #keep4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %denk : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%s4_e : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<2x4x64x64xf32>
  // probs @ v.
  %p3 = tensor.collapse_shape %probs [[0, 1], [2], [3]] : tensor<2x4x64x64xf32> into tensor<8x64x64xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %o_e = tensor.empty() : tensor<8x64x32xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%o_z : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 32] : tensor<8x64x32xf32> into tensor<2x4x64x32xf32>
  // Merge heads: [B, H, T, D] -> [B, T, H*D].
  %ot_e = tensor.empty() : tensor<2x64x4x32xf32>
  %ot = linalg.transpose ins(%o : tensor<2x4x64x32xf32>) outs(%ot_e : tensor<2x64x4x32xf32>) permutation = [0, 2, 1, 3]
  %y = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<2x64x4x32xf32> into tensor<2x64x128xf32>

  // Linear (proj): [B*T, 128] x [128, 128] matmul, then the bias add.
  %proj_x2 = tensor.collapse_shape %y [[0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
  %proj_e = tensor.empty() : tensor<128x128xf32>
  %proj_z = linalg.fill ins(%zero : f32) outs(%proj_e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %proj_mm = linalg.matmul ins(%proj_x2, %proj_w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%proj_z : tensor<128x128xf32>) -> tensor<128x128xf32>
  %proj_mm3 = tensor.expand_shape %proj_mm [[0, 1], [2]] output_shape [2, 64, 128] : tensor<128x128xf32> into tensor<2x64x128xf32>
  %proj_e3 = tensor.empty() : tensor<2x64x128xf32>
  %proj = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%proj_mm3, %proj_b : tensor<2x64x128xf32>, tensor<128xf32>) outs(%proj_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>

  // Residual.
  %res_e = tensor.empty() : tensor<2x64x128xf32>
  %h1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %proj : tensor<2x64x128xf32>, tensor<2x64x128xf32>) outs(%res_e : tensor<2x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.addf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>

  // LayerNorm (ln2): torch-mlir's decomposition of aten.native_layer_norm.
  %ln2_e2 = tensor.empty() : tensor<2x64xf32>
  %ln2_z2 = linalg.fill ins(%zero : f32) outs(%ln2_e2 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %ln2_sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h1 : tensor<2x64x128xf32>) outs(%ln2_z2 : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %ln2_sumk = tensor.expand_shape %ln2_sum [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
  %ln2_e1 = tensor.empty() : tensor<2x64x1xf32>
  %ln2_mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_sumk : tensor<2x64x1xf32>) outs(%ln2_e1 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<2x64x1xf32>
  %ln2_e3 = tensor.empty() : tensor<2x64x128xf32>
  %ln2_xc = linalg.generic {indexing_maps = [#id3, #keep3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1, %ln2_mean : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%ln2_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln2_sq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_xc : tensor<2x64x128xf32>) outs(%ln2_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln2_vsum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ln2_sq : tensor<2x64x128xf32>) outs(%ln2_z2 : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %ln2_vsumk = tensor.expand_shape %ln2_vsum [[0], [1, 2]] output_shape [2, 64, 1] : tensor<2x64xf32> into tensor<2x64x1xf32>
  %ln2_rstd = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_vsumk : tensor<2x64x1xf32>) outs(%ln2_e1 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.divf %in, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x64x1xf32>
  %ln2_norm = linalg.generic {indexing_maps = [#id3, #keep3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_xc, %ln2_rstd : tensor<2x64x128xf32>, tensor<2x64x1xf32>) outs(%ln2_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %d = arith.mulf %in, %r : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln2_g = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_norm, %ln2_w : tensor<2x64x128xf32>, tensor<128xf32>) outs(%ln2_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %g: f32, %out: f32):
    %d = arith.mulf %in, %g : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  %ln2 = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_g, %ln2_b : tensor<2x64x128xf32>, tensor<128xf32>) outs(%ln2_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>

  // Linear (fc): [B*T, 128] x [128, 512] matmul, then the bias add.
  %fc_x2 = tensor.collapse_shape %ln2 [[0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
  %fc_e = tensor.empty() : tensor<128x512xf32>
  %fc_z = linalg.fill ins(%zero : f32) outs(%fc_e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %fc_mm = linalg.matmul ins(%fc_x2, %fc_w : tensor<128x128xf32>, tensor<128x512xf32>) outs(%fc_z : tensor<128x512xf32>) -> tensor<128x512xf32>
  %fc_mm3 = tensor.expand_shape %fc_mm [[0, 1], [2]] output_shape [2, 64, 512] : tensor<128x512xf32> into tensor<2x64x512xf32>
  %fc_e3 = tensor.empty() : tensor<2x64x512xf32>
  %fc = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc_mm3, %fc_b : tensor<2x64x512xf32>, tensor<512xf32>) outs(%fc_e3 : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x512xf32>

  // GELU, tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
  %g_e = tensor.empty() : tensor<2x64x512xf32>
  %g_cube = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc : tensor<2x64x512xf32>) outs(%g_e : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c3 = arith.constant 3.000000e+00 : f32
    %d = math.powf %in, %c3 : f32
    linalg.yield %d : f32
  } -> tensor<2x64x512xf32>
  %g_inner = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc, %g_cube : tensor<2x64x512xf32>, tensor<2x64x512xf32>) outs(%g_e : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %cube: f32, %out: f32):
    %c = arith.constant 4.471500e-02 : f32
    %kk = arith.constant 0.797884583 : f32
    %t0 = arith.mulf %cube, %c : f32
    %t1 = arith.addf %in, %t0 : f32
    %t2 = arith.mulf %t1, %kk : f32
    linalg.yield %t2 : f32
  } -> tensor<2x64x512xf32>
  %g_tanh = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g_inner : tensor<2x64x512xf32>) outs(%g_e : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = math.tanh %in : f32
    linalg.yield %d : f32
  } -> tensor<2x64x512xf32>
  %gelu = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc, %g_tanh : tensor<2x64x512xf32>, tensor<2x64x512xf32>) outs(%g_e : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %t0 = arith.mulf %in, %half : f32
    %t1 = arith.addf %t, %one : f32
    %t2 = arith.mulf %t0, %t1 : f32
    linalg.yield %t2 : f32
  } -> tensor<2x64x512xf32>

  // Linear (mproj): [B*T, 512] x [512, 128] matmul, then the bias add.
  %mproj_x2 = tensor.collapse_shape %gelu [[0, 1], [2]] : tensor<2x64x512xf32> into tensor<128x512xf32>
  %mproj_e = tensor.empty() : tensor<128x128xf32>
  %mproj_z = linalg.fill ins(%zero : f32) outs(%mproj_e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %mproj_mm = linalg.matmul ins(%mproj_x2, %mproj_w : tensor<128x512xf32>, tensor<512x128xf32>) outs(%mproj_z : tensor<128x128xf32>) -> tensor<128x128xf32>
  %mproj_mm3 = tensor.expand_shape %mproj_mm [[0, 1], [2]] output_shape [2, 64, 128] : tensor<128x128xf32> into tensor<2x64x128xf32>
  %mproj_e3 = tensor.empty() : tensor<2x64x128xf32>
  %mproj = linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mproj_mm3, %mproj_b : tensor<2x64x128xf32>, tensor<128xf32>) outs(%mproj_e3 : tensor<2x64x128xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %d = arith.addf %in, %bb : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>

  // Residual.
  %block_out = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1, %mproj : tensor<2x64x128xf32>, tensor<2x64x128xf32>) outs(%res_e : tensor<2x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.addf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x64x128xf32>
  return %block_out : tensor<2x64x128xf32>
}
