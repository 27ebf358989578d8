//===- Passes.td - Sinter raising and fusion passes --------*- tablegen -*-===//
//
// Part of the Sinter project.
//
// Every raising pass emits a remark for each fusion and each near miss (see
// FusionReport.h) and records the fused op's figures in a `sinter.fusion`
// attribute that `sinter-fusion-report` collects.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// RaiseCustomCalls
//===----------------------------------------------------------------------===//

def RaiseCustomCalls : Pass<"sinter-raise-custom-calls", "mlir::ModuleOp"> {
  let summary = "Replace calls of declarations marked `sinter.call` by the "
                "sinter ops they stand for";
  let description = [{
    A frontend that cannot emit sinter ops can still ask for one: it calls a
    private function declaration that names the op and its attributes.
    Sinter's torch.compile backend does this for its attention custom ops,
    which torch-mlir imports as `torch.operator` and cannot lower
    (python/sinter/torch/_import.py), so that a graph with attention in it
    stays one program. The contract, for every op of the table below:

    * the declaration is private and has no body; `sinter.call` is the op's
      name and `sinter.attributes` (optional) its attribute dictionary;
    * the call's operands are the op's fixed tensor operands in the op's
      order, then optionally its `mask` (a tensor), then optionally its
      `seed` (an integer);
    * the call's results are the op's results.

    | op | fixed operands | results |
    |---|---|---|
    | `sinter.attention` | query, key, value | output [, lse] |
    | `sinter.attention_backward` | grad_output, query, key, value, output, lse | grad_query, grad_key, grad_value [, grad_mask] |

    Each call becomes the op, verified as written; a call that breaks the
    contract or builds an op that fails its verifier is an error at the
    call. Declarations left without calls are erased. Runs first in
    `sinter-fusion-pipeline` (and under `sinterc --no-fusion`).

    Before:

    ```mlir
    func.func private @sinter_call_0(tensor<2x4x64x32xbf16>,
        tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>)
        -> (tensor<2x4x64x32xbf16>, tensor<2x4x64xf32>)
        attributes {sinter.call = "sinter.attention",
                    sinter.attributes = {causal}}
    ...
    %o:2 = call @sinter_call_0(%q, %k, %v) : ...
    ```

    After:

    ```mlir
    %o, %lse = sinter.attention %q, %k, %v {causal} : ...
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect"];
}

//===----------------------------------------------------------------------===//
// NormalizeFrontend
//===----------------------------------------------------------------------===//

def NormalizeFrontend : Pass<"sinter-normalize-frontend"> {
  let summary = "Rewrite frontend idioms into the canonical forms the "
                "raising passes match";
  let description = [{
    Real frontends spell the same computation in ways the matchers would
    otherwise have to know one by one. This pass, run first in
    `sinter-fusion-pipeline`, rewrites the spellings torch-mlir 20261001
    emits (test/Frontends/ has the corpus) into one form each. Every rewrite
    but the last is exact:

    * **Dead results of multi-result generics.** `aten.max.dim` lowers to one
      `linalg.generic` that yields the maximum and an i64 argmax computed
      with `linalg.index`; softmax never reads the argmax. Unused results
      (and the operands only they read) are dropped, leaving a plain max
      reduction (upstream `populateEraseUnusedOperandsAndResultsPatterns`).
    * **Float casts of constants.** `arith.truncf %c : f64 to f32` and
      `arith.extf`, `arith.sitofp`, `arith.uitofp` of a constant, in a body
      or not, become the constant they compute (round to nearest even, as
      the op itself does at run time): norm epsilons, AdamW coefficients,
      dropout's `1/(1-p)`, SDPA's scale.
    * **Integer powers.** `math.fpowi %x, 2` (Llama's RMSNorm square) becomes
      `arith.mulf %x, %x`; `math.powf %x, 2.0` too. Exact: both round the
      exact square once.
    * **Matmuls of widened operands.** torch-mlir lowers a bf16 `aten.mm`
      or `aten.addmm` (every linear layer of a bf16 model) to an f32
      `linalg.matmul` of `arith.extf` copies of both operands. The matmul
      takes the bf16 (or f16) tensors directly, accumulating in f32:
      linalg.matmul extends its operands to the accumulator's type itself,
      so the products and sums are the same, but the GEMM runs on the
      tensor cores and the widened copies are never written.
    * **`torch.lerp`.** `lerp(a, b, w)` decomposes to
      `select(|w| < 0.5, a + w*(b-a), b - (b-a)*(1-w))`. When `w` is a
      constant in [0, 0.5) (AdamW's `1 - beta`) the select is decided and
      the first branch stays.
    * **f64 statistics of f32 data** (not exact). torch's decomposition of
      `aten.native_layer_norm` computes the variance in f64: the input is
      extended to f64, reduced, and the statistic truncated back to f32.
      Such an island (f64 generics, fills and reshapes whose only inputs are
      f32/f16/bf16 tensors extended to f64, used only by a truncation back)
      is recomputed in f32. Sinter's norms accumulate in f32 as every GPU
      framework kernel does; docs/Rationale.md gives the error bound.

    Before:

    ```mlir
    %r:2 = linalg.generic {... ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>)
        outs(%minf, %zeros : tensor<4xf32>, tensor<4xi64>) {
    ^bb0(%in: f32, %m: f32, %i: i64):
      %j = linalg.index 1 : index
      ...
      linalg.yield %max, %argmax : f32, i64
    }
    %e = linalg.generic ... { %c = arith.truncf %eps : f64 to f32 ... }
    ```

    After:

    ```mlir
    %r = linalg.generic {... ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>)
        outs(%minf : tensor<4xf32>) { ... arith.maximumf ... }
    %e = linalg.generic ... { %c = arith.constant 9.99999974E-6 : f32 ... }
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let options = [
    Option<"demoteF64", "demote-f64", "bool", /*default=*/"true",
           "Recompute f64 statistics of f32 data in f32 (see above)">,
  ];
}

//===----------------------------------------------------------------------===//
// RaiseAttention
//===----------------------------------------------------------------------===//

def RaiseAttention : Pass<"sinter-raise-attention"> {
  let summary = "Raise scaled dot-product attention subgraphs to sinter.attention";
  let description = [{
    Finds `softmax(scale * Q K^T + mask) V` as frontends emit it in
    linalg-on-tensors (checked on torch-mlir 20261001's output of HF GPT-2,
    Llama, BERT, Mistral, T5, GPT-NeoX, ViT and of `F.scaled_dot_product_
    attention`, test/Frontends/) and replaces the whole chain with one
    `sinter.attention`. Run `sinter-normalize-frontend` first (the fusion
    pipeline does). Recognised forms, in any combination:

    * the two products as `linalg.batch_matmul`, `linalg.matmul`, a
      transposed-B indexing map, or a contraction `linalg.generic`; narrow
      (f16/bf16) inputs accumulated into f32, the result rounded back after
      any head reshapes;
    * Q, K and V traced back to `[B, H, S, D]` through head merges, K^T's
      transpose (or any permutation of K), uniform scales (several factors
      multiply: SDPA's `sqrt(scale)` on Q and on K^T), upcasts of f16/bf16
      operands, and GQA's head repeats (`repeat_kv`'s broadcast with its
      collapse, also merged into one `[[0, 1, 2], [3], [4]]` collapse): the
      op reads the unrepeated K/V heads;
    * scales, rounding, masks and selects between the product and the
      softmax, grouped into generics in any way;
    * masks classified by a symbolic evaluation of their computation
      (Attention/MaskAnalysis.h): arange, gathers of position ids, HF's
      packed-sequence check (`tm_tensor.scan`), index compares, constant
      `triu` literals. A mask proven to hide exactly `j > i + (Skv - Sq)`
      becomes `causal`; one proven all-zero disappears; a causal mask AND'ed
      with a data-dependent condition (padding) gives `causal` and stays as
      the `mask` operand; any other (padding, relative position bias, a
      sliding window) stays the `mask` operand, with a remark saying what it
      is. A finite hiding value (the dtype's lowest) counts as -inf only
      when no query row is fully hidden;
    * the softmax as the decomposed max/sub/exp/sum/div chain (divide or
      reciprocal-multiply), `linalg.softmax` or an already raised
      `sinter.softmax`; an f32 softmax between narrow products;
    * SDPA's guard `select(all(row == -inf), 0, P)`, which is the op's own
      definition of rows without a visible key;
    * torch-mlir's `tm_tensor.attention` (its i1 mask through the same
      analysis);
    * dropout on the probabilities as torch-mlir emits it (a random tensor
      from the frontend's generator compared with `1 - p`, the mask times
      P divided by `1 - p`, or `select(keep, P / (1 - p), 0)`; see
      `sinter-fuse-elementwise`) becomes `dropout_p` and the `seed` operand
      (the generator's seed), **only with `allow-rng-change`**: the mask is
      then drawn from Philox4x32-10 instead of the frontend's generator,
      same distribution, other bits (docs/Rationale.md). Without the option
      the chain is left unraised with a near-miss remark, never raised
      without its dropout. A dropout whose keep-mask is an input tensor
      cannot be expressed by the op either (near miss).

    Not recognised (the chain stays upstream linalg, with a remark): logit
    softcapping (Gemma 2's `cap * tanh(s / cap)`), 4-D contraction generics,
    dynamic shapes.

    The rewritten operands are reshaped to `[B, H, S, D]` (`B = 1` when the
    products are not split into heads); the scale attribute is left out when
    the frontend's factors multiply to `1/sqrt(D)` (up to their f32
    rounding). Every fusion reports the bytes of S and P (and the other
    intermediates between them) no longer written; a raised dropout adds a
    `dropout` record with the bytes of its random tensor and masks.

    The pass runs before `sinter-raise-softmax` (the documented order): it
    matches the raw chain, so softmaxes that belong to an attention are
    never raised on their own. Intermediates (scores, probabilities) with
    another user, a non-uniform scale, a softmax over another axis or shapes
    that do not line up reject the match with a near-miss remark.

    Before:

    ```mlir
    %kt = linalg.transpose ins(%k : tensor<8x64x32xf32>) outs(%e0 : tensor<8x32x64xf32>) permutation = [0, 2, 1]
    %s  = linalg.batch_matmul ins(%q, %kt : ...) outs(%z : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    // ... scale, max, sub, exp, sum, div ...
    %o  = linalg.batch_matmul ins(%p, %v : ...) outs(%z2 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    ```

    After:

    ```mlir
    %q4 = tensor.expand_shape %q [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : ...
    // likewise %k4, %v4
    %a  = sinter.attention %q4, %k4, %v4 {scale = 0.176776692 : f32}
        : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>
        -> tensor<1x8x64x32xf32>
    %o  = tensor.collapse_shape %a [[0, 1], [2], [3]] : ...
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect", "mlir::tensor::TensorDialect"];
  let options = [
    Option<"allowRngChange", "allow-rng-change", "bool", /*default=*/"false",
           "Raise dropout on the probabilities drawn from the frontend's "
           "random generator into the op's Philox dropout (same "
           "distribution, other random bits)">,
  ];
}

//===----------------------------------------------------------------------===//
// RaiseSoftmax
//===----------------------------------------------------------------------===//

def RaiseSoftmax : Pass<"sinter-raise-softmax"> {
  let summary = "Raise decomposed softmax and linalg.softmax to sinter.softmax";
  let description = [{
    Replaces a numerically stable softmax along one axis with
    `sinter.softmax`:

    * `linalg.softmax` (any dimension);
    * the decomposed chain a frontend emits: a max reduction (initialised to
      `-inf` or the lowest finite value) along axis `d`, a subtraction of
      that row max (broadcast back along `d`), `exp`, a sum reduction along
      the same axis, and a division by the sum (or a multiply by its
      reciprocal); a uniform scalar multiply of the input applied before the
      max (on the same tensor the max and subtraction read) becomes `scale`.

    Element types: the matched chain must run in the input's element type;
    `arith.extf`/`truncf` around an f32 chain stay outside the op.

    Not fused (near-miss remark): an intermediate (max, shifted input, exp,
    sum) with a user outside the chain, max and sum over different axes, a
    subtraction of anything but the row max of the same tensor.

    Before:

    ```mlir
    %m = linalg.generic {..., iterator_types = ["parallel", "reduction"]}
        ins(%x) outs(%neg_inf_filled) { arith.maximumf }
    // sub (broadcast %m), exp, sum reduction, divf
    ```

    After:

    ```mlir
    %p = sinter.softmax %x dim 1 : tensor<4x128xf32>
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect"];
}

//===----------------------------------------------------------------------===//
// FusionReport
//===----------------------------------------------------------------------===//

def FusionReport : Pass<"sinter-fusion-report", "mlir::ModuleOp"> {
  let summary = "Summarise the fusions recorded by the raising passes";
  let description = [{
    Collects every op carrying a `sinter.fusion` attribute (set by
    `sinter::reportFusion`, see FusionReport.h), and writes a JSON summary
    to `file`:

    ```json
    {
      "patterns": {"attention": 1, "layer_norm": 2},
      "total_bytes_avoided": 1234,
      "fusions": [
        {"pattern": "attention", "op": "sinter.attention",
         "location": "gpt_block.mlir:40:10", "bytes_avoided": 1048576}
      ]
    }
    ```

    With `summary` (or when neither `file` nor `summary` is given) it prints
    one line per pattern to stderr
    (`sinter-fusion-report: attention: 1 fused, 1048576 bytes avoided`).
    The `sinter.fusion` attributes are removed unless `keep-attrs` is set.
    The IR is otherwise unchanged. An op may carry several records, each
    counted under its pattern: a `sinter.fused` or `sinter.attention` that
    holds a frontend dropout raised under `allow-rng-change` has a `dropout`
    record besides its `elementwise` or `attention` one.

    The option string may also be a bare file name, so the pass flag itself
    reads as the report flag: `--sinter-fusion-report=out.json` is
    `--sinter-fusion-report="file=out.json"`. Given after the pipeline on
    the command line, it runs after it:
    `sinter-opt --sinter-fusion-pipeline --sinter-fusion-report=out.json`.
    `sinter-fusion-pipeline` also appends this pass itself when its
    `report=FILE` or `report-summary` option (`FusionOptions::reportFile`,
    `reportSummary`) is set.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "Write the JSON report to this file ('-' for stdout)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Print a one-line-per-pattern summary to stderr">,
    Option<"keepAttrs", "keep-attrs", "bool", /*default=*/"false",
           "Keep the sinter.fusion attributes on the fused ops">,
  ];
}

//===----------------------------------------------------------------------===//
// RaiseNorms
//===----------------------------------------------------------------------===//

def RaiseNorms : Pass<"sinter-raise-norms"> {
  let summary = "Raise decomposed LayerNorm and RMSNorm into sinter.layer_norm "
                "and sinter.rms_norm, and their input gradients into "
                "sinter.layer_norm_backward and sinter.rms_norm_backward";
  let description = [{
    Recognises a normalization over trailing dimensions however the frontend
    split it into ops (torch-mlir: one `linalg.generic` per aten op; TOSA after
    tosa-to-linalg: `linalg.reduce` + `tensor.expand_shape` + broadcasting
    generics; or already-fused generics) by matching on element views that
    look through elementwise ops, reductions and unit-dim reshapes:

    * LayerNorm: `mean = sum(x) / N` (or `* 1/N`), variance as the mean of
      `(x - mean)^2` or as `E[x^2] - mean^2`, `+ eps`, `rsqrt` or `1 / sqrt`,
      `(x - mean) * rstd`, optional `* weight`, optional `+ bias`.
    * RMSNorm: `x * rsqrt(mean(x^2) + eps)`, optional `* weight`.
    * f16/bf16 inputs upcast with `arith.extf` and the result truncated with
      `arith.truncf`: the arithmetic must be f32, as the ops compute.

    `normalized_rank` is the number of reduced trailing dims, `epsilon` the
    added constant. The mean and rstd tensors of a LayerNorm (and the rstd of
    an RMSNorm) may have other users, in any of their forms (keepdim,
    collapsed, broadcast: AOTAutograd's forward graphs return the keepdim
    ones, saved for the backward): they become the op's `mean`/`rstd`
    results (reshaped back to the form each user read).

    Then LayerNorm's input gradient as AOTAutograd decomposes
    `native_layer_norm_backward`, reading the saved statistics as row
    tensors: `dx = (rstd / N) * ((g * N - rowsum(g)) - xhat * rowsum(g *
    xhat))` with `g = dy * weight` and `xhat = (x - mean) * rstd` (the scale
    may sit on either side; the coefficients are checked against
    `rstd * (g - mean(g) - xhat * mean(g * xhat))`) becomes
    `sinter.layer_norm_backward`. The weight and bias gradients join it as
    its `dweight`/`dbias` results where they are plain column sums (from
    zero, over the leading dims) of `dy * xhat` and of `dy` whose users come
    after the input gradient. RMSNorm's input gradient as autograd writes
    it for `F.rms_norm`, `dx = rstd * g - x * rstd^3 * rowsum(g * x) / N`
    (with `math.fpowi` powers), becomes `sinter.rms_norm_backward`; its
    weight gradient reads the forward's saved `x * rstd` and stays a column
    sum. (In torch.compile graphs rstd^3 reads a second saved copy of rstd,
    an alias AOTAutograd passes as its own argument; sinter.torch's backend
    reads both as one value before importing.) Not raised, with a
    near-miss remark: epsilon added after the square root, any other
    intermediate with an outside user, a reduction over a non-trailing axis,
    a divisor that is not the reduced size. A multiplier or addend that is
    not of the normalized shape is left outside the raised op. Every raise
    emits a remark with the bytes of the intermediate tensors it removes.

    Before (torch-mlir, abridged):

    ```mlir
    %sum  = linalg.generic {... "reduction"} ins(%x) outs(%zero)  // sum(x)
    %mean = linalg.generic ins(%sum) ...                          // / 768
    %xc   = linalg.generic ins(%x, %mean) ...                     // x - mean
    %var  = ... sum(xc * xc) / 768 ...
    %rstd = linalg.generic ins(%var) ...                          // rsqrt(+eps)
    %y    = ... %xc * %rstd * %w + %b ...
    ```

    After:

    ```mlir
    %y = sinter.layer_norm %x weight(%w : tensor<768xf32>)
        bias(%b : tensor<768xf32>) : tensor<8x1024x768xf32> -> tensor<8x1024x768xf32>
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect",
                           "mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// RaiseAdamW
//===----------------------------------------------------------------------===//

def RaiseAdamW : Pass<"sinter-raise-adamw"> {
  let summary = "Raise per-parameter AdamW updates into multi-tensor "
                "sinter.adamw ops";
  let description = [{
    Recognises the per-parameter update of a functional AdamW step
    (`torch.optim._functional.adamw(..., foreach=False)` with the
    hyperparameters and the step folded into constants):

    ```
    p  = p * (1 - lr * wd)            (or p - lr * wd * p)
    m  = beta1 * m + (1 - beta1) * g  (or torch's lerp m + (1 - beta1) * (g - m))
    v  = beta2 * v + (1 - beta2) * g * g
    p  = p - (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)
    ```

    and groups the updates of all parameters with the same hyperparameters
    (in one block) into one `sinter.adamw`; `lr` and `step` become
    `arith.constant` f32 operands. The hyperparameters are recovered from the
    constants: betas from the moment updates, eps from the denominator, the
    step t from sqrt(1 - beta2^t), lr from lr / (1 - beta1^t) and the weight
    decay from 1 - lr * wd; each is the shortest decimal that reproduces every
    constant in f32, so results agree up to f32 rounding. Only f32 tensors.
    Not raised, with a near-miss remark: eps inside the square root, bias
    corrections that match no integer step, an intermediate (such as
    `beta2 * v`) with an outside user; different betas go to different ops.

    Before (per parameter, abridged):

    ```mlir
    %pd = linalg.generic ins(%p) ...       // p * 0.99994
    %mn = linalg.generic ins(%m, %g) ...   // m + 0.1 * (g - m)
    %vn = ... v * 0.95 + g * g * 0.05 ...
    %pn = ... %pd + (-0.000922) * %mn / (sqrt(%vn) / 0.634 + 1e-8) ...
    ```

    After:

    ```mlir
    %lr = arith.constant 6.000000e-04 : f32
    %t = arith.constant 1.000000e+01 : f32
    %r:6 = sinter.adamw params(%p0, %p1 : ...) grads(%g0, %g1 : ...)
        exp_avgs(%m0, %m1 : ...) exp_avg_sqs(%v0, %v1 : ...) lr(%lr) step(%t)
        {beta2 = 0.95 : f64, weight_decay = 1.000000e-01 : f64}
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect",
                           "mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// FuseReductionProducers
//===----------------------------------------------------------------------===//

def FuseReductionProducers : Pass<"sinter-fuse-reduction-producers"> {
  let summary = "Reductions compute their elementwise producers; gathers "
                "compute the element they read";
  let description = [{
    The reductions no raising pattern absorbed -- a cross-entropy's
    log-sum-exp over a 50257-word vocabulary, the column sums of bias
    gradients -- read tensors that elementwise generics wrote just for them:
    the f32 widening of bf16 logits, `exp(x - max)`. Each such producer is
    fused into the reduction (upstream `linalg::fuseElementwiseOps`), which
    then reads the producer's inputs: for the log-sum-exp of bf16 logits,
    2 bytes an element instead of 4 written and 4 read. A producer with
    other users is cloned for the reduction and recomputed there, since
    elementwise arithmetic costs less than its round trip through memory --
    when it reads no more bytes than its result has: a sum of many tensors
    that is written anyway (GPT-2's residual-stream gradient, 25 terms, also
    read by the embedding's backward) stays one read of its result.

    A gather inside a generic (`tensor.extract %e[%i, %j]`, cross-entropy
    picking the target's logit) of an elementwise result computes that one
    element from the producer's inputs instead, so the producer need not be
    written for it.

    Runs in `sinter-fusion-pipeline` after the raising passes (which match
    the unfused forms) and before `sinter-fuse-elementwise`. Exact: every
    element is computed by the same operations.

    Before:

    ```mlir
    %e = linalg.generic {iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<8x512xbf16>) outs(%0 : tensor<8x512xf32>) {
      ^bb0(%in: bf16, %out: f32):
        %f = arith.extf %in : bf16 to f32
        linalg.yield %f : f32 }
    %m = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%e : tensor<8x512xf32>) outs(%init : tensor<8xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %r = arith.maximumf %in, %acc : f32
        linalg.yield %r : f32 }
    ```

    After:

    ```mlir
    %m = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<8x512xbf16>) outs(%init : tensor<8xf32>) {
      ^bb0(%in: bf16, %acc: f32):
        %f = arith.extf %in : bf16 to f32
        %r = arith.maximumf %f, %acc : f32
        linalg.yield %r : f32 }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// FuseElementwise
//===----------------------------------------------------------------------===//

def FuseElementwise : Pass<"sinter-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise ops into sinter.fused";
  let description = [{
    Groups maximal producer-consumer chains of elementwise ops -- all-parallel
    `linalg.generic` and named linalg ops (`linalg.add`, `linalg.exp`,
    `linalg.elementwise`, `linalg.transpose`, ...) with scalar `arith`/`math`
    bodies, and `arith`/`math` ops on tensors -- into one `sinter.fused` each.
    Rules:

    * A group has one iteration space (its result shape). Inputs keep their
      indexing maps, so broadcasts (a bias `[N]` read as `(d0, d1) -> (d1)`)
      and transposes fuse; an edge between two members must read the same
      element, otherwise (a producer read through a broadcast or transpose)
      the ops stay in separate groups.
    * Groups are convex: a reduction, a matmul or any other non-elementwise
      op is never fused across or into.
    * Multi-result policy: an intermediate with users outside the group is an
      additional result of the fused op, when all those users come after the
      group; otherwise the chain is cut there.
    * Splat constants and fills of constants become `arith.constant` in the
      body; `linalg.fill` is never a member (it initialises accumulators).
    * Single-op policy: an isolated elementwise op with arithmetic (a matmul's
      bias add) also becomes a `sinter.fused` (`fuse-single-ops=false` leaves
      it); groups of pure data movement (a lone transpose) are left alone.
    * Residual add before a norm: run after the raising passes, the add stays
      a separate `sinter.fused` before the `sinter.layer_norm`/`rms_norm`
      rather than becoming a prologue of the norm: the residual sum is the
      residual stream, needed again by the next residual add, so it is
      written once either way and the norm reads it once.

    * Dropout with a keep-mask tensor given as an input (`mask * x / (1 -
      p)`, `select(mask, x / (1 - p), 0)`) is ordinary elementwise
      arithmetic and fuses like any chain (dropout + residual is one op).
    * Dropout drawn from the frontend's random generator -- torch-mlir's
      `aten.dropout`: a `linalg.generic` with no tensor input that hashes
      `linalg.index` and a seed into bits mapped onto [0, 1) (`aten.uniform`),
      compared with a constant `1 - p`, the mask (`uitofp` or
      `select(keep, c, 0)`) times x and `1 / (1 - p)`, or
      `select(keep, x / (1 - p), 0)` -- becomes `sinter.dropout` inside the
      fused op **only with `allow-rng-change`**, and the generator is
      removed. That keeps the distribution (each element kept independently
      with probability `1 - p`, scaled by `1 / (1 - p)`) but changes the
      bits: the mask comes from Philox4x32-10 at the element's row-major
      offset. The seed is the generator's own: its one run-time integer
      input (torch-mlir: the `torch_c.get_next_seed` value), or the one
      integer constant it reads from outside its body. Without the option the dropout stays as
      the frontend wrote it (the rest of the chain still fuses) and a
      near-miss remark says why. Not raised either (near miss): a threshold
      that is not a constant, a scale that is not `1 / (1 - p)`, a random
      tensor read through a broadcast or transpose (not one draw per
      element), a mask or random value with another user, a generator
      whose seed is ambiguous or that does not draw per element.

    Every fused op gets a remark with the bytes of intermediates no longer
    written; every refused merge a near-miss remark with its reason. A
    raised dropout adds a `dropout` record (the bytes of the random tensor
    no longer written) to the fused op's `elementwise` one.

    Before:

    ```mlir
    %h = linalg.generic {maps = [id, (d0, d1) -> (d1), id]} ins(%x, %b)  // x + b
    %g = linalg.generic ins(%h) ...                                  // gelu(h)
    ```

    After:

    ```mlir
    %g = sinter.fused ins(%x, %b : tensor<16x64xf32>, tensor<64xf32>)
        maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
    ^bb0(%xv: f32, %bv: f32):
      %s = arith.addf %xv, %bv : f32
      ...
      sinter.yield %r : f32
    } -> tensor<16x64xf32>
    ```
  }];
  let dependentDialects = ["sinter::SinterDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
  let options = [
    Option<"fuseSingleOps", "fuse-single-ops", "bool", /*default=*/"true",
           "Also wrap an isolated elementwise op into a sinter.fused">,
    Option<"allowRngChange", "allow-rng-change", "bool", /*default=*/"false",
           "Raise dropout drawn from the frontend's random generator into "
           "sinter.dropout (same distribution, other random bits)">,
  ];
}

//===----------------------------------------------------------------------===//
// CopyAliasedResults
//===----------------------------------------------------------------------===//

def CopyAliasedResults : Pass<"sinter-copy-aliased-results",
                              "mlir::func::FuncOp"> {
  let summary = "Give every returned tensor its own value: copy returned "
                "arguments, constants and repeated results";
  let description = [{
    Sinter's calling convention gives each result its own caller-allocated
    buffer. A function that returns one of its arguments unchanged, a
    constant, the same value twice, or a reshape or slice of any of these
    (graphs from torch.compile do all of it: AOTAutograd's forward returns
    inputs and views saved for the backward) would alias two of those
    buffers. Each such result is replaced by a
    copy (an identity linalg.generic into a fresh tensor), which both
    targets run as an elementwise kernel. Both target pipelines run this
    pass first.

    Before:

    ```mlir
    func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %b = math.exp ...
      return %a, %b, %b
    }
    ```

    After:

    ```mlir
      %a1 = linalg.generic {identity} ins(%a) outs(tensor.empty())
      %b1 = linalg.generic {identity} ins(%b) outs(tensor.empty())
      return %a1, %b, %b1
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
