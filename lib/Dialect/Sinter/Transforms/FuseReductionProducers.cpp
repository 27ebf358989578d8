//===- FuseReductionProducers.cpp - Elementwise producers into reductions -===//
//
// Part of the Sinter project.
//
// sinter-fuse-reduction-producers (Passes.td): the leftover reductions (a
// cross-entropy's log-sum-exp over the vocabulary, the bias gradients'
// column sums) compute their elementwise producers themselves instead of
// reading them from memory, and a gather (`tensor.extract` in a generic)
// of an elementwise result computes the one element it reads.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace sinter {
#define GEN_PASS_DEF_FUSEREDUCTIONPRODUCERS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {

/// An all-parallel generic whose body has no regions of its own: what a
/// consumer may recompute per element instead of reading.
bool isElementwiseProducer(linalg::GenericOp op) {
  if (!op || !op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInits() == 0)
    return false;
  return llvm::all_of(op.getBody()->getOperations(), [](Operation &inner) {
    return inner.getNumRegions() == 0;
  });
}

/// Whether a reduction reading `result` of a producer that stays for other
/// users may recompute it: only when the producer reads no more bytes than
/// the result has (a widening of bf16 logits to f32: 2 bytes for 4), else
/// the copy reads more than the result it saves reading (a sum of 25
/// gradients, 25 tensors for one). Not when a size is unknown.
bool cheaperToRecompute(linalg::GenericOp producer, OpResult result) {
  int64_t saved = sinter::tensorBytes(result.getType());
  int64_t read = 0;
  for (Value in : producer.getDpsInputs()) {
    auto t = dyn_cast<RankedTensorType>(in.getType());
    if (t && !t.hasStaticShape())
      return false;
    read += sinter::tensorBytes(in.getType());
  }
  return saved > 0 && read <= saved;
}

/// A generic with a reduction loop.
bool isReduction(linalg::GenericOp op) {
  return op && op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0;
}

// Fuses an elementwise producer into the reduction that reads it:
//
//   %e = linalg.generic {["parallel", "parallel"]}
//        ins(%x : tensor<8x50257xbf16>)
//        { %f = arith.extf %in : bf16 to f32 ... } -> tensor<8x50257xf32>
//   %m = linalg.generic {["parallel", "reduction"]}
//        ins(%e : tensor<8x50257xf32>)
//        { arith.maximumf %in, %out } -> tensor<8xf32>
//
// becomes one reduction reading %x. A producer with other users is cloned
// for the reduction (recomputed: elementwise work is cheaper than the
// round trip through memory) and stays for them -- when it reads no more
// bytes than its result has (cheaperToRecompute). Returns the fused op or
// null.
linalg::GenericOp fuseOneProducer(RewriterBase &rewriter,
                                  linalg::GenericOp consumer) {
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!isElementwiseProducer(producer) ||
        !linalg::areElementwiseOpsFusable(operand))
      continue;
    if (!producer->hasOneUse()) {
      if (!cheaperToRecompute(producer, cast<OpResult>(operand->get())))
        continue;
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      operand->set(
          copy->getResult(cast<OpResult>(operand->get()).getResultNumber()));
      producer = cast<linalg::GenericOp>(copy);
    }
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused))
      continue;
    for (OpResult r : consumer->getResults())
      rewriter.replaceAllUsesWith(r, fused->replacements.lookup(r));
    rewriter.eraseOp(consumer);
    if (producer->use_empty())
      rewriter.eraseOp(producer);
    return cast<linalg::GenericOp>(fused->fusedOp);
  }
  return nullptr;
}

// A gather of one element of an elementwise result:
//
//   %e = linalg.generic {identity maps} ins(%x) { %f = arith.extf %in ... }
//   ... %v = tensor.extract %e[%i, %j]
//
// extracts the producer's operands at the element's indices and computes
// the element from them: %xi = tensor.extract %x[%i, %j]; %v = arith.extf
// %xi. The producer's operands must be read through projected permutations
// (broadcasts and transposes) and its body must not read linalg.index.
LogicalResult computeExtractedElement(RewriterBase &rewriter,
                                      tensor::ExtractOp extract) {
  auto result = dyn_cast<OpResult>(extract.getTensor());
  auto producer =
      result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
  if (!isElementwiseProducer(producer) ||
      !producer
           .getMatchingIndexingMap(
               producer.getDpsInitOperand(result.getResultNumber()))
           .isIdentity())
    return failure();
  Block *body = producer.getBody();
  if (!body->getOps<linalg::IndexOp>().empty())
    return failure();
  for (OpOperand *input : producer.getDpsInputOperands())
    if (!producer.getMatchingIndexingMap(input).isProjectedPermutation() ||
        !isa<RankedTensorType>(input->get().getType()))
      return failure();
  // Elementwise producers from torch-mlir never read their inits.
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (!producer.getMatchingBlockArgument(&init).use_empty())
      return failure();
  rewriter.setInsertionPoint(extract);
  ValueRange indices = extract.getIndices();
  IRMapping map;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    AffineMap m = producer.getMatchingIndexingMap(input);
    SmallVector<Value> at;
    for (AffineExpr e : m.getResults())
      at.push_back(indices[cast<AffineDimExpr>(e).getPosition()]);
    Value element =
        tensor::ExtractOp::create(rewriter, extract.getLoc(), input->get(), at);
    map.map(body->getArgument(input->getOperandNumber()), element);
  }
  for (Operation &op : body->without_terminator())
    rewriter.clone(op, map);
  Value yielded = body->getTerminator()->getOperand(result.getResultNumber());
  rewriter.replaceOp(extract, map.lookupOrDefault(yielded));
  return success();
}

struct FuseReductionProducersPass
    : sinter::impl::FuseReductionProducersBase<FuseReductionProducersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Gathers first: an element computed where it is read leaves the
    // producer to the reductions alone.
    SmallVector<tensor::ExtractOp> extracts;
    getOperation()->walk([&](tensor::ExtractOp e) {
      if (e->getParentOfType<linalg::GenericOp>())
        extracts.push_back(e);
    });
    for (tensor::ExtractOp e : extracts)
      (void)computeExtractedElement(rewriter, e);
    SmallVector<linalg::GenericOp> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isReduction(op))
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions)
      while (linalg::GenericOp fused = fuseOneProducer(rewriter, op))
        op = fused;
  }
};

} // namespace
