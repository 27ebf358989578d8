//===- SinterOps.td - sinter dialect operations ------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
#define SINTER_DIALECT_SINTER_IR_SINTEROPS_TD

include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Activation tensors: half, bfloat16 or single precision storage.
def Sinter_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;
// Statistics (logsumexp, mean, rstd) are always single precision.
def Sinter_F32Tensor : RankedTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

def Sinter_AttentionOp : Sinter_Op<"attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Scaled dot-product attention (FlashAttention semantics)";
  let description = [{
    Computes, for every batch `b`, query head `h`, query row `i`:

    ```
    s[j]   = scale * dot(q[b,h,i,:], k[b,g,j,:]) + mask[b,h,i,j]
    p      = softmax(s)          (masked entries of a causal op are -inf)
    out[b,h,i,:] = sum_j dropout(p[j]) * v[b,g,j,:]
    lse[b,h,i]   = log(sum_j exp(s[j]))      (before dropout)
    ```

    Shapes: `query` is `[B, Hq, Sq, D]`, `key` is `[B, Hkv, Skv, D]`, `value`
    is `[B, Hkv, Skv, Dv]`, the output is `[B, Hq, Sq, Dv]` and the optional
    `lse` result is `[B, Hq, Sq]` in f32. `Hq` must be a multiple of `Hkv`:
    query head `h` reads key/value head `g = h / (Hq / Hkv)` (grouped-query
    attention; `Hkv = 1` is multi-query attention). Query, key, value and
    output share one element type; products are accumulated in f32.

    * `scale` defaults to `1/sqrt(D)`.
    * `causal` masks key `j` for query `i` when `j > i + (Skv - Sq)`: the
      causal diagonal is aligned to the bottom-right corner when `Sq != Skv`
      (as FlashAttention-2 and `torch.nn.attention.bias.causal_lower_right`).
      A query row with no visible key produces zeros and `lse = -inf`.
    * `mask` is an additive f16/bf16/f32 bias whose shape broadcasts to
      `[B, Hq, Sq, Skv]` (numpy rules, aligned to the trailing dimension).
    * `dropout_p` in `[0, 1)` drops probabilities with that rate and scales
      the kept ones by `1/(1-dropout_p)`; it requires a `seed` operand. The
      mask is drawn from the Philox stream at offset
      `((b*Hq + h)*Sq + i)*Skv + j`.

    Example:

    ```mlir
    %o, %lse = sinter.attention %q, %k, %v {causal}
        : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
          tensor<2x2x128x64xbf16>
        -> tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
    %o2 = sinter.attention %q, %k, %v mask(%bias : tensor<1x1x128x128xf32>)
        seed(%seed) {dropout_p = 1.000000e-01 : f64, scale = 1.250000e-01 : f32}
        : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
          tensor<2x2x128x64xbf16> -> tensor<2x8x128x64xbf16>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$query, Sinter_FloatTensor:$key,
                       Sinter_FloatTensor:$value,
                       Optional<Sinter_FloatTensor>:$mask, Optional<I64>:$seed,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p);
  let results = (outs Sinter_FloatTensor:$output,
                      Optional<Sinter_F32Tensor>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`seed` `(` $seed^ `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax scale: the `scale` attribute, or 1/sqrt(D) when absent.
    double getEffectiveScale();
  }];
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

def Sinter_SoftmaxOp : Sinter_Op<"softmax",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Numerically stable softmax along one dimension";
  let description = [{
    `result = softmax(scale * input + mask)` along `dimension`, computed as
    `exp(x - max(x)) / sum(exp(x - max(x)))` with f32 arithmetic. `scale`
    defaults to 1. The optional additive `mask` broadcasts to the input shape
    (numpy rules). A row whose entries are all `-inf` produces zeros.

    Example:

    ```mlir
    %p = sinter.softmax %s dim 3 : tensor<2x8x128x128xf32>
    %q = sinter.softmax %t dim 1 mask(%m : tensor<128xf32>)
        {scale = 1.250000e-01 : f32} : tensor<4x128xbf16>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                       Optional<Sinter_FloatTensor>:$mask,
                       I64Attr:$dimension, OptionalAttr<F32Attr>:$scale);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` $dimension (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

def Sinter_LayerNormOp : Sinter_Op<"layer_norm",
    [Pure, AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    Normalizes each slice of the `normalized_rank` trailing dimensions of
    `input`:

    ```
    mean = sum(x) / N,  var = sum((x - mean)^2) / N   (biased, as PyTorch)
    rstd = 1 / sqrt(var + epsilon)
    out  = (x - mean) * rstd * weight + bias
    ```

    `weight` and `bias` are optional and have the shape of the normalized
    dimensions. The optional `mean` and `rstd` results (f32, the shape of the
    leading dimensions) are what a backward pass needs. Statistics are
    accumulated in f32 with a numerically careful (Welford) variance. The
    output has the input's shape and any float type: `out` is computed in
    f32 and rounded once to it (an f32 residual stream normalized straight
    into the bf16 a matmul reads: `sinter-raise-norms` folds such a rounding
    into the op).

    Example:

    ```mlir
    %y = sinter.layer_norm %x weight(%w : tensor<768xbf16>)
        bias(%b : tensor<768xbf16>) {epsilon = 9.99999974E-6 : f32}
        : tensor<8x1024x768xbf16> -> tensor<8x1024x768xbf16>
    %y2, %mean, %rstd = sinter.layer_norm %x
        : tensor<8x1024x768xbf16> -> tensor<8x1024x768xbf16>
          mean(tensor<8x1024xf32>) rstd(tensor<8x1024xf32>)
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                       Optional<Sinter_FloatTensor>:$weight,
                       Optional<Sinter_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Sinter_FloatTensor:$output,
                      Optional<Sinter_F32Tensor>:$mean,
                      Optional<Sinter_F32Tensor>:$rstd);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    attr-dict `:` type($input) `->` type($output)
    (`mean` `(` type($mean)^ `)`)? (`rstd` `(` type($rstd)^ `)`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// RMSNormOp
//===----------------------------------------------------------------------===//

def Sinter_RMSNormOp : Sinter_Op<"rms_norm", [Pure]> {
  let summary = "Root-mean-square normalization over the trailing dimensions";
  let description = [{
    Normalizes each slice of the `normalized_rank` trailing dimensions:

    ```
    rstd = 1 / sqrt(sum(x^2) / N + epsilon)
    out  = x * rstd * weight
    ```

    `weight` is optional and has the shape of the normalized dimensions. The
    optional `rstd` result is f32 with the shape of the leading dimensions.
    The output has the input's shape and any float type (computed in f32,
    rounded once), as for `sinter.layer_norm`.

    Example:

    ```mlir
    %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>)
        {epsilon = 9.99999997E-7 : f32}
        : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                       Optional<Sinter_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                       DefaultValuedAttr<F32Attr, "1.0e-6f">:$epsilon);
  let results = (outs Sinter_FloatTensor:$output,
                      Optional<Sinter_F32Tensor>:$rstd);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($input) `->` type($output)
    (`rstd` `(` type($rstd)^ `)`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// AdamWOp
//===----------------------------------------------------------------------===//

def Sinter_AdamWOp : Sinter_Op<"adamw",
    [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "Multi-tensor AdamW optimizer step";
  let description = [{
    One decoupled-weight-decay Adam step (Loshchilov & Hutter; PyTorch's
    `torch.optim.AdamW`) over N parameter tensors at once. For each position
    `i` the four lists hold a parameter, its gradient and its first and second
    moments, all of one shape. With `t = step` (the step number after
    incrementing, starting at 1):

    ```
    p   = p * (1 - lr * weight_decay)
    m   = beta1 * m + (1 - beta1) * g
    v   = beta2 * v + (1 - beta2) * g * g
    p   = p - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
    ```

    computed in f32. The results are the N updated parameters, then the N
    updated first moments, then the N updated second moments; after
    bufferization they are written in place into the operands. Plain Adam is
    `weight_decay = 0`. `lr` and `step` are operands because they change from
    step to step; the betas, eps and weight decay are attributes.

    Example:

    ```mlir
    %p1, %m1, %v1 = sinter.adamw params(%p : tensor<1024xf32>)
        grads(%g : tensor<1024xf32>) exp_avgs(%m : tensor<1024xf32>)
        exp_avg_sqs(%v : tensor<1024xf32>) lr(%lr) step(%t)
        {beta1 = 9.000000e-01 : f64, weight_decay = 1.000000e-02 : f64}
    ```
  }];
  let arguments = (ins Variadic<Sinter_FloatTensor>:$params,
                       Variadic<Sinter_FloatTensor>:$grads,
                       Variadic<Sinter_FloatTensor>:$exp_avgs,
                       Variadic<Sinter_FloatTensor>:$exp_avg_sqs,
                       F32:$lr, F32:$step,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.01">:$weight_decay);
  let results = (outs Variadic<Sinter_FloatTensor>:$results);
  let assemblyFormat = [{
    `params` `(` $params `:` type($params) `)`
    `grads` `(` $grads `:` type($grads) `)`
    `exp_avgs` `(` $exp_avgs `:` type($exp_avgs) `)`
    `exp_avg_sqs` `(` $exp_avg_sqs `:` type($exp_avg_sqs) `)`
    `lr` `(` $lr `)` `step` `(` $step `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of parameter tensors updated by this op.
    unsigned getNumTensors() { return getParams().size(); }
    ::mlir::ValueRange getNewParams() {
      return getResults().take_front(getNumTensors());
    }
    ::mlir::ValueRange getNewExpAvgs() {
      return getResults().slice(getNumTensors(), getNumTensors());
    }
    ::mlir::ValueRange getNewExpAvgSqs() {
      return getResults().take_back(getNumTensors());
    }
  }];
}

//===----------------------------------------------------------------------===//
// FusedOp, YieldOp, DropoutOp
//===----------------------------------------------------------------------===//

def Sinter_FusedOp : Sinter_Op<"fused",
    [Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "A fused chain of elementwise operations";
  let description = [{
    Computes every result element in one pass: for each point `x` of the
    iteration space (the common shape of the results), the body receives one
    scalar per input -- `input[map(x)]` for a tensor input with indexing map
    `map`, the value itself for a scalar input -- and yields one scalar per
    result. The maps are projected permutations from the iteration space, so
    they express broadcasts (`(d0, d1) -> (d1)` for a bias) and transposes.
    Scalar inputs take the empty map `(d0, ...) -> ()`.

    The body is a chain of `arith` and `math` ops (and `sinter.dropout`); it
    is isolated from above, so every value it uses is an input. Lowerings read
    each input element once and write each output element once.

    Example (bias + tanh-GELU):

    ```mlir
    %y = sinter.fused ins(%x, %b : tensor<16x64xbf16>, tensor<64xbf16>)
        maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
    ^bb0(%xv: bf16, %bv: bf16):
      %a = arith.extf %xv : bf16 to f32
      %c = arith.extf %bv : bf16 to f32
      %s = arith.addf %a, %c : f32
      %g = math.tanh %s : f32
      %r = arith.truncf %g : f32 to bf16
      sinter.yield %r : bf16
    } -> tensor<16x64xbf16>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       AffineMapArrayAttr:$indexing_maps);
  let results = (outs Variadic<RankedTensorOf<[AnyType]>>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)` `maps` $indexing_maps
    attr-dict-with-keyword $body `->` type($results)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of the iteration space (the shape of every result).
    ::llvm::ArrayRef<int64_t> getIterationShape() {
      return ::llvm::cast<::mlir::RankedTensorType>(getResult(0).getType())
          .getShape();
    }
  }];
}

def Sinter_YieldOp : Sinter_Op<"yield",
    [Pure, Terminator, ReturnLike, HasParent<"FusedOp">]> {
  let summary = "Terminates a sinter.fused body with one scalar per result";
  let description = [{
    Yields the element of each result of the enclosing `sinter.fused`.

    Example:

    ```mlir
    sinter.yield %a, %b : f32, bf16
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

def Sinter_DropoutOp : Sinter_Op<"dropout",
    [Pure, HasParent<"FusedOp">, AllTypesMatch<["input", "result"]>]> {
  let summary = "Dropout of one element with a Philox counter-based mask";
  let description = [{
    Inside a `sinter.fused` body: returns `input / (1 - p)` when the element
    is kept and `0` when it is dropped. The decision for the element at linear
    (row-major) offset `o` of the enclosing op's iteration space is

    ```
    word = Philox4x32-10(counter = (o / 8, 0), key = seed)[(o % 8) / 2]
    r    = (word >> (16 * (o % 2))) & 0xffff
    keep = r >= floor(p * 2^16)
    ```

    (eight 16-bit draws per call, the even offset's in a word's low half), so
    the same seed gives the same mask on every backend and for every tile
    configuration. `p` must lie in `[0, 1)`; the dropped fraction is
    `floor(p * 2^16) / 2^16`, within 2^-16 of `p`.

    Example:

    ```mlir
    %d = sinter.dropout %x, %seed p = 1.000000e-01 : f32
    ```
  }];
  let arguments = (ins AnyFloat:$input, I64:$seed, F64Attr:$p);
  let results = (outs AnyFloat:$result);
  let assemblyFormat = "$input `,` $seed `p` `=` $p attr-dict `:` type($input)";
  let hasVerifier = 1;
}

include "sinter/Dialect/Sinter/IR/SinterBackwardOps.td"

#endif // SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
