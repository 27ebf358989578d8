//===- InterchangeReductions.cpp - Reductions outside contiguous loops ----===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace sinter {
#define GEN_PASS_DEF_INTERCHANGEREDUCTIONSPASS
#include "sinter/Target/CPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {
/// See the pass description (include/sinter/Target/CPU/Passes.td).
struct InterchangeReductionsPass
    : public sinter::impl::InterchangeReductionsPassBase<
          InterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumReductionLoops() > 0 &&
          op.getNumParallelLoops() > 0 && op.getNumDpsInits() == 1)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
      unsigned n = iters.size();
      if (!linalg::isReductionIterator(iters[n - 1]))
        continue;
      // The output's innermost dimension must be a parallel loop.
      AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
      if (outMap.getNumResults() == 0)
        continue;
      auto last =
          dyn_cast<AffineDimExpr>(outMap.getResult(outMap.getNumResults() - 1));
      if (!last || !linalg::isParallelIterator(iters[last.getPosition()]))
        continue;
      unsigned j = last.getPosition();
      // Every operand that j indexes must have j as its contiguous (last)
      // dimension: a row sum x[i, k] -> y[i] keeps k innermost, x's rows.
      bool contiguous = llvm::all_of(op->getOpOperands(), [&](OpOperand &o) {
        AffineMap m = op.getMatchingIndexingMap(&o);
        if (!m.isFunctionOfDim(j))
          return true;
        if (m.getNumResults() == 0)
          return false;
        auto d = dyn_cast<AffineDimExpr>(m.getResult(m.getNumResults() - 1));
        return d && d.getPosition() == j;
      });
      if (!contiguous)
        continue;
      // New order: the other loops in their order, then j innermost.
      SmallVector<unsigned> perm;
      for (unsigned d = 0; d < n; ++d)
        if (d != j)
          perm.push_back(d);
      perm.push_back(j);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> g =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(g))
          continue;
        generic = *g;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, perm);
    }
  }
};
} // namespace
