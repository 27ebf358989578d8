//===- InPlaceHeads.cpp - Attention heads read and written in place -------===//
//
// Part of the Sinter project.
//
// Frontends hand attention its heads transposed. Hugging Face writes
// q.view(B, S, H, D).transpose(1, 2) (and the same back for O), and fused
// QKV projections are sliced first; after sinter-tensor-ops-to-linalg
// (which moves the split into heads before the slice) and the outliner's
// generalization of named ops, GPT-2's attention reads, per layer:
//
//   %p = tensor.expand_shape %qkv [[0, 1], [2, 3]] output_shape [B, S, 3H, D]
//   %s = tensor.extract_slice %p[0, 0, h0, 0] [B, S, H, D] [1, 1, 1, 1]
//   %q = linalg.generic {indexing_maps = [(b, h, s, d) -> (b, s, h, d),
//                                         (b, h, s, d) -> (b, h, s, d)]}
//        ins(%s : tensor<BxSxHxD>) outs(%e : tensor<BxHxSxD>) {
//          ^bb0(%in, %out): linalg.yield %in }
//   ... the same for K (h0 = H) and V (h0 = 2H) ...
//   %o = sinter.attention %q, %k, %v {causal} -> tensor<BxHxSxD>
//   %t = linalg.generic {the same maps} ins(%o) outs(tensor<BxSxHxD>)
//   %c = tensor.collapse_shape %t [[0, 1], [2, 3]] -> tensor<(BS)x(HD)>
//
// Each transpose is a kernel that moves its whole tensor through memory
// twice (12.6 MB each way per tensor and layer at GPT-2's B8 T1024: four
// of them per layer). The tensor-core kernel moves rows of D contiguous
// elements anyway, by cp.async or by TMA boxes, so it reads Q, K and V in
// place in the projection ([B, S, 3H, D], a row stride of 3H * D and a
// head offset) and writes O straight into the [B, S, H, D] tensor the
// output projection reads. The transposes become dead.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Whether `t` is the generic a linalg.transpose with permutation
/// [0, 2, 1, 3] generalizes to (above).
static bool isHeadTranspose(linalg::GenericOp t) {
  return isTransposeCopy(t, {0, 2, 1, 3});
}

/// The layout of `operand` (Q, K or V) read in place: the input of its head
/// transpose, or the source of the head slice that input is (offsets [0,
/// 0, h0, 0], whole along the other dimensions). Dense when `operand` is
/// no head transpose.
static HeadLayout readInPlace(Value operand) {
  auto t = operand.getDefiningOp<linalg::GenericOp>();
  if (!isHeadTranspose(t))
    return {};
  HeadLayout layout;
  layout.seqMajor = true;
  layout.tensor = t.getDpsInputs()[0];
  layout.bufferHeads =
      cast<RankedTensorType>(layout.tensor.getType()).getDimSize(2);
  auto slice = layout.tensor.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.hasUnitStride() ||
      slice.getSourceType().getRank() != 4 ||
      ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
      ShapedType::isDynamicShape(slice.getStaticSizes()))
    return layout;
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> source = slice.getSourceType().getShape();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  for (int64_t d : {0, 1, 3})
    if (offsets[d] != 0 || sizes[d] != source[d])
      return layout;
  layout.tensor = slice.getSource();
  layout.bufferHeads = source[2];
  layout.headOffset = offsets[2];
  return layout;
}

/// The layout O is written in place in: the result of the head transpose
/// that is the attention's only use of it (the transpose then goes).
static HeadLayout writeInPlace(Value out, Operation *&transpose) {
  if (!out.hasOneUse())
    return {};
  auto t = dyn_cast<linalg::GenericOp>(*out.getUsers().begin());
  if (!isHeadTranspose(t) || t.getDpsInputs()[0] != out)
    return {};
  transpose = t;
  HeadLayout layout;
  layout.seqMajor = true;
  layout.tensor = t->getResult(0);
  layout.bufferHeads = cast<RankedTensorType>(out.getType()).getDimSize(1);
  return layout;
}

/// Plans reading `op`'s operand `number` in place into `layout`.
static void planRead(Operation *op, unsigned number, HeadLayout &layout,
                     AttentionHeads &heads) {
  Value operand = op->getOperand(number);
  layout = readInPlace(operand);
  if (!layout.seqMajor)
    return;
  heads.operandsReadInPlace.push_back(number);
  if (!llvm::is_contained(heads.readTransposes, operand.getDefiningOp()))
    heads.readTransposes.push_back(operand.getDefiningOp());
}

