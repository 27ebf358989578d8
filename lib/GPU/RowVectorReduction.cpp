//===- RowVectorReduction.cpp - A warp per row, reading vectors -----------===//
//
// Part of the Sinter project.
//
// A split reduction along rows (a warp per output element,
// ReductionKernel.cpp) reads one element per lane and point: the
// cross-entropy's statistics over GPT-2's padded logits,
//
//   %r:2 = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), ..],
//            iterator_types = ["parallel", "reduction"]}
//            ins(%logits : tensor<8192x50257xbf16>)  // a slice of 8192x50264
//            outs(..)                                 // online logsumexp
//
// move 64 bytes per warp load, 256 bytes of loads in flight per warp,
// which keeps an H100 at 2.3 TB/s. When every input the reduced dimension
// reaches reads it innermost and its rows start on a vector boundary
// (the row length, and a slice's column offset, a multiple of the vector
// width), lane l reads vectors l, l + 32, ... of its row, 16 bytes each
// (8 bf16 or 4 f32; narrower when the inputs mix widths), and runs the
// region on their elements in order; the points past the last whole vector
// are taken one per lane. Inputs that the reduced dimension does not reach
// (a row's max, a target index) are read once per point, as before. The
// order of the sum differs from the scalar form's (lane l now holds points
// 8l .. 8l + 7, ...); it is fixed: the same inputs give the same bits.
//
//===----------------------------------------------------------------------===//

#include "SerialKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// The widest vector a lane loads (bytes).
static constexpr int64_t kRowVectorBytes = 16;
/// The narrowest vector worth the form (elements).
static constexpr int64_t kRowMinVector = 2;

bool SerialKernel::planRowVectors() {
  if (reductionDims.size() != 1 || (sliced && sliced->copy))
    return false;
  AffineExpr reduced = getAffineDimExpr(reductionDims.front(), op.getContext());
  int64_t bytes = 0;
  RowVectors rows;
  // (Row length, column offset) of each row input, in elements.
  SmallVector<std::pair<int64_t, int64_t>> layouts;
  for (OpOperand *in : op.getDpsInputOperands()) {
    unsigned i = in->getOperandNumber();
    AffineMap map = op.getMatchingIndexingMap(in);
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (!type || op.getMatchingBlockArgument(in).use_empty() ||
        !map.isFunctionOfDim(reductionDims.front()))
      continue;
    // The reduced dimension only as the innermost coordinate; a float
    // buffer the kernel takes (a constant global's alignment is unknown).
    if (map.getResults().back() != reduced ||
        llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) {
          return e.isFunctionOfDim(reductionDims.front());
        }))
      return false;
    Type elt = type.getElementType();
    if (!(elt.isF16() || elt.isBF16() || elt.isF32()) || inputArg[i] < 0)
      return false;
    bytes = std::max<int64_t>(bytes, elt.getIntOrFloatBitWidth() / 8);
    bool isSliced = sliced && sliced->input == i;
    layouts.push_back({isSliced
                           ? sliced->slice.getSourceType().getShape().back()
                           : type.getShape().back(),
                       isSliced ? sliced->slice.getStaticOffsets().back() : 0});
    rows.inputs.push_back(i);
  }
  if (rows.inputs.empty())
    return false;
  for (int64_t width = kRowVectorBytes / bytes; width >= kRowMinVector;
       width /= 2) {
    bool aligned = llvm::all_of(layouts, [&](auto layout) {
      return layout.first % width == 0 && layout.second % width == 0;
    });
    // At least a vector per lane.
    if (aligned && trips / width >= lanes) {
      rows.width = width;
      rowVectors = std::move(rows);
      return true;
    }
  }
  return false;
}

SmallVector<Value> SerialKernel::emitRowVector(Value vector, ValueRange acc) {
  unsigned d = reductionDims.front();
  int64_t width = rowVectors->width;
  Value first = arith::MulIOp::create(b, vector, kb.idx(width));
  iv[d] = first;
  SmallVector<std::pair<unsigned, Value>> loads;
  for (unsigned i : rowVectors->inputs) {
    OpOperand *in = op.getDpsInputOperand(i);
    Value at =
        sliced && sliced->input == i
            ? slicedSourceIndex(in)
            : linearIndex(
                  kb, op.getMatchingIndexingMap(in),
                  cast<RankedTensorType>(in->get().getType()).getShape(), iv);
    loads.push_back(
        {i, kb.loadF32(inputViews[i], at, width, /*pred=*/Value())});
  }
  SmallVector<Value> next(acc);
  for (int64_t e = 0; e < width; ++e) {
    if (e)
      iv[d] = arith::AddIOp::create(b, first, kb.idx(e));
    for (auto [i, loaded] : loads)
      preloaded[i] = vector::ExtractOp::create(b, loaded, e);
    next = emitRegion(next);
  }
  preloaded.clear();
  return next;
}
