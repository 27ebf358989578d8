//===- SinterToLoops.h - sinter ops to tiled loop nests ---------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Patterns rewriting sinter ops into scf.forall/scf.for loop nests over
// tensor tiles (linalg, tensor, arith, math). One populate function per op
// family; `populateSinterToLoopsPatterns` adds them all.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_CONVERSION_SINTERTOLOOPS_H
#define SINTER_CONVERSION_SINTERTOLOOPS_H

#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <functional>

namespace sinter {

class AttentionBackwardOp;

/// Name of the discardable tile-configuration attribute (a DictionaryAttr
/// with at least a `kind` string) set on every program loop.
constexpr const char kTileAttrName[] = "sinter.tile";

/// Tile sizes of the loop nests.
struct SinterToLoopsOptions {
  /// Attention: query rows per program (clamped to Sq).
  int64_t blockM = 64;
  /// Attention: key/value rows per inner-loop iteration (clamped to Skv).
  int64_t blockN = 64;
  /// AdamW and fused ops: elements per program, rounded to whole slices of
  /// the outermost dimension.
  int64_t elementwiseBlock = 4096;
};

/// sinter.attention -> FlashAttention-2 loop nest.
void populateAttentionToLoopsPatterns(mlir::RewritePatternSet &patterns,
                                      const SinterToLoopsOptions &options);
/// sinter.softmax, sinter.layer_norm, sinter.rms_norm -> one row per program.
void populateRowOpsToLoopsPatterns(mlir::RewritePatternSet &patterns,
                                   const SinterToLoopsOptions &options);
/// sinter.adamw -> one multi-tensor program nest, in place.
void populateAdamWToLoopsPatterns(mlir::RewritePatternSet &patterns,
                                  const SinterToLoopsOptions &options);
/// sinter.fused (with sinter.dropout inside) -> one linalg.generic per
/// program.
void populateFusedToLoopsPatterns(mlir::RewritePatternSet &patterns,
                                  const SinterToLoopsOptions &options);
/// torch-mlir's `tm_tensor.scan` and `tm_tensor.attention` left by fusion,
/// as linalg generics.
void populateTMTensorToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// Upstream linalg aggregate ops (`linalg.softmax`) left by fusion, as
/// their decomposition into linalg generics.
void populateLinalgAggregatesToGenericsPatterns(
    mlir::RewritePatternSet &patterns);

/// The backward of softmax, LayerNorm and RMSNorm as whole-tensor linalg
/// generics (f32 sums, each gradient rounded once); both targets run them.
void populateRowBackwardToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// The softmax part of the above alone.
void populateSoftmaxBackwardToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// sinter.attention_backward as linalg generics over [B, Hkv, group, Sq,
/// Skv] f32 score tensors (the reference form; both targets run it). Ops
/// for which `keep` holds are left alone (the CUDA target keeps those its
/// tensor-core kernel runs).
void populateAttentionBackwardToLinalgPatterns(
    mlir::RewritePatternSet &patterns,
    std::function<bool(AttentionBackwardOp)> keep = nullptr);

/// All of the above.
void populateSinterToLoopsPatterns(mlir::RewritePatternSet &patterns,
                                   const SinterToLoopsOptions &options);

} // namespace sinter

#endif // SINTER_CONVERSION_SINTERTOLOOPS_H
