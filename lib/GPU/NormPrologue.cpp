//===- NormPrologue.cpp - Elementwise chains a norm kernel computes -------===//
//
// Part of the Sinter project.
//
// Pre-norm transformers add the residual and normalize the sum; fusion
// leaves, per layer and norm:
//
//   %s = sinter.fused ins(%x, %y : tensor<BxSxCxbf16>, tensor<BxSxCxbf16>)
//        maps [identity, identity] {
//   ^bb0(%a: bf16, %b: bf16):
//     %r = arith.addf %a, %b : bf16
//     sinter.yield %r : bf16
//   }
//   %n = sinter.layer_norm %s weight(...) bias(...)
//   ... %s again: the next residual add, after the norm ...
//
// Run apart, the chain writes %s and the norm reads it back (and each is a
// launch). The norm kernel evaluates the chain per vector of its row
// instead, the same ops on the same element types (the roundings of the
// elementwise kernel), normalizes the values and stores %s for its other
// readers. What this does not take: chains that broadcast or read scalars,
// draw dropout, have more results, or are read before the norm (those
// readers would be outlined before the kernel that computes %s).
//
// The backward's counterpart is an epilogue. The residual stream's
// gradient adds each norm's input gradient to what the later layers passed
// back, and autocast rounds the sum for the next matmul:
//
//   %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd ...
//   %s:2 = sinter.fused ins(%g, %dx : tensor<BxSxCxf32>, tensor<BxSxCxf32>)
//          maps [identity, identity] {
//   ^bb0(%a: f32, %b: f32):
//     %r = arith.addf %a, %b : f32
//     %h = arith.truncf %r : f32 to bf16
//     sinter.yield %r, %h : f32, bf16
//   }
//
// Run apart, the norm backward's kernel writes %dx and the chain reads it
// back. The row kernel evaluates the chain where it would store %dx (the
// same ops on the same element types) and stores the chain's results.
// What this does not take: a %dx read elsewhere too, chains that broadcast,
// read a matmul's product (its epilogue), read or make other than f32,
// bf16 or f16 elements, or read a value defined after the norm backward
// (the kernel runs where the norm backward is).
//
// A linear layer's bias gradient then sums a result of that epilogue over
// the tokens (torch-mlir's sum over dim 0 of the [tokens, C] gradient):
//
//   %c = tensor.collapse_shape %s#1 [[0, 1], [2]] : ... to tensor<TxCxbf16>
//   %z = linalg.fill ins(%zero) outs(..) -> tensor<1xCxbf16>
//   %db = linalg.generic {maps [(d0, d1) -> (d0, d1), (d0, d1) -> (0, d1)],
//                         ["reduction", "parallel"]} ins(%c) outs(%z) {
//   ^bb0(%in: bf16, %acc: bf16):
//     %r = arith.addf %in, %acc : bf16     // or extf, then addf in f32
//     linalg.yield %r : bf16 }
//
// The norm backward's row kernel has each element of %s#1 in a register
// and already adds dy and dy * xhat per column for dbias and dweight: it
// adds %s#1 too, and its column kernel writes %db (f32 sums, rounded
// once). Not taken: sums from a nonzero init, over other than all rows,
// or of other bodies.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "RowCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Whether `chain` is an elementwise chain a row kernel can evaluate per
/// vector of rows shaped as `type`: every input of that shape (its own
/// element type) through an identity map, every op arith or math, no input
/// a matmul's product (its bias epilogue, MatmulEpilogue.cpp).
static bool isRowwiseChain(FusedOp chain, RankedTensorType type) {
  for (auto [in, map] : llvm::zip(chain.getInputs(), chain.getIndexingMaps()))
    if (in.getType() !=
            RankedTensorType::get(type.getShape(), getElementTypeOrSelf(in)) ||
        !cast<AffineMapAttr>(map).getValue().isIdentity() ||
        isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(
            in.getDefiningOp()))
      return false;
  for (Operation &op : chain.getBody().front().without_terminator())
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op.getDialect()))
      return false;
  return true;
}

FusedOp sinter::gpu_kernels::matchNormBackwardEpilogue(Operation *backward) {
  if (!isa<LayerNormBackwardOp, RMSNormBackwardOp>(backward))
    return {};
  Value dx = backward->getResult(0);
  if (!dx.hasOneUse())
    return {};
  auto chain = dyn_cast<FusedOp>(*dx.getUsers().begin());
  auto type = cast<RankedTensorType>(dx.getType());
  if (!chain || chain->getBlock() != backward->getBlock() ||
      !isRowwiseChain(chain, type))
    return {};
  // The row kernel loads and stores 16-bit and f32 floats.
  auto rowFloat = [](Value v) {
    Type t = getElementTypeOrSelf(v);
    return t.isF32() || t.isBF16() || t.isF16();
  };
  for (Value r : chain->getResults())
    if (cast<RankedTensorType>(r.getType()).getShape() != type.getShape() ||
        !rowFloat(r))
      return {};
  if (!llvm::all_of(chain.getInputs(), rowFloat))
    return {};
  for (Value in : chain.getInputs())
    if (Operation *def = in.getDefiningOp();
        def && def->getBlock() == backward->getBlock() && def != backward &&
        !def->isBeforeInBlock(backward))
      return {};
  return chain;
}

