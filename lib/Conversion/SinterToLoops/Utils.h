//===- Utils.h - Shared helpers of the sinter-to-loops lowering -*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_CONVERSION_SINTERTOLOOPS_UTILS_H
#define SINTER_LIB_CONVERSION_SINTERTOLOOPS_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace sinter {
namespace detail {

inline mlir::Value cIdx(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
  return mlir::arith::ConstantIndexOp::create(b, loc, v);
}

inline mlir::Value cF32(mlir::OpBuilder &b, mlir::Location loc, double v) {
  return mlir::arith::ConstantFloatOp::create(
      b, loc, b.getF32Type(), llvm::APFloat(static_cast<float>(v)));
}

/// A float constant of `type` (rounded from `v`).
inline mlir::Value cFloat(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, double v) {
  return mlir::arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
}

/// Extends an f16/bf16 scalar to f32 (f32 is returned unchanged).
inline mlir::Value toF32(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value v) {
  if (v.getType().isF32())
    return v;
  return mlir::arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

/// Rounds an f32 scalar to `type` (once).
inline mlir::Value fromF32(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, mlir::Type type) {
  if (v.getType() == type)
    return v;
  return mlir::arith::TruncFOp::create(b, loc, type, v);
}

inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType()).getShape();
}

inline mlir::Type elementTypeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType()).getElementType();
}

/// Sets the `sinter.tile` dictionary {kind = `kind`, entries...} on `op`.
void setTileAttr(mlir::Operation *op, llvm::StringRef kind,
                 llvm::ArrayRef<mlir::NamedAttribute> entries);

/// A tensor of `shape` x `type` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type type,
                         mlir::Value value);

using BodyFn = llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>;

/// A linalg.generic over `numLoops` loops; `iterators` lists the reduction
/// loops by their position, the others are parallel.
mlir::linalg::GenericOp
buildGeneric(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange ins,
             mlir::ValueRange outs, llvm::ArrayRef<mlir::AffineMap> maps,
             unsigned numLoops, llvm::ArrayRef<unsigned> reductionLoops,
             BodyFn body);

/// `tensor` with its elements rounded (or extended) to `type` by an
/// elementwise generic; `tensor` itself when it already has them.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value tensor, mlir::Type type);

/// Product of a static shape.
inline int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Fails with a match-failure reason unless every ranked tensor operand and
/// result of `op` has a static shape.
mlir::LogicalResult requireStaticShapes(mlir::Operation *op,
                                        mlir::PatternRewriter &rewriter);

/// An scf.forall over `upperBounds` with `outputs` as its shared outs; the
/// insertion point is left at the start of its body.
mlir::scf::ForallOp createForall(mlir::OpBuilder &b, mlir::Location loc,
                                 llvm::ArrayRef<int64_t> upperBounds,
                                 mlir::ValueRange outputs);

/// Appends `tensor.parallel_insert_slice %source into %dest[offsets][sizes]`
/// (unit strides) to the terminator of `forall`.
void addParallelInsert(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::scf::ForallOp forall, mlir::Value source,
                       mlir::Value dest,
                       llvm::ArrayRef<mlir::OpFoldResult> offsets,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// `tensor.extract_slice %source[offsets][sizes]` (unit strides) with the
/// result type `resultShape` (dynamic entries for dynamic sizes; fewer
/// dimensions than `sizes` for a rank-reducing slice).
mlir::Value extractSlice(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value source,
                         llvm::ArrayRef<mlir::OpFoldResult> offsets,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         llvm::ArrayRef<int64_t> resultShape);

} // namespace detail
} // namespace sinter

#endif // SINTER_LIB_CONVERSION_SINTERTOLOOPS_UTILS_H