AttentionHeads sinter::gpu_kernels::planAttentionHeads(AttentionOp op) {
  AttentionHeads heads;
  planRead(op, op.getQueryMutable().getOperandNumber(), heads.q, heads);
  planRead(op, op.getKeyMutable().getOperandNumber(), heads.k, heads);
  planRead(op, op.getValueMutable().getOperandNumber(), heads.v, heads);
  heads.out = writeInPlace(op.getOutput(), heads.outTranspose);
  return heads;
}

// The backward reads the same projections (its Q, K and V are the
// forward's, saved) and dO in the layout the output projection's input
// gradient has, [B, S, H, D] before its head transpose:
//
//   %g = tensor.expand_shape %dx [[0, 1], [2, 3]] output_shape [B, S, H, D]
//   %do = linalg.generic {the head transpose's maps} ins(%g) outs(..)
//   %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse
//
// Its kernels copy rows of D contiguous elements with cp.async, so they
// read all four in place (O, the forward's own dense result, stays dense).
//
// Its gradients go back to the fused projection's gradient: each is
// transposed to [B, S, H, D], merged to [B, S, H * D], and the three are
// joined along the last dimension:
//
//   %t = linalg.generic {the head transpose's maps} ins(%dq) ... (dK, dV too)
//   %m = tensor.collapse_shape %t [[0], [1], [2, 3]]
//   %c = tensor.concat dim(2) %mq, %mk, %mv
//
// The kernels store rows of D contiguous elements too, so they write each
// gradient straight into %c viewed as [B, S, Hq + 2 Hkv, D] at its part's
// head offset; the concatenation, the merges and the transposes go.

/// The merge into [B, S, H * D] of `grad`'s head transpose (`transpose`),
/// when that chain is the only use of each, or null.
static tensor::CollapseShapeOp mergedHeads(Value grad, Operation *&transpose) {
  if (!grad.hasOneUse())
    return {};
  auto t = dyn_cast<linalg::GenericOp>(*grad.getUsers().begin());
  if (!isHeadTranspose(t) || t.getDpsInputs()[0] != grad ||
      !t->getResult(0).hasOneUse())
    return {};
  auto merge =
      dyn_cast<tensor::CollapseShapeOp>(*t->getResult(0).getUsers().begin());
  if (!merge || merge.getSrcType().getRank() != 4 ||
      merge.getResultType().getRank() != 3 || !merge->hasOneUse() ||
      merge.getReassociationIndices().back().size() != 2)
    return {};
  transpose = t;
  return merge;
}

/// Plans writing dQ, dK and dV into the concatenation that joins them
/// (above); leaves them dense unless all three go there.
static void planGradientConcat(AttentionBackwardOp op, AttentionHeads &heads) {
  Value grads[] = {op.getGradQuery(), op.getGradKey(), op.getGradValue()};
  HeadLayout *layouts[] = {&heads.gradQuery, &heads.gradKey, &heads.gradValue};
  Operation *transposes[3];
  tensor::CollapseShapeOp merges[3];
  for (int i = 0; i < 3; ++i)
    if (!(merges[i] = mergedHeads(grads[i], transposes[i])))
      return;
  auto concat = dyn_cast<tensor::ConcatOp>(*merges[0]->getUsers().begin());
  if (!concat || concat.getDim() != 2 || concat.getInputs().size() != 3 ||
      !concat.getResultType().hasStaticShape())
    return;
  int64_t D = cast<RankedTensorType>(grads[0].getType()).getDimSize(3);
  int64_t offset = 0;
  int64_t offsets[3] = {-1, -1, -1};
  for (Value in : concat.getInputs()) {
    auto *it = llvm::find_if(
        merges, [&](tensor::CollapseShapeOp m) { return m.getResult() == in; });
    if (it == std::end(merges))
      return;
    offsets[it - std::begin(merges)] = offset;
    offset += cast<RankedTensorType>(in.getType()).getDimSize(2) / D;
  }
  for (int i = 0; i < 3; ++i) {
    layouts[i]->seqMajor = true;
    layouts[i]->tensor = concat.getResult();
    layouts[i]->bufferHeads = offset;
    layouts[i]->headOffset = offsets[i];
  }
  heads.writtenAround.push_back(concat);
  heads.writtenAround.append(std::begin(merges), std::end(merges));
  heads.writtenAround.append(std::begin(transposes), std::end(transposes));
}

AttentionHeads
sinter::gpu_kernels::planAttentionBackwardHeads(AttentionBackwardOp op) {
  AttentionHeads heads;
  planRead(op, op.getGradOutputMutable().getOperandNumber(), heads.gradOut,
           heads);
  planRead(op, op.getQueryMutable().getOperandNumber(), heads.q, heads);
  planRead(op, op.getKeyMutable().getOperandNumber(), heads.k, heads);
  planRead(op, op.getValueMutable().getOperandNumber(), heads.v, heads);
  planGradientConcat(op, heads);
  return heads;
}
