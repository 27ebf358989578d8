//===- gpt_block_tosa.mlir - A GPT-2 block in TOSA ------------------------===//
//
// Part of the Sinter project.
//
// The GPT-2 block of examples/gpt_block.mlir (B=2, T=64, C=128, H=4, MLP=512;
// pre-LayerNorm, causal attention through an additive mask, tanh-GELU MLP)
// written in TOSA as a TOSA frontend emits it. Lower it to linalg with the
// upstream passes, then raise:
//
//   sinter-opt examples/gpt_block_tosa.mlir --tosa-to-linalg-pipeline \
//       --tosa-to-tensor --tosa-to-arith --canonicalize --cse \
//       --sinter-raise-norms --sinter-fuse-elementwise
//
//===----------------------------------------------------------------------===//

func.func @gpt_block(%x: tensor<2x64x128xf32>,
    %mask: tensor<1x64x64xf32>,
    %ln1_w: tensor<128xf32>,
    %ln1_b: tensor<128xf32>,
    %attn_w: tensor<128x384xf32>,
    %attn_b: tensor<384xf32>,
    %proj_w: tensor<128x128xf32>,
    %proj_b: tensor<128xf32>,
    %ln2_w: tensor<128xf32>,
    %ln2_b: tensor<128xf32>,
    %fc_w: tensor<128x512xf32>,
    %fc_b: tensor<512xf32>,
    %mproj_w: tensor<512x128xf32>,
    %mproj_b: tensor<128xf32>)
    -> tensor<2x64x128xf32> {
  // Constants shared by the whole block.
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %inv_c = "tosa.const"() <{values = dense<7.812500000e-03> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<9.99999974E-6> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %scale = "tosa.const"() <{values = dense<1.767766953e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %gelu_c = "tosa.const"() <{values = dense<4.471500e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %gelu_k = "tosa.const"() <{values = dense<7.978845608e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  // LayerNorm (ln_1): mean, variance of deviations, rsqrt, affine.
  %t1 = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %t2 = tosa.mul %t1, %inv_c, %shift : (tensor<2x64x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x1xf32>
  %t3 = tosa.sub %x, %t2 : (tensor<2x64x128xf32>, tensor<2x64x1xf32>) -> tensor<2x64x128xf32>
  %t4 = tosa.mul %t3, %t3, %shift : (tensor<2x64x128xf32>, tensor<2x64x128xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %t5 = tosa.reduce_sum %t4 {axis = 2 : i32} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %t6 = tosa.mul %t5, %inv_c, %shift : (tensor<2x64x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x1xf32>
  %t7 = tosa.add %t6, %eps : (tensor<2x64x1xf32>, tensor<1x1x1xf32>) -> tensor<2x64x1xf32>
  %t8 = tosa.rsqrt %t7 : (tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %t9 = tosa.mul %t3, %t8, %shift : (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %s10 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t11 = tosa.reshape %ln1_w, %s10 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %s12 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t13 = tosa.reshape %ln1_b, %s12 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %t14 = tosa.mul %t9, %t11, %shift : (tensor<2x64x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %t15 = tosa.add %t14, %t13 : (tensor<2x64x128xf32>, tensor<1x1x128xf32>) -> tensor<2x64x128xf32>
  // Linear (c_attn): matmul, then the bias add.
  %s16 = tosa.const_shape {values = dense<[1, 128, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t17 = tosa.reshape %t15, %s16 : (tensor<2x64x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %s18 = tosa.const_shape {values = dense<[1, 128, 384]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t19 = tosa.reshape %attn_w, %s18 : (tensor<128x384xf32>, !tosa.shape<3>) -> tensor<1x128x384xf32>
  %t20 = tosa.matmul %t17, %t19, %zp, %zp : (tensor<1x128x128xf32>, tensor<1x128x384xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x384xf32>
  %s21 = tosa.const_shape {values = dense<[2, 64, 384]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t22 = tosa.reshape %t20, %s21 : (tensor<1x128x384xf32>, !tosa.shape<3>) -> tensor<2x64x384xf32>
  %s23 = tosa.const_shape {values = dense<[1, 1, 384]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t24 = tosa.reshape %attn_b, %s23 : (tensor<384xf32>, !tosa.shape<3>) -> tensor<1x1x384xf32>
  %t25 = tosa.add %t22, %t24 : (tensor<2x64x384xf32>, tensor<1x1x384xf32>) -> tensor<2x64x384xf32>
  // Split heads: q, k, v as [B*H, T, D]; k transposed for the scores.
  %s26 = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s27 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t28 = tosa.slice %t25, %s26, %s27 : (tensor<2x64x384xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  %s29 = tosa.const_shape {values = dense<[2, 64, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t30 = tosa.reshape %t28, %s29 : (tensor<2x64x128xf32>, !tosa.shape<4>) -> tensor<2x64x4x32xf32>
  %t31 = tosa.transpose %t30 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
  %s32 = tosa.const_shape {values = dense<[8, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t33 = tosa.reshape %t31, %s32 : (tensor<2x4x64x32xf32>, !tosa.shape<3>) -> tensor<8x64x32xf32>
  %s34 = tosa.const_shape {values = dense<[0, 0, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s35 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t36 = tosa.slice %t25, %s34, %s35 : (tensor<2x64x384xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  %s37 = tosa.const_shape {values = dense<[2, 64, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t38 = tosa.reshape %t36, %s37 : (tensor<2x64x128xf32>, !tosa.shape<4>) -> tensor<2x64x4x32xf32>
  %t39 = tosa.transpose %t38 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
  %s40 = tosa.const_shape {values = dense<[8, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t41 = tosa.reshape %t39, %s40 : (tensor<2x4x64x32xf32>, !tosa.shape<3>) -> tensor<8x64x32xf32>
  %s42 = tosa.const_shape {values = dense<[0, 0, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s43 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t44 = tosa.slice %t25, %s42, %s43 : (tensor<2x64x384xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  %s45 = tosa.const_shape {values = dense<[2, 64, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t46 = tosa.reshape %t44, %s45 : (tensor<2x64x128xf32>, !tosa.shape<4>) -> tensor<2x64x4x32xf32>
  %t47 = tosa.transpose %t46 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
  %s48 = tosa.const_shape {values = dense<[8, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t49 = tosa.reshape %t47, %s48 : (tensor<2x4x64x32xf32>, !tosa.shape<3>) -> tensor<8x64x32xf32>
  %t50 = tosa.transpose %t41 {perms = array<i32: 0, 2, 1>} : (tensor<8x64x32xf32>) -> tensor<8x32x64xf32>
  // Attention: scaled scores, causal mask, softmax, weighted values.
  %t51 = tosa.matmul %t33, %t50, %zp, %zp : (tensor<8x64x32xf32>, tensor<8x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x64x64xf32>
  %t52 = tosa.mul %t51, %scale, %shift : (tensor<8x64x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x64x64xf32>
  %t53 = tosa.add %t52, %mask : (tensor<8x64x64xf32>, tensor<1x64x64xf32>) -> tensor<8x64x64xf32>
  %t54 = tosa.reduce_max %t53 {axis = 2 : i32} : (tensor<8x64x64xf32>) -> tensor<8x64x1xf32>
  %t55 = tosa.sub %t53, %t54 : (tensor<8x64x64xf32>, tensor<8x64x1xf32>) -> tensor<8x64x64xf32>
  %t56 = tosa.exp %t55 : (tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %t57 = tosa.reduce_sum %t56 {axis = 2 : i32} : (tensor<8x64x64xf32>) -> tensor<8x64x1xf32>
  %t58 = tosa.reciprocal %t57 : (tensor<8x64x1xf32>) -> tensor<8x64x1xf32>
  %t59 = tosa.mul %t56, %t58, %shift : (tensor<8x64x64xf32>, tensor<8x64x1xf32>, tensor<1xi8>) -> tensor<8x64x64xf32>
  %t60 = tosa.matmul %t59, %t49, %zp, %zp : (tensor<8x64x64xf32>, tensor<8x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x64x32xf32>
  %s61 = tosa.const_shape {values = dense<[2, 4, 64, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t62 = tosa.reshape %t60, %s61 : (tensor<8x64x32xf32>, !tosa.shape<4>) -> tensor<2x4x64x32xf32>
  %t63 = tosa.transpose %t62 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x4x64x32xf32>) -> tensor<2x64x4x32xf32>
  %s64 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t65 = tosa.reshape %t63, %s64 : (tensor<2x64x4x32xf32>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  // Linear (c_proj): matmul, then the bias add.
  %s66 = tosa.const_shape {values = dense<[1, 128, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t67 = tosa.reshape %t65, %s66 : (tensor<2x64x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %s68 = tosa.const_shape {values = dense<[1, 128, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t69 = tosa.reshape %proj_w, %s68 : (tensor<128x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %t70 = tosa.matmul %t67, %t69, %zp, %zp : (tensor<1x128x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x128xf32>
  %s71 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t72 = tosa.reshape %t70, %s71 : (tensor<1x128x128xf32>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  %s73 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t74 = tosa.reshape %proj_b, %s73 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %t75 = tosa.add %t72, %t74 : (tensor<2x64x128xf32>, tensor<1x1x128xf32>) -> tensor<2x64x128xf32>
  // Residual.
  %t76 = tosa.add %x, %t75 : (tensor<2x64x128xf32>, tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  // LayerNorm (ln_2): mean, variance of deviations, rsqrt, affine.
  %t77 = tosa.reduce_sum %t76 {axis = 2 : i32} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %t78 = tosa.mul %t77, %inv_c, %shift : (tensor<2x64x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x1xf32>
  %t79 = tosa.sub %t76, %t78 : (tensor<2x64x128xf32>, tensor<2x64x1xf32>) -> tensor<2x64x128xf32>
  %t80 = tosa.mul %t79, %t79, %shift : (tensor<2x64x128xf32>, tensor<2x64x128xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %t81 = tosa.reduce_sum %t80 {axis = 2 : i32} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %t82 = tosa.mul %t81, %inv_c, %shift : (tensor<2x64x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x1xf32>
  %t83 = tosa.add %t82, %eps : (tensor<2x64x1xf32>, tensor<1x1x1xf32>) -> tensor<2x64x1xf32>
  %t84 = tosa.rsqrt %t83 : (tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %t85 = tosa.mul %t79, %t84, %shift : (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %s86 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t87 = tosa.reshape %ln2_w, %s86 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %s88 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t89 = tosa.reshape %ln2_b, %s88 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %t90 = tosa.mul %t85, %t87, %shift : (tensor<2x64x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<2x64x128xf32>
  %t91 = tosa.add %t90, %t89 : (tensor<2x64x128xf32>, tensor<1x1x128xf32>) -> tensor<2x64x128xf32>
  // Linear (c_fc): matmul, then the bias add.
  %s92 = tosa.const_shape {values = dense<[1, 128, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t93 = tosa.reshape %t91, %s92 : (tensor<2x64x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %s94 = tosa.const_shape {values = dense<[1, 128, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t95 = tosa.reshape %fc_w, %s94 : (tensor<128x512xf32>, !tosa.shape<3>) -> tensor<1x128x512xf32>
  %t96 = tosa.matmul %t93, %t95, %zp, %zp : (tensor<1x128x128xf32>, tensor<1x128x512xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x512xf32>
  %s97 = tosa.const_shape {values = dense<[2, 64, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t98 = tosa.reshape %t96, %s97 : (tensor<1x128x512xf32>, !tosa.shape<3>) -> tensor<2x64x512xf32>
  %s99 = tosa.const_shape {values = dense<[1, 1, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t100 = tosa.reshape %fc_b, %s99 : (tensor<512xf32>, !tosa.shape<3>) -> tensor<1x1x512xf32>
  %t101 = tosa.add %t98, %t100 : (tensor<2x64x512xf32>, tensor<1x1x512xf32>) -> tensor<2x64x512xf32>
  // tanh-GELU: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
  %t102 = tosa.mul %t101, %t101, %shift : (tensor<2x64x512xf32>, tensor<2x64x512xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  %t103 = tosa.mul %t102, %t101, %shift : (tensor<2x64x512xf32>, tensor<2x64x512xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  %t104 = tosa.mul %t103, %gelu_c, %shift : (tensor<2x64x512xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  %t105 = tosa.add %t101, %t104 : (tensor<2x64x512xf32>, tensor<2x64x512xf32>) -> tensor<2x64x512xf32>
  %t106 = tosa.mul %t105, %gelu_k, %shift : (tensor<2x64x512xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  %t107 = tosa.tanh %t106 : (tensor<2x64x512xf32>) -> tensor<2x64x512xf32>
  %t108 = tosa.add %t107, %one : (tensor<2x64x512xf32>, tensor<1x1x1xf32>) -> tensor<2x64x512xf32>
  %t109 = tosa.mul %t101, %t108, %shift : (tensor<2x64x512xf32>, tensor<2x64x512xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  %t110 = tosa.mul %t109, %half, %shift : (tensor<2x64x512xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x512xf32>
  // Linear (mlp c_proj): matmul, then the bias add.
  %s111 = tosa.const_shape {values = dense<[1, 128, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t112 = tosa.reshape %t110, %s111 : (tensor<2x64x512xf32>, !tosa.shape<3>) -> tensor<1x128x512xf32>
  %s113 = tosa.const_shape {values = dense<[1, 512, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t114 = tosa.reshape %mproj_w, %s113 : (tensor<512x128xf32>, !tosa.shape<3>) -> tensor<1x512x128xf32>
  %t115 = tosa.matmul %t112, %t114, %zp, %zp : (tensor<1x128x512xf32>, tensor<1x512x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x128xf32>
  %s116 = tosa.const_shape {values = dense<[2, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t117 = tosa.reshape %t115, %s116 : (tensor<1x128x128xf32>, !tosa.shape<3>) -> tensor<2x64x128xf32>
  %s118 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t119 = tosa.reshape %mproj_b, %s118 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %t120 = tosa.add %t117, %t119 : (tensor<2x64x128xf32>, tensor<1x1x128xf32>) -> tensor<2x64x128xf32>
  // Residual.
  %t121 = tosa.add %t76, %t120 : (tensor<2x64x128xf32>, tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  return %t121 : tensor<2x64x128xf32>
}
