//===- adamw_step.mlir - One AdamW step over a GPT-2 block's parameters ---===//
//
// Part of the Sinter project.
//
// torch.optim._functional.adamw(params, grads, exp_avgs, exp_avg_sqs, ...,
// foreach=False) over the 12 parameters of examples/gpt_block.mlir
// (B=2, T=64, C=128, H=4, MLP=512), as torch-mlir emits it with Python-float
// hyperparameters: one linalg.generic per aten op, the bias corrections of
// step 10 folded into constants (exact f32 hex literals). nanoGPT's
// configure_optimizers: lr = 6e-4, betas = (0.9, 0.95), eps = 1e-8, weight
// decay 0.1 on the 2-D weights and 0 on biases and LayerNorm parameters.
//
//   sinter-opt examples/adamw_step.mlir --sinter-raise-adamw
//
// gives two multi-tensor sinter.adamw ops (decay group, no-decay group).
//
// Arguments: params %p0..%p11, grads %g*, exp_avgs %m*, exp_avg_sqs %v*:
//   %p0 = ln_1.weight 128
//   %p1 = ln_1.bias 128
//   %p2 = attn.c_attn.weight 128x384
//   %p3 = attn.c_attn.bias 384
//   %p4 = attn.c_proj.weight 128x128
//   %p5 = attn.c_proj.bias 128
//   %p6 = ln_2.weight 128
//   %p7 = ln_2.bias 128
//   %p8 = mlp.c_fc.weight 128x512
//   %p9 = mlp.c_fc.bias 512
//   %p10 = mlp.c_proj.weight 512x128
//   %p11 = mlp.c_proj.bias 128
//
//===----------------------------------------------------------------------===//

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @adamw_step(%p0: tensor<128xf32>,
    %p1: tensor<128xf32>,
    %p2: tensor<128x384xf32>,
    %p3: tensor<384xf32>,
    %p4: tensor<128x128xf32>,
    %p5: tensor<128xf32>,
    %p6: tensor<128xf32>,
    %p7: tensor<128xf32>,
    %p8: tensor<128x512xf32>,
    %p9: tensor<512xf32>,
    %p10: tensor<512x128xf32>,
    %p11: tensor<128xf32>,
    %g0: tensor<128xf32>,
    %g1: tensor<128xf32>,
    %g2: tensor<128x384xf32>,
    %g3: tensor<384xf32>,
    %g4: tensor<128x128xf32>,
    %g5: tensor<128xf32>,
    %g6: tensor<128xf32>,
    %g7: tensor<128xf32>,
    %g8: tensor<128x512xf32>,
    %g9: tensor<512xf32>,
    %g10: tensor<512x128xf32>,
    %g11: tensor<128xf32>,
    %m0: tensor<128xf32>,
    %m1: tensor<128xf32>,
    %m2: tensor<128x384xf32>,
    %m3: tensor<384xf32>,
    %m4: tensor<128x128xf32>,
    %m5: tensor<128xf32>,
    %m6: tensor<128xf32>,
    %m7: tensor<128xf32>,
    %m8: tensor<128x512xf32>,
    %m9: tensor<512xf32>,
    %m10: tensor<512x128xf32>,
    %m11: tensor<128xf32>,
    %v0: tensor<128xf32>,
    %v1: tensor<128xf32>,
    %v2: tensor<128x384xf32>,
    %v3: tensor<384xf32>,
    %v4: tensor<128x128xf32>,
    %v5: tensor<128xf32>,
    %v6: tensor<128xf32>,
    %v7: tensor<128xf32>,
    %v8: tensor<128x512xf32>,
    %v9: tensor<512xf32>,
    %v10: tensor<512x128xf32>,
    %v11: tensor<128xf32>)
    -> (tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>) {
  %e_128 = tensor.empty() : tensor<128xf32>
  %e_128x128 = tensor.empty() : tensor<128x128xf32>
  %e_128x384 = tensor.empty() : tensor<128x384xf32>
  %e_128x512 = tensor.empty() : tensor<128x512xf32>
  %e_384 = tensor.empty() : tensor<384xf32>
  %e_512 = tensor.empty() : tensor<512xf32>
  %e_512x128 = tensor.empty() : tensor<512x128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m0, %g0 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb0, %g0 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd0 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn0 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd0, %mn0, %den0 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p1 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m1, %g1 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v1 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb1, %g1 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn1 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq1 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd1 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn1 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd1, %mn1, %den1 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p2 : tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x384xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m2, %g2 : tensor<128x384xf32>, tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x384xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x384xf32>
  %vn2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vb2, %g2 : tensor<128x384xf32>, tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x384xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vn2 : tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128x384xf32>
  %sd2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sq2 : tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x384xf32>
  %den2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sd2 : tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x384xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pd2, %mn2, %den2 : tensor<128x384xf32>, tensor<128x384xf32>, tensor<128x384xf32>) outs(%e_128x384 : tensor<128x384xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x384xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p3 : tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<384xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn3 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m3, %g3 : tensor<384xf32>, tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<384xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v3 : tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<384xf32>
  %vn3 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb3, %g3 : tensor<384xf32>, tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<384xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn3 : tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<384xf32>
  %sd3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq3 : tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<384xf32>
  %den3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd3 : tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<384xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd3, %mn3, %den3 : tensor<384xf32>, tensor<384xf32>, tensor<384xf32>) outs(%e_384 : tensor<384xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<384xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p4 : tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m4, %g4 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x128xf32>
  %vn4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vb4, %g4 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vn4 : tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128x128xf32>
  %sd4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sq4 : tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x128xf32>
  %den4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sd4 : tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn4 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pd4, %mn4, %den4 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) outs(%e_128x128 : tensor<128x128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd5 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p5 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn5 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m5, %g5 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb5 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v5 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn5 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb5, %g5 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq5 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn5 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd5 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq5 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den5 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd5 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn5 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd5, %mn5, %den5 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p6 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn6 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m6, %g6 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v6 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn6 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb6, %g6 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn6 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq6 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd6 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn6 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd6, %mn6, %den6 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd7 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p7 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn7 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m7, %g7 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb7 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v7 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn7 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb7, %g7 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq7 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn7 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd7 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq7 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den7 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd7 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn7 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd7, %mn7, %den7 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd8 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p8 : tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x512xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn8 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m8, %g8 : tensor<128x512xf32>, tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x512xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb8 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v8 : tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x512xf32>
  %vn8 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vb8, %g8 : tensor<128x512xf32>, tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x512xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq8 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vn8 : tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128x512xf32>
  %sd8 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sq8 : tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x512xf32>
  %den8 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sd8 : tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128x512xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn8 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pd8, %mn8, %den8 : tensor<128x512xf32>, tensor<128x512xf32>, tensor<128x512xf32>) outs(%e_128x512 : tensor<128x512xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128x512xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd9 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p9 : tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn9 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m9, %g9 : tensor<512xf32>, tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb9 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v9 : tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512xf32>
  %vn9 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb9, %g9 : tensor<512xf32>, tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq9 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn9 : tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<512xf32>
  %sd9 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq9 : tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512xf32>
  %den9 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd9 : tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn9 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd9, %mn9, %den9 : tensor<512xf32>, tensor<512xf32>, tensor<512xf32>) outs(%e_512 : tensor<512xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p10 : tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F7FFC11 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512x128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn10 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m10, %g10 : tensor<512x128xf32>, tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512x128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v10 : tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512x128xf32>
  %vn10 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vb10, %g10 : tensor<512x128xf32>, tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512x128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vn10 : tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<512x128xf32>
  %sd10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sq10 : tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512x128xf32>
  %den10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sd10 : tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<512x128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn10 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pd10, %mn10, %den10 : tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>) outs(%e_512x128 : tensor<512x128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<512x128xf32>
  // param.mul_(1 - lr * weight_decay)
  %pd11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p11 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F800000 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // exp_avg.lerp_(grad, 1 - beta1)
  %mn11 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m11, %g11 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%mm: f32, %gr: f32, %out: f32):
    %w = arith.constant 0x3DCCCCCD : f32
    %0 = arith.subf %gr, %mm : f32
    %1 = arith.mulf %w, %0 : f32
    %2 = arith.addf %mm, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  %vb11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v11 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F733333 : f32
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %vn11 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%vb11, %g11 : tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%vv: f32, %gr: f32, %out: f32):
    %c = arith.constant 0x3D4CCCCD : f32
    %0 = arith.mulf %gr, %gr : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %vv, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  %sq11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%vn11 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %sd11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq11 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x3F2229FF : f32
    %0 = arith.divf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  %den11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sd11 : tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0x322BCC77 : f32
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<128xf32>
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  %pn11 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pd11, %mn11, %den11 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%e_128 : tensor<128xf32>) {
  ^bb0(%pp: f32, %mm: f32, %dd: f32, %out: f32):
    %c = arith.constant 0xBA717CF4 : f32
    %0 = arith.divf %mm, %dd : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %pp, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<128xf32>
  return %pn0, %pn1, %pn2, %pn3, %pn4, %pn5, %pn6, %pn7, %pn8, %pn9, %pn10, %pn11, %mn0, %mn1, %mn2, %mn3, %mn4, %mn5, %mn6, %mn7, %mn8, %mn9, %mn10, %mn11, %vn0, %vn1, %vn2, %vn3, %vn4, %vn5, %vn6, %vn7, %vn8, %vn9, %vn10, %vn11 : tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x384xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<512x128xf32>, tensor<128xf32>
}