FusedOp sinter::gpu_kernels::matchNormPrologue(Operation *norm,
                                               const Tuning &tuning) {
  if (!isa<LayerNormOp, RMSNormOp>(norm) || tuning.rowPersistent != 0)
    return {};
  Value input = norm->getOperand(0);
  auto chain = input.getDefiningOp<FusedOp>();
  if (!chain || chain->getNumResults() != 1 ||
      chain->getBlock() != norm->getBlock())
    return {};
  if (!isRowwiseChain(chain, cast<RankedTensorType>(input.getType())))
    return {};
  for (Operation *user : input.getUsers())
    if (user != norm &&
        (user->getBlock() != norm->getBlock() || user->isBeforeInBlock(norm)))
      return {};
  return chain;
}

/// Whether `sum` adds its one input over the rows of a [rows, cols] tensor
/// into a zero-filled [1, cols] or [cols] init: the body yields
/// addf(in, acc), `in` optionally widened first.
static bool isColumnSum(linalg::GenericOp sum) {
  if (!sum || !sum.hasPureTensorSemantics() || sum.getNumDpsInputs() != 1 ||
      sum.getNumDpsInits() != 1 || sum.getNumLoops() != 2 ||
      sum.getIteratorTypesArray()[0] != utils::IteratorType::reduction ||
      sum.getIteratorTypesArray()[1] != utils::IteratorType::parallel ||
      !sum.getMatchingIndexingMap(sum.getDpsInputOperand(0)).isIdentity())
    return false;
  AffineMap out = sum.getMatchingIndexingMap(sum.getDpsInitOperand(0));
  MLIRContext *ctx = sum.getContext();
  AffineExpr d1 = getAffineDimExpr(1, ctx);
  if (out != AffineMap::get(2, 0, {getAffineConstantExpr(0, ctx), d1}, ctx) &&
      out != AffineMap::get(2, 0, {d1}, ctx))
    return false;
  // Accumulated in f32 and stored as f32, bf16 or f16 (the column
  // kernel's store), from the input's own type or its f32 widening.
  Type accType = getElementTypeOrSelf(sum->getResult(0));
  if (!accType.isF32() && !accType.isBF16() && !accType.isF16())
    return false;
  auto fill = sum.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  TypedAttr init = fill ? foldableFillValue(fill) : TypedAttr();
  auto zero = dyn_cast_or_null<FloatAttr>(init);
  if (!zero || !zero.getValue().isZero())
    return false;
  Block &body = sum.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  Value in = body.getArgument(0), acc = body.getArgument(1);
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return false;
  Value x = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  size_t ops = 2; // the add and the yield
  if (auto ext = x.getDefiningOp<arith::ExtFOp>()) {
    if (!ext.getType().isF32())
      return false;
    x = ext.getIn();
    ops = 3;
  }
  return x == in && body.getOperations().size() == ops;
}

std::optional<EpilogueColumnSum>
sinter::gpu_kernels::matchEpilogueColumnSum(Operation *normBackward,
                                            FusedOp epilogue) {
  if (!epilogue)
    return std::nullopt;
  // The row kernel's columns: one normalized dimension, the last.
  if (normalizedRankOf(normBackward) != 1)
    return std::nullopt;
  for (auto [j, r] : llvm::enumerate(epilogue->getResults())) {
    auto type = cast<RankedTensorType>(r.getType());
    int64_t cols = type.getShape().back();
    for (Operation *user : r.getUsers()) {
      // The tokens collapsed into one row dimension, or already one.
      Value rows = r;
      if (auto c = dyn_cast<tensor::CollapseShapeOp>(user)) {
        auto t = c.getResultType();
        if (t.getRank() != 2 || t.getShape().back() != cols)
          continue;
        rows = c.getResult();
      } else if (type.getRank() != 2) {
        continue;
      }
      for (Operation *reader : rows.getUsers()) {
        auto sum = dyn_cast<linalg::GenericOp>(reader);
        if (isColumnSum(sum) && sum.getDpsInputs()[0] == rows)
          return EpilogueColumnSum{sum.getOperation(),
                                   static_cast<unsigned>(j)};
      }
    }
  }
  return std::nullopt;
}
