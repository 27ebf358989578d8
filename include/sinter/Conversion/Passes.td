//===- Passes.td - Sinter conversion passes ----------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_CONVERSION_PASSES_TD
#define SINTER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToLoopsPass : Pass<"sinter-lower-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower every sinter op to tiled scf/tensor/linalg loop nests";
  let description = [{
    Rewrites every sinter op into upstream dialects on tensors: one
    `scf.forall` iteration per program, `tensor.extract_slice` /
    `tensor.parallel_insert_slice` for the tiles a program reads and writes,
    `linalg.fill` / `linalg.generic` for the work on a tile, and `arith` /
    `math` for the scalar code. The result bufferizes with upstream
    `one-shot-bufferize{bufferize-function-boundaries}` and runs on the CPU
    after `convert-linalg-to-loops` and the usual `*-to-llvm` passes.

    Every program loop carries a discardable `sinter.tile` dictionary that
    the GPU lowering reads (`kind` = "attention", "row", "adamw" or
    "elementwise", plus the tile sizes chosen).

    * `sinter.attention`: FlashAttention-2. One program per (batch, head,
      query tile of `block-m` rows); an `scf.for` over key/value tiles of
      `block-n` rows carries the running row max, the running row sum and an
      f32 accumulator, rescaled on every tile; causal programs stop at the
      diagonal and mask the diagonal tile; ragged tails are zero-padded
      tiles whose keys are masked. No `Sq x Skv` tensor exists.
    * `sinter.softmax`, `sinter.layer_norm`, `sinter.rms_norm`: one row per
      program; the row is loaded once into an f32 tile, reduced (two passes
      over the tile for the variance), normalised and stored once.
    * `sinter.adamw`: one program nest over chunks of `elementwise-block`
      elements of every tensor, updating the parameters and moments in place.
    * `sinter.fused`: programs over blocks of the outermost dimension, each
      one `linalg.generic` with the op's maps and body; `sinter.dropout`
      becomes a Philox4x32-10 mask.

    Upstream ops without a loop lowering of their own that fusion left
    become linalg generics too: torch-mlir's `tm_tensor.scan` and
    `tm_tensor.attention`, and aggregate ops such as `linalg.softmax` (their
    upstream decomposition).

    Before:

    ```mlir
    %y = sinter.rms_norm %x : tensor<16x4096xf32> -> tensor<16x4096xf32>
    ```

    After (abridged):

    ```mlir
    %e = tensor.empty() : tensor<16x4096xf32>
    %y = scf.forall (%i) in (16) shared_outs(%o = %e) -> (tensor<16x4096xf32>) {
      %row = tensor.extract_slice %x[%i, 0] [1, 4096] [1, 1] : ...
      %ss = linalg.generic {... reduction ...} ins(%row ...) outs(...)
      %out = linalg.generic {... x * rstd ...} ins(%row ...) outs(...)
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %out into %o[%i, 0] [1, 4096] [1, 1] : ...
      }
    } {sinter.tile = {kind = "row", op = "rms_norm", row_size = 4096 : i64}}
    ```

    Results are produced in destination-passing style (generics write into
    slices of the forall's shared outs), so after bufferization outputs are
    written in place; `cse` + `canonicalize` then remove the self-copies that
    one-shot-bufferize leaves for `parallel_insert_slice`. Per-program
    scratch tiles become allocations inside the program loop: run
    `buffer-deallocation-pipeline` (after `scf-forall-to-for` on the CPU).

    Shapes must be static; an op that cannot be lowered is reported at its
    location.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Attention: query rows per program">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Attention: key/value rows per inner-loop iteration">,
    Option<"elementwiseBlock", "elementwise-block", "int64_t",
           /*default=*/"4096",
           "AdamW and fused ops: elements per program (rounded to whole "
           "rows of the outermost dimension)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

#endif // SINTER_CONVERSION_PASSES_TD
