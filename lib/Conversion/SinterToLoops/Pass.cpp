//===- Pass.cpp - The sinter-lower-to-loops pass --------------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/Passes.h"
#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"

namespace sinter {
#define GEN_PASS_DEF_LOWERTOLOOPSPASS
#include "sinter/Conversion/Passes.h.inc"
} // namespace sinter

using namespace mlir;

void sinter::populateSinterToLoopsPatterns(RewritePatternSet &patterns,
                                           const SinterToLoopsOptions &opts) {
  populateAttentionToLoopsPatterns(patterns, opts);
  populateRowOpsToLoopsPatterns(patterns, opts);
  populateAdamWToLoopsPatterns(patterns, opts);
  populateFusedToLoopsPatterns(patterns, opts);
  populateRowBackwardToLinalgPatterns(patterns);
  populateAttentionBackwardToLinalgPatterns(patterns);
  populateTMTensorToLinalgPatterns(patterns);
  populateLinalgAggregatesToGenericsPatterns(patterns);
}

namespace {
/// Remembers why a pattern declined an op, so that an op left over can be
/// reported with the reason rather than a bare "failed to lower".
struct FailureReasons : public RewriterBase::Listener {
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diag(loc, DiagnosticSeverity::Remark);
    reasonCallback(diag);
    reasons[loc] = diag.str();
  }
  llvm::DenseMap<Location, std::string> reasons;
};

struct LowerToLoopsPass
    : public sinter::impl::LowerToLoopsPassBase<LowerToLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockM < 1 || blockN < 1 || elementwiseBlock < 1) {
      getOperation().emitError("sinter-lower-to-loops: block-m, block-n and "
                               "elementwise-block must be positive");
      return signalPassFailure();
    }
    sinter::SinterToLoopsOptions opts;
    opts.blockM = blockM;
    opts.blockN = blockN;
    opts.elementwiseBlock = elementwiseBlock;
    RewritePatternSet patterns(&getContext());
    sinter::populateSinterToLoopsPatterns(patterns, opts);

    FailureReasons reasons;
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps)
        .enableFolding(false)
        .setListener(&reasons);
    // The result does not matter: leftover ops are reported below.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);

    bool failed = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa_and_nonnull<sinter::SinterDialect>(op->getDialect()))
        return WalkResult::advance();
      InFlightDiagnostic diag =
          op->emitError("sinter-lower-to-loops: cannot lower '")
          << op->getName() << "'";
      auto it = reasons.reasons.find(op->getLoc());
      if (it != reasons.reasons.end())
        diag << ": " << it->second;
      failed = true;
      // The body of a sinter.fused is reported with the op.
      return WalkResult::skip();
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
