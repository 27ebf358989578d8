//===- Aggregates.cpp - linalg aggregate ops as linalg generics -----------===//
//
// Part of the Sinter project.
//
// Upstream linalg ops that stand for several structured ops (those of
// linalg::AggregatedOpInterface: `linalg.softmax`, the Winograd transforms)
// have no loop lowering of their own. Fusion raises a `linalg.softmax` to
// sinter.softmax; one it left (or every one, with fusion off) becomes the
// op's own decomposition into linalg.generic reductions and elementwise
// generics, which every target runs.
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/SinterToLoops.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
struct DecomposeAggregate
    : OpInterfaceRewritePattern<linalg::AggregatedOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::AggregatedOpInterface op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
    if (failed(values))
      return rewriter.notifyMatchFailure(op, "the op has no decomposition");
    rewriter.replaceOp(op, *values);
    return success();
  }
};
} // namespace

void sinter::populateLinalgAggregatesToGenericsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeAggregate>(patterns.getContext());
}
