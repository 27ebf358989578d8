//===- TMTensorOps.td - torch-mlir's tm_tensor ops, as input --*- tablegen -*-===//
//
// Part of the Sinter project.
//
// torch-mlir's linalg-on-tensors output is not pure upstream MLIR: ops that
// linalg cannot express (cumulative sums, attention kept whole) come out in
// torch-mlir's own `tm_tensor` dialect. Sinter reads that output, so it
// declares the ops it meets there with the same textual form and the
// semantics torch-mlir documents; the fusion pipeline rewrites them into
// sinter and upstream ops (`sinter-normalize-frontend`), so nothing after it
// sees this dialect. Sinter does not link torch-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD
#define SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def TMTensor_Dialect : Dialect {
  let name = "tm_tensor";
  let summary = "torch-mlir's tm_tensor ops, as Sinter reads them";
  let description = [{
    The subset of torch-mlir's TMTensor dialect that its linalg-on-tensors
    backend emits for transformer models (`scan` for `aten.cumsum`,
    `attention` for `aten.scaled_dot_product_attention` when it is not
    decomposed), parsed with torch-mlir's textual form on tensors.
    `sinter-normalize-frontend` rewrites each into upstream and sinter ops.
  }];
  let cppNamespace = "::sinter::tm_tensor";
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

class TMTensor_Op<string mnemonic, list<Trait> traits = []>
    : Op<TMTensor_Dialect, mnemonic, traits>;

def TMTensor_ScanOp : TMTensor_Op<"scan",
    [AttrSizedOperandSegments, RecursiveMemoryEffects,
     SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Inclusive or exclusive scan along one dimension";
  let description = [{
    `outs` are the scanned tensor (the input's shape) and the accumulator
    (the input's shape without `dimension`). The region combines the running
    value (second argument) with the next element (first argument). With
    `inclusive(true)` element `i` of the result combines elements `0..i`;
    with `inclusive(false)` it combines `0..i-1`, starting from the
    accumulator's initial value. The second result is the final accumulator.

    ```mlir
    %r:2 = tm_tensor.scan dimension(1) inclusive(true)
        ins(%x : tensor<2x32xi64>) outs(%init, %acc : tensor<2x32xi64>, tensor<2xi64>) {
    ^bb0(%a: i64, %b: i64):
      %s = arith.addi %a, %b : i64
      tm_tensor.yield %s : i64
    } -> tensor<2x32xi64>, tensor<2xi64>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       I64Attr:$dimension, BoolAttr:$inclusive);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `dimension` `(` $dimension `)`
    `inclusive` `(` $inclusive `)`
    attr-dict
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    $region (`->` type($results)^)?
  }];
  let hasVerifier = 1;
}

def TMTensor_AttentionOp : TMTensor_Op<"attention",
    [AttrSizedOperandSegments, Pure]> {
  let summary = "Attention over [batch..., seq, dim] tensors";
  let description = [{
    `ins` are query `[B..., M, K1]`, key `[B..., N, K1]`, value
    `[B..., N, K2]` and an optional mask `[B..., M, N]` (i1: true keeps the
    key, false adds -inf; float: added to the scores). The result is
    `softmax(scale * Q K^T + mask) V` with `scale` the attribute, or
    `1/sqrt(K1)` when it is absent.

    ```mlir
    %o = tm_tensor.attention {scale = 1.250000e-01 : f64}
        ins(%q, %k, %v, %m : tensor<8x32x64xf32>, tensor<8x32x64xf32>,
                             tensor<8x32x64xf32>, tensor<8x32x32xi1>)
        outs(%init : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    attr-dict
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    (`->` type($results)^)?
  }];
  let hasVerifier = 1;
}

def TMTensor_YieldOp : TMTensor_Op<"yield",
    [Pure, ReturnLike, Terminator, HasParent<"ScanOp">]> {
  let summary = "Yields the combined value of a scan step";
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

#endif // SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD
