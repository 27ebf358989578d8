//===- SoftmaxAnyAxis.cpp - Softmax over a non-trailing axis on CUDA ------===//
//
// Part of the Sinter project.
//
// The tuned softmax kernel holds one row -- the trailing dimension -- in
// registers. Softmax over another axis (torch's `softmax(x, dim=1)` over
// channels, a column softmax) becomes three generics that the general path
// runs, one thread per output element. Each thread of the two reductions
// walks the softmax axis serially while neighbouring threads read
// neighbouring elements of the same slice, so the reads coalesce without a
// transpose:
//
//   %p = sinter.softmax %x dim 0 mask(%m : tensor<1x64xf32>)
//       {scale = 5.0e-01 : f32} : tensor<128x64xbf16>
//   ->
//   y(i, j)  = 0.5 * f32(x[i, j]) + m[0, j]                  (in each body)
//   %max     = generic max-reduce over i of y     -> tensor<64xf32>
//   %sum     = generic sum over i of exp(y - shift(%max))    -> tensor<64xf32>
//   %p       = generic exp(y - shift) / %sum, bf16           ->
//   tensor<128x64xbf16>
//
// with shift = 0 where the max is -inf and 0 written where the sum is 0:
// the op's contract (f32 arithmetic; an all -inf slice gives zeros), as the
// row kernel and the CPU lowering implement it. Three passes over the input
// and one write, against the row kernel's one and one: the price of an
// axis the row kernel cannot hold.
//
//===----------------------------------------------------------------------===//

#include "sinter/GPU/Passes.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace sinter;

namespace {

/// What the three generics share: the operands every body reads and how
/// the body turns them into the softmax's f32 input `y`.
struct SoftmaxParts {
  mutable SoftmaxOp op; // op accessors are not const
  int64_t rank, dim;
  SmallVector<Value> inputs;   // x, then the mask when there is one
  SmallVector<AffineMap> maps; // their indexing maps over the full space
  AffineMap statMap;           // the full space -> the reduced statistic

  /// y = scale * f32(x) + f32(mask), from the body's leading arguments.
  Value y(OpBuilder &b, Location l, ValueRange args) const {
    Type f32 = b.getF32Type();
    auto toF32 = [&](Value v) -> Value {
      return v.getType() == f32 ? v : arith::ExtFOp::create(b, l, f32, v);
    };
    Value v = toF32(args[0]);
    if (std::optional<APFloat> s = op.getScale())
      v = arith::MulFOp::create(
          b, l, v,
          arith::ConstantOp::create(b, l,
                                    b.getF32FloatAttr(s->convertToDouble())));
    if (op.getMask())
      v = arith::AddFOp::create(b, l, v, toF32(args[1]));
    return v;
  }
};

SoftmaxParts partsOf(SoftmaxOp op, MLIRContext *ctx) {
  SoftmaxParts p;
  p.op = op;
  auto type = cast<RankedTensorType>(op.getInput().getType());
  p.rank = type.getRank();
  p.dim = op.getDimension();
  p.inputs.push_back(op.getInput());
  p.maps.push_back(AffineMap::getMultiDimIdentityMap(p.rank, ctx));
  if (Value mask = op.getMask()) {
    // numpy broadcasting: the mask's dimensions align with the trailing
    // ones of the input; its dimensions of size 1 read index 0.
    ArrayRef<int64_t> mShape =
        cast<RankedTensorType>(mask.getType()).getShape();
    int64_t lead = p.rank - static_cast<int64_t>(mShape.size());
    SmallVector<AffineExpr> exprs;
    for (auto [k, size] : llvm::enumerate(mShape))
      exprs.push_back(size == 1 ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(lead + k, ctx));
    p.inputs.push_back(mask);
    p.maps.push_back(AffineMap::get(p.rank, 0, exprs, ctx));
  }
  SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < p.rank; ++d)
    if (d != p.dim)
      kept.push_back(getAffineDimExpr(d, ctx));
  p.statMap = AffineMap::get(p.rank, 0, kept, ctx);
  return p;
}

/// A reduced f32 statistic (the input's shape without the softmax axis)
/// filled with `init`.
Value statInit(PatternRewriter &rw, Location loc, const SoftmaxParts &p,
               double init) {
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(
           cast<RankedTensorType>(p.inputs[0].getType()).getShape()))
    if (static_cast<int64_t>(d) != p.dim)
      shape.push_back(size);
  Value empty = tensor::EmptyOp::create(rw, loc, shape, rw.getF32Type());
  Value c = arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(init));
  return linalg::FillOp::create(rw, loc, c, empty).getResult(0);
}

/// max(y) where it is finite, else 0 (an all -inf slice).
Value shiftOf(OpBuilder &b, Location l, Value max) {
  Value negInf = arith::ConstantOp::create(
      b, l, b.getF32FloatAttr(-std::numeric_limits<double>::infinity()));
  Value allMasked =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, max, negInf);
  Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0));
  return arith::SelectOp::create(b, l, allMasked, zero, max);
}

/// A reduction over the softmax axis of `p`'s inputs plus `extra` (read
/// through the statistic's map) into a statistic starting at `init`;
/// `step(y, extras, acc)` is the body.
Value reduceOverAxis(
    PatternRewriter &rw, Location loc, const SoftmaxParts &p, ValueRange extra,
    double init,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange, Value)> step) {
  SmallVector<Value> ins(p.inputs);
  SmallVector<AffineMap> maps(p.maps);
  for (Value e : extra) {
    ins.push_back(e);
    maps.push_back(p.statMap);
  }
  maps.push_back(p.statMap);
  SmallVector<utils::IteratorType> iters(p.rank, utils::IteratorType::parallel);
  iters[p.dim] = utils::IteratorType::reduction;
  size_t nIn = p.inputs.size();
  Value acc = statInit(rw, loc, p, init);
  auto g = linalg::GenericOp::create(
      rw, loc, TypeRange{acc.getType()}, ins, ValueRange{acc}, maps, iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value y = p.y(b, l, args);
        ValueRange extras = args.slice(nIn, extra.size());
        linalg::YieldOp::create(b, l, step(b, l, y, extras, args.back()));
      });
  return g.getResult(0);
}

/// The normalized output: exp(y - shift) / sum, 0 where the sum is 0.
Value normalize(PatternRewriter &rw, Location loc, const SoftmaxParts &p,
                Value max, Value sum) {
  auto type = cast<RankedTensorType>(p.op.getType());
  SmallVector<Value> ins(p.inputs);
  ins.append({max, sum});
  SmallVector<AffineMap> maps(p.maps);
  AffineMap identity = p.maps.front();
  maps.append({p.statMap, p.statMap, identity});
  Value init =
      tensor::EmptyOp::create(rw, loc, type.getShape(), type.getElementType());
  SmallVector<utils::IteratorType> iters(p.rank, utils::IteratorType::parallel);
  size_t nIn = p.inputs.size();
  auto g = linalg::GenericOp::create(
      rw, loc, TypeRange{type}, ins, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value y = p.y(b, l, args);
        Value e = math::ExpOp::create(
            b, l, arith::SubFOp::create(b, l, y, shiftOf(b, l, args[nIn])));
        Value s = args[nIn + 1];
        Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0));
        Value empty =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, s, zero);
        Value v = arith::SelectOp::create(b, l, empty, zero,
                                          arith::DivFOp::create(b, l, e, s));
        if (v.getType() != type.getElementType())
          v = arith::TruncFOp::create(b, l, type.getElementType(), v);
        linalg::YieldOp::create(b, l, v);
      });
  return g.getResult(0);
}

/// sinter.softmax over a dimension other than the last -> three generics.
struct SoftmaxOverLeadingAxis : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (static_cast<int64_t>(op.getDimension()) == type.getRank() - 1)
      return rw.notifyMatchFailure(op, "the row kernel takes the last axis");
    if (!type.hasStaticShape() ||
        (op.getMask() &&
         !cast<RankedTensorType>(op.getMask().getType()).hasStaticShape()))
      return rw.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    SoftmaxParts p = partsOf(op, rw.getContext());
    Value max = reduceOverAxis(
        rw, loc, p, {}, -std::numeric_limits<double>::infinity(),
        [](OpBuilder &b, Location l, Value y, ValueRange, Value acc) {
          return arith::MaximumFOp::create(b, l, y, acc).getResult();
        });
    Value sum = reduceOverAxis(
        rw, loc, p, {max}, 0.0,
        [](OpBuilder &b, Location l, Value y, ValueRange extras, Value acc) {
          Value e = math::ExpOp::create(
              b, l, arith::SubFOp::create(b, l, y, shiftOf(b, l, extras[0])));
          return arith::AddFOp::create(b, l, acc, e).getResult();
        });
    rw.replaceOp(op, normalize(rw, loc, p, max, sum));
    return success();
  }
};

} // namespace

void sinter::populateSoftmaxAnyAxisPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxOverLeadingAxis>(patterns.getContext());
}
