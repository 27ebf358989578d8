//===- CopyAliasedResults.cpp - One value per returned tensor
//--------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {
#define GEN_PASS_DEF_COPYALIASEDRESULTS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {

/// `v` copied into a fresh tensor by an identity linalg.generic (a splat
/// constant: a generic that yields its value, which kernels rematerialize
/// instead of reading a constant tensor).
Value copyOf(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  unsigned rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat()) {
    TypedAttr scalar = dense.getSplatValue<TypedAttr>();
    return linalg::GenericOp::create(
               b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
               ArrayRef<AffineMap>{id}, parallel,
               [&](OpBuilder &bb, Location l, ValueRange) {
                 Value c = arith::ConstantOp::create(bb, l, scalar);
                 linalg::YieldOp::create(bb, l, ValueRange{c});
               })
        .getResult(0);
  }
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, parallel,
             [](OpBuilder &bb, Location l, ValueRange args) {
               linalg::YieldOp::create(bb, l, ValueRange{args[0]});
             })
      .getResult(0);
}

/// The tensor whose buffer `v` views: through reshapes, casts and slices,
/// which bufferize to views of their source.
Value viewedBase(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
             tensor::ExtractSliceOp, tensor::ReshapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the returned `v` needs a copy of its own: it views an
/// argument, a constant, or the buffer of a value already returned.
bool needsCopy(Value v, const llvm::DenseSet<Value> &returnedBases) {
  if (!isa<RankedTensorType>(v.getType()))
    return false;
  Value base = viewedBase(v);
  return isa<BlockArgument>(base) || matchPattern(base, m_Constant()) ||
         returnedBases.contains(base);
}

struct CopyAliasedResultsPass
    : public sinter::impl::CopyAliasedResultsBase<CopyAliasedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::DenseSet<Value> returnedBases;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        if (needsCopy(v, returnedBases))
          operand.set(copyOf(b, ret.getLoc(), v));
        else
          returnedBases.insert(viewedBase(v));
      }
    });
  }
};

} // namespace
