//===- SlicedInputs.cpp - Reductions read a slice in its source -----------===//
//
// Part of the Sinter project.
//
// sinter-pad-matmuls pads a vocabulary-wide GEMM's columns to an aligned
// width (GPT-2's logits: 50257 -> 50264), so the cross-entropy's statistics
// reduce a slice of the padded product:
//
//   %p = <the padded logits>                 : tensor<8192x50264xbf16>
//   %s = tensor.extract_slice %p[0, 0] [8192, 50257] [1, 1]
//   %r:2 = linalg.generic {.., ["parallel", "reduction"]}
//            ins(%s : tensor<8192x50257xbf16>) outs(..)  // online logsumexp
//   ... uses of %s after %r (the forward returns it for the backward) ...
//
// A copy kernel moving the slice out (823 MB read, 823 MB written) and a
// reduction reading the copy (823 MB) become one kernel: the reduction
// reads %p at the slice's offsets and, when anything else reads %s, writes
// %s as it goes -- each element once, since the input is read through a
// permutation of the loops. Elementwise kernels already read slices in
// place (ElementwiseForms.cpp); this is the same for the serial kernel.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

std::optional<SlicedInput>
sinter::gpu_kernels::planSlicedInput(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0)
    return std::nullopt;
  for (OpOperand *in : op.getDpsInputOperands()) {
    tensor::ExtractSliceOp slice = sliceReadInPlace(in->get());
    // (A body that never reads the input would never write its copy.)
    if (!slice || !op.getMatchingIndexingMap(in).isPermutation() ||
        op.getMatchingBlockArgument(in).use_empty())
      continue;
    // What else reads the slice: in place (an elementwise input: then no
    // copy is needed; a concatenation reads a part in place only when every
    // reader does, not this reduction), and whether all of it comes after
    // this op in its block (the copy replaces the slice for every reader).
    bool copy = false, after = true;
    for (OpOperand &use : slice->getUses()) {
      if (use.getOwner() == op.getOperation())
        continue;
      copy |= !isElementwiseInput(use);
      Operation *user = op->getBlock()->findAncestorOpInBlock(*use.getOwner());
      after &= user && op->isBeforeInBlock(user);
    }
    // A copy only from a reduction along the slice's rows (its innermost
    // dimension a reduction loop: the warp-per-row form, whose lanes store
    // adjacent elements); a column sum's form re-reads points and keeps
    // the copy kernel. (Read twice by this op: the copy kernel stays.)
    AffineMap map = op.getMatchingIndexingMap(in);
    bool alongRows =
        map.getNumResults() > 0 &&
        op.getIteratorTypesArray()[map.getDimPosition(
            map.getNumResults() - 1)] == utils::IteratorType::reduction;
    if ((copy && (!after || !alongRows)) ||
        llvm::count(op.getDpsInputs(), slice.getResult()) != 1)
      continue;
    return SlicedInput{in->getOperandNumber(), slice, copy};
  }
  return std::nullopt;
}
