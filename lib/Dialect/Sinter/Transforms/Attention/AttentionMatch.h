//===- AttentionMatch.h - softmax(scale Q K^T + mask) V ---------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The attention matcher: anchored at `O = P V`, it walks P back to the
// softmax (ProbsSide.h), the softmax input back to `S = Q K^T`
// (ScoreChain.h), and Q, K, V back to [B, H, S, D] tensors (Operands.h),
// then checks that the pieces line up and that no intermediate escapes.
// Private to lib/Dialect/Sinter/Transforms; embedders use
// populateRaiseAttentionPatterns (Transforms/Patterns.h).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_ATTENTIONMATCH_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_ATTENTIONMATCH_H

#include "Operands.h"
#include "ProbsSide.h"
#include "Products.h"
#include "ScoreChain.h"
#include "../SoftmaxMatch.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {
class AttentionOp;
namespace attention {

class AttentionMatcher {
public:
  AttentionMatcher(mlir::Operation *pv, bool allowRngChange)
      : pv(pv), allowRngChange(allowRngChange) {}

  /// On success fills the match; otherwise `reason` (and `significant` when
  /// the candidate looked enough like attention for a near-miss remark).
  bool match();
  /// Replaces the chain with one sinter.attention; adds the erased ops to
  /// `erased`.
  void rewrite(mlir::RewriterBase &rewriter,
               llvm::DenseSet<mlir::Operation *> &erased);

  std::string reason;
  bool significant = false;

private:
  bool fail(const llvm::Twine &r) {
    reason = r.str();
    return false;
  }
  bool matchOutput();
  bool matchSoftmaxOf(mlir::Value probs);
  mlir::Operation *findScoresProduct(mlir::Value softmaxInput);
  bool matchOperands();
  bool checkShapes();
  bool checkMask();
  bool checkNoEscape();
  mlir::Value buildMask(mlir::OpBuilder &b, mlir::Location loc);

  mlir::Operation *pv;
  bool allowRngChange;
  Product pvProd, qkProd;
  /// The value the fused op replaces: P V, or its rounding to Q's type.
  mlir::Value result;
  mlir::Operation *outputCast = nullptr;
  llvm::SmallVector<mlir::Operation *> outputReshapes; // P V to the cast.
  ProbsSide probs;
  SoftmaxMatch softmax;
  mlir::Operation *softmaxOp = nullptr; // An already raised sinter.softmax.
  mlir::Value softmaxInput;
  int64_t softmaxRank = 0;
  ScoreChain chain;
  Operand q, k, v;
  mlir::Type elemType;
  double scale = 1.0;
  int64_t batch = 1, heads = 1, kvHeads = 1, sq = 0, skv = 0, d = 0, dv = 0;
  llvm::SetVector<mlir::Operation *> covered;
};

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_ATTENTIONMATCH_H
