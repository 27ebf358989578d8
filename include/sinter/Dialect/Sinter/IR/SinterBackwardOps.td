//===- SinterBackwardOps.td - the backward of the sinter ops -*- tablegen -*-===//
//
// Part of the Sinter project.
//
// One backward op per forward op with state (attention, softmax, the norms).
// Each takes the gradient of the forward's result and what the forward saved
// (its output and statistics, never the S x S attention matrix) and gives the
// gradients of the forward's operands. The backward of dropout is dropout of
// the gradient with the same seed (the same sinter.dropout op, see
// buildFusedBackward); the backward of a sinter.fused chain is another
// sinter.fused built by differentiating its body.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERBACKWARDOPS_TD
#define SINTER_DIALECT_SINTER_IR_SINTERBACKWARDOPS_TD

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

def Sinter_AttentionBackwardOp : Sinter_Op<"attention_backward",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Gradients of sinter.attention (FlashAttention-2 backward)";
  let description = [{
    Given the gradient `grad_output` (`dO`) of a `sinter.attention` output
    `O` and the forward's `lse`, computes the gradients of its query, key and
    value, recomputing the attention probabilities tile by tile from `lse`
    instead of reading a stored S x S matrix. With `s`, `p` and the dropout
    decision `keep` exactly as in `sinter.attention` (same `scale`, `causal`,
    `mask`, `dropout_p` and `seed`; `p = exp(s - lse)` and 0 for hidden keys),
    `r = 1/(1 - dropout_p)` and `delta[i] = sum_d dO[i,d] * O[i,d]`:

    ```
    dV[j]  += sum_i  keep[i,j] r p[i,j] dO[i]           (over the group's heads)
    dp[i,j] = keep[i,j] r dot(dO[i], V[j])
    ds[i,j] = p[i,j] (dp[i,j] - delta[i])
    dQ[i]   = scale sum_j ds[i,j] K[j]
    dK[j]  += scale sum_i ds[i,j] Q[i]                  (over the group's heads)
    dmask   = ds, summed over the dimensions the mask broadcasts along
    ```

    Shapes follow `sinter.attention`: `query`/`grad_query` `[B, Hq, Sq, D]`,
    `key`/`grad_key` `[B, Hkv, Skv, D]`, `value`/`grad_value`
    `[B, Hkv, Skv, Dv]`, `output`/`grad_output` `[B, Hq, Sq, Dv]`, `lse`
    `[B, Hq, Sq]` f32. With grouped-query attention the gradients of a
    key/value head sum over the `Hq / Hkv` query heads that read it. The
    optional `grad_mask` result has the mask's shape and requires a mask.
    Sums are accumulated in f32 and each gradient is rounded once. With
    bf16 or f16 operands (and no `grad_mask`), `pd` and `ds` are rounded to
    that type before the products that form dV, dK and dQ, as
    FlashAttention and cuDNN round P and dS for their tensor cores.

    `deterministic` asks for a fixed summation order of dQ (no atomics); the
    CPU lowering is deterministic either way.

    On CUDA, bf16/f16 ops at head dim 64 or 128 without `grad_mask` run
    FlashAttention's backward on the tensor cores (sm_80 and later; dQ
    summed with f32 atomics, or with `deterministic` by a second kernel over
    query tiles without atomics; dropout's mask regenerated from the Philox
    stream in the kernels); the others run the reference form, whose
    products are cuBLASLt GEMMs.

    Example:

    ```mlir
    %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse
        {causal} : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>,
          tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>,
          tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
        -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
           tensor<2x2x128x64xbf16>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$grad_output,
                       Sinter_FloatTensor:$query, Sinter_FloatTensor:$key,
                       Sinter_FloatTensor:$value, Sinter_FloatTensor:$output,
                       Sinter_F32Tensor:$lse,
                       Optional<Sinter_FloatTensor>:$mask, Optional<I64>:$seed,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       UnitAttr:$deterministic);
  let results = (outs Sinter_FloatTensor:$grad_query,
                      Sinter_FloatTensor:$grad_key,
                      Sinter_FloatTensor:$grad_value,
                      Optional<Sinter_FloatTensor>:$grad_mask);
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`seed` `(` $seed^ `)`)?
    attr-dict `:` type($grad_output) `,` type($query) `,` type($key) `,`
    type($value) `,` type($output) `,` type($lse)
    `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    (`dmask` `(` type($grad_mask)^ `)`)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax scale: the `scale` attribute, or 1/sqrt(D) when absent.
    double getEffectiveScale();
  }];
}

//===----------------------------------------------------------------------===//
// SoftmaxBackwardOp
//===----------------------------------------------------------------------===//

