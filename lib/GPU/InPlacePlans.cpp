//===- InPlacePlans.cpp - What kernels read and write in place -----------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "InPlacePlans.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// A concatenation's part `in`: its producer runs in the part's kernel
/// (and joins `taken`) when chainProducer accepts it, directly or through a
/// collapse_shape only the concatenation reads.
static ConcatPart concatPart(Value in, tensor::ConcatOp concat,
                             const Tuning &tuning,
                             llvm::SmallPtrSetImpl<Operation *> &taken) {
  ConcatPart part;
  Value produced = in;
  if (auto reshape = in.getDefiningOp<tensor::CollapseShapeOp>();
      reshape && reshape->hasOneUse() &&
      reshape.getSrcType().hasStaticShape()) {
    part.reshape = reshape;
    produced = reshape.getSrc();
  }
  part.producer = chainProducer(produced, concat, tuning);
  if (!part.producer || taken.contains(part.producer)) {
    part.producer = nullptr;
    part.reshape = {};
    return part;
  }
  taken.insert(part.producer);
  return part;
}

/// The in-place plans of `ops`: the attention ops and backwards that take
/// the tensor-core kernels (planHeads) and the plain matmuls
/// (planMatmulOperands). The transposes this makes dead join `taken`:
/// attention's O transposes, and those whose every use a kernel reads
/// around.
InPlacePlans gpu_kernels::planInPlace(
    ArrayRef<Operation *> ops, const Tuning &tuning,
    llvm::SmallPtrSetImpl<Operation *> &taken,
    llvm::function_ref<std::optional<AttentionHeads>(Operation *)> planHeads) {
  InPlacePlans plans;
  SmallVector<Operation *> readTransposes;
  for (Operation *op : ops) {
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      if (Operation *producer = chainProducer(pad.getSource(), pad, tuning)) {
        plans.padProducers[op] = producer;
        taken.insert(producer);
      }
      continue;
    }
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      // (Not one an attention backward writes in its stead.)
      if (taken.contains(op))
        continue;
      SmallVector<ConcatPart> &parts = plans.concatParts[op];
      for (Value in : concat.getInputs())
        parts.push_back(concatPart(in, concat, tuning, taken));
      continue;
    }
    // (A chain one norm kernel computes is not another's: a norm
    // backward's epilogue may be the next norm's input.)
    if (FusedOp chain = matchNormPrologue(op, tuning);
        chain && !taken.contains(chain)) {
      plans.prologues[op] = chain;
      taken.insert(chain);
      continue;
    }
    if (FusedOp chain = matchNormBackwardEpilogue(op);
        chain && !taken.contains(chain)) {
      plans.epilogues[op] = chain;
      if (std::optional<EpilogueColumnSum> sum =
              matchEpilogueColumnSum(op, chain);
          sum && !taken.contains(sum->sum)) {
        plans.epilogueSums[op] = *sum;
        taken.insert(sum->sum);
      }
      taken.insert(chain);
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && !isElementwiseGeneric(generic)) {
      // (Not when a chain that another kernel computes reads the slice:
      // that kernel runs where its op is, maybe before this one.)
      if (std::optional<SlicedInput> sliced = planSlicedInput(generic);
          sliced && !taken.contains(sliced->slice) &&
          llvm::none_of(sliced->slice->getUsers(), [&](Operation *user) {
            return taken.contains(user);
          })) {
        taken.insert(sliced->slice);
        plans.slicedInputs[op] = *sliced;
      }
      continue;
    }
    if (isPlainMatmul(op)) {
      // (A chain that a matmul takes as its activation is no other
      // kernel's.)
      if (tuning.matmulLibraryCall)
        if (std::optional<MatmulEpilogue> e =
                matchMatmulEpilogue(cast<linalg::LinalgOp>(op)))
          if (std::optional<MatmulActivation> a = matchMatmulActivation(*e))
            taken.insert(a->chain);
      MatmulOperands operands = planMatmulOperands(cast<linalg::LinalgOp>(op));
      if (operands.readTransposes.empty())
        continue;
      llvm::append_range(readTransposes, operands.readTransposes);
      plans.matmuls[op] = std::move(operands);
      continue;
    }
    std::optional<AttentionHeads> planned = planHeads(op);
    if (!planned)
      continue;
    AttentionHeads &heads = *planned;
    if (!heads.any())
      continue;
    if (heads.outTranspose)
      taken.insert(heads.outTranspose);
    taken.insert(heads.writtenAround.begin(), heads.writtenAround.end());
    llvm::append_range(readTransposes, heads.readTransposes);
    plans.heads[op] = std::move(heads);
  }
  for (Operation *t : readTransposes)
    if (llvm::all_of(t->getUses(),
                     [&](OpOperand &use) { return plans.readsAround(use); }))
      taken.insert(t);
  return plans;
}
