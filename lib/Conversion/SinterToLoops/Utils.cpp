//===- Utils.cpp - Shared helpers of the sinter-to-loops lowering ---------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/SinterToLoops.h"

using namespace mlir;

void sinter::detail::setTileAttr(Operation *op, StringRef kind,
                                 ArrayRef<NamedAttribute> entries) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute> all;
  all.push_back(b.getNamedAttr("kind", b.getStringAttr(kind)));
  llvm::append_range(all, entries);
  op->setAttr(kTileAttrName, b.getDictionaryAttr(all));
}

Value sinter::detail::filledTensor(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape, Type type,
                                   Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, type);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

linalg::GenericOp
sinter::detail::buildGeneric(OpBuilder &b, Location loc, ValueRange ins,
                             ValueRange outs, ArrayRef<AffineMap> maps,
                             unsigned numLoops,
                             ArrayRef<unsigned> reductionLoops, BodyFn body) {
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (unsigned r : reductionLoops)
    iterators[r] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(b, loc, TypeRange(outs), ins, outs, maps,
                                   iterators, body);
}

Value sinter::detail::castElements(OpBuilder &b, Location loc, Value tensor,
                                   Type type) {
  auto tt = cast<RankedTensorType>(tensor.getType());
  if (tt.getElementType() == type)
    return tensor;
  unsigned rank = tt.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init = tensor::EmptyOp::create(b, loc, tt.getShape(), type);
  return buildGeneric(b, loc, {tensor}, {init}, {id, id}, rank, {},
                      [&](OpBuilder &bb, Location l, ValueRange a) {
                        Value v = a[0];
                        if (type.getIntOrFloatBitWidth() <
                            v.getType().getIntOrFloatBitWidth())
                          v = arith::TruncFOp::create(bb, l, type, v);
                        else
                          v = arith::ExtFOp::create(bb, l, type, v);
                        linalg::YieldOp::create(bb, l, ValueRange{v});
                      })
      .getResult(0);
}

LogicalResult sinter::detail::requireStaticShapes(Operation *op,
                                                  PatternRewriter &rewriter) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "dynamic shapes are not supported by the loop lowering yet");
  return success();
}

scf::ForallOp sinter::detail::createForall(OpBuilder &b, Location loc,
                                           ArrayRef<int64_t> upperBounds,
                                           ValueRange outputs) {
  SmallVector<OpFoldResult> ubs;
  for (int64_t ub : upperBounds)
    ubs.push_back(b.getIndexAttr(ub));
  auto forall = scf::ForallOp::create(b, loc, ubs, outputs, std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  return forall;
}

void sinter::detail::addParallelInsert(OpBuilder &b, Location loc,
                                       scf::ForallOp forall, Value source,
                                       Value dest,
                                       ArrayRef<OpFoldResult> offsets,
                                       ArrayRef<OpFoldResult> sizes) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                        strides);
}

Value sinter::detail::extractSlice(OpBuilder &b, Location loc, Value source,
                                   ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes,
                                   ArrayRef<int64_t> resultShape) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto type = RankedTensorType::get(resultShape, elementTypeOf(source));
  return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                        strides);
}