def Sinter_SoftmaxBackwardOp : Sinter_Op<"softmax_backward",
    [Pure, AllTypesMatch<["grad_output", "output", "grad_input"]>]> {
  let summary = "Gradient of sinter.softmax from its output";
  let description = [{
    For `output = softmax(scale * input + mask)` along `dimension` and the
    gradient `grad_output` of the output:

    ```
    grad_input = scale * output * (grad_output - sum(grad_output * output))
    ```

    with the sum along `dimension`, in f32 arithmetic and rounded once.
    `scale` defaults to 1 and must be the forward's. The gradient of an
    additive mask is `grad_input / scale` summed over the dimensions the mask
    broadcasts along.

    Example:

    ```mlir
    %dx = sinter.softmax_backward %dy, %y dim 3 {scale = 1.250000e-01 : f32}
        : tensor<2x8x128x128xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$grad_output,
                       Sinter_FloatTensor:$output,
                       I64Attr:$dimension, OptionalAttr<F32Attr>:$scale);
  let results = (outs Sinter_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $output `dim` $dimension attr-dict `:` type($grad_input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// LayerNormBackwardOp
//===----------------------------------------------------------------------===//

def Sinter_LayerNormBackwardOp : Sinter_Op<"layer_norm_backward",
    [Pure, AttrSizedResultSegments,
     AllTypesMatch<["input", "grad_input"]>,
     AllTypesMatch<["mean", "rstd"]>]> {
  let summary = "Gradients of sinter.layer_norm from its statistics";
  let description = [{
    For `y = (x - mean) * rstd * weight + bias` over the `normalized_rank`
    trailing dimensions (N elements per row), the gradient `dy`, and the
    forward's saved `mean` and `rstd`: with `xhat = (x - mean) * rstd` and
    `g = dy * weight` (`dy` without a weight),

    ```
    dx      = rstd * (g - mean_row(g) - xhat * mean_row(g * xhat))
    dweight = sum over rows of dy * xhat
    dbias   = sum over rows of dy
    ```

    The optional `grad_weight` result requires the forward's `weight`
    operand; `grad_bias` needs nothing but `dy`. Row statistics and the
    column sums are accumulated in f32 and each gradient is rounded once to
    its type (the weight gradients may be f32 for a bf16 weight). `dy` has
    `x`'s shape and may be of another float type (bf16 autocast leaves the
    gradient of an f32 residual's LayerNorm in bf16): it is read in its own
    type and widened exactly, and written last as `dy(type)` (omitted when
    it is `x`'s type):

    ```mlir
    %dx = sinter.layer_norm_backward %dy, %x, %mean, %rstd
        : tensor<8x1024x768xf32>, tensor<8x1024xf32>
        -> tensor<8x1024x768xf32> dy(tensor<8x1024x768xbf16>)
    ```

    Example:

    ```mlir
    %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd
        weight(%w : tensor<768xbf16>)
        : tensor<8x1024x768xbf16>, tensor<8x1024xf32>
        -> tensor<8x1024x768xbf16> dweight(tensor<768xf32>)
           dbias(tensor<768xf32>)
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$grad_output,
                       Sinter_FloatTensor:$input,
                       Sinter_F32Tensor:$mean, Sinter_F32Tensor:$rstd,
                       Optional<Sinter_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Sinter_FloatTensor:$grad_input,
                      Optional<Sinter_FloatTensor>:$grad_weight,
                      Optional<Sinter_FloatTensor>:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $mean `,` $rstd
    (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($input) `,` type($mean) `->` type($grad_input)
    (`dweight` `(` type($grad_weight)^ `)`)?
    (`dbias` `(` type($grad_bias)^ `)`)?
    custom<GradOutputType>(type($grad_output), ref(type($input)))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// RMSNormBackwardOp
//===----------------------------------------------------------------------===//

def Sinter_RMSNormBackwardOp : Sinter_Op<"rms_norm_backward",
    [Pure, AllTypesMatch<["input", "grad_input"]>]> {
  let summary = "Gradients of sinter.rms_norm from its statistic";
  let description = [{
    For `y = x * rstd * weight` over the `normalized_rank` trailing
    dimensions, the gradient `dy` and the forward's saved `rstd`: with
    `xhat = x * rstd` and `g = dy * weight` (`dy` without a weight),

    ```
    dx      = rstd * (g - xhat * mean_row(g * xhat))
    dweight = sum over rows of dy * xhat
    ```

    The optional `grad_weight` result requires the `weight` operand. Sums
    are accumulated in f32 and each gradient is rounded once. `dy` has `x`'s
    shape and may be of another float type, read in its own.

    Example:

    ```mlir
    %dx, %dw = sinter.rms_norm_backward %dy, %x, %rstd
        weight(%w : tensor<4096xbf16>)
        : tensor<16x4096xbf16>, tensor<16xf32>
        -> tensor<16x4096xbf16> dweight(tensor<4096xf32>)
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$grad_output,
                       Sinter_FloatTensor:$input, Sinter_F32Tensor:$rstd,
                       Optional<Sinter_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Sinter_FloatTensor:$grad_input,
                      Optional<Sinter_FloatTensor>:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $rstd
    (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($input) `,` type($rstd) `->` type($grad_input)
    (`dweight` `(` type($grad_weight)^ `)`)?
    custom<GradOutputType>(type($grad_output), ref(type($input)))
  }];
  let hasVerifier = 1;
}

#endif // SINTER_DIALECT_SINTER_IR_SINTERBACKWARDOPS_TD
