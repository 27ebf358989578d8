//===- TMTensor.cpp - torch-mlir's tm_tensor ops as linalg ----------------===//
//
// Part of the Sinter project.
//
// torch-mlir's tm_tensor ops that fusion left (or that were never fused,
// with fusion off) become upstream linalg, for every target.
//
// A `tm_tensor.attention` becomes its textbook decomposition: a contraction
// into f32 scores, the scale and mask, a max/exp/sum/div softmax and a
// second contraction (the unfused reference the fused op is checked
// against).
//
// A `tm_tensor.scan` left by fusion (torch-mlir's cumsum; the one in HF's
// packed-sequence check usually dies with the causal mask it fed) becomes
// two generics over the scanned dimension, for every target:
//
//   out[.., i, ..] = combine_{k <= i} in[.., k, ..]          (inclusive)
//   out[.., i, ..] = acc0[..] (+) combine_{k < i} in[.., k, ..] (exclusive)
//   acc[..]        = out[.., n-1, ..]   (inclusive; exclusive adds in[n-1])
//
// each a reduction over k with `select(k <= i, in, identity)`: quadratic
// work, fully parallel -- these scans run over a sequence of positions, not
// over activations. Combiners with an identity (add, mul) are lowered.
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;

namespace {

/// The identity of the scan's combiner, or null.
TypedAttr identityOf(Operation *comb, Type t, OpBuilder &b) {
  if (isa<arith::AddIOp>(comb))
    return b.getIntegerAttr(t, 0);
  if (isa<arith::MulIOp>(comb))
    return b.getIntegerAttr(t, 1);
  if (isa<arith::AddFOp>(comb))
    return b.getFloatAttr(t, 0.0);
  if (isa<arith::MulFOp>(comb))
    return b.getFloatAttr(t, 1.0);
  return {};
}

struct ScanToLinalg : OpRewritePattern<sinter::tm_tensor::ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(sinter::tm_tensor::ScanOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getRegion().front();
    Operation *comb = body.getTerminator()->getOperand(0).getDefiningOp();
    Value in = op.getInputs()[0];
    auto type = cast<RankedTensorType>(in.getType());
    Type elem = type.getElementType();
    TypedAttr identity = comb ? identityOf(comb, elem, rewriter) : TypedAttr();
    if (!identity || comb->getNumOperands() != 2 ||
        comb->getOperand(0).getParentBlock() != &body ||
        comb->getOperand(1).getParentBlock() != &body)
      return rewriter.notifyMatchFailure(
          op, "only add and mul scans are lowered");
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), dim = op.getDimension();
    MLIRContext *ctx = getContext();
    bool inclusive = op.getInclusive();
    Value accInit = op.getOutputs()[1];
    // Loops: the input's dims, then k (the scanned position read).
    unsigned n = rank + 1;
    SmallVector<AffineExpr> outIdx, inIdx;
    for (int64_t i = 0; i < rank; ++i) {
      outIdx.push_back(getAffineDimExpr(i, ctx));
      inIdx.push_back(getAffineDimExpr(i == dim ? rank : i, ctx));
    }
    AffineMap outMap = AffineMap::get(n, 0, outIdx, ctx);
    AffineMap inMap = AffineMap::get(n, 0, inIdx, ctx);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    // The starting value of every output element.
    Value start;
    if (inclusive) {
      Value c = arith::ConstantOp::create(rewriter, loc, identity);
      Value e = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
      start = linalg::FillOp::create(rewriter, loc, c, e).getResult(0);
    } else {
      SmallVector<AffineExpr> accOnly;
      for (int64_t i = 0; i < rank; ++i)
        if (i != dim)
          accOnly.push_back(getAffineDimExpr(i, ctx));
      AffineMap bcast = AffineMap::get(rank, 0, accOnly, ctx);
      Value e = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
      start = linalg::GenericOp::create(
                  rewriter, loc, type, accInit, e,
                  ArrayRef<AffineMap>{bcast,
                                      rewriter.getMultiDimIdentityMap(rank)},
                  SmallVector<utils::IteratorType>(
                      rank, utils::IteratorType::parallel),
                  [](OpBuilder &b, Location l, ValueRange args) {
                    linalg::YieldOp::create(b, l, args[0]);
                  })
                  .getResult(0);
    }
    auto combine = [&](OpBuilder &b, Location l, Value x, Value acc) {
      IRMapping map;
      map.map(body.getArgument(0), x);
      map.map(body.getArgument(1), acc);
      return b.clone(*comb, map)->getResult(0);
    };
    auto scan = linalg::GenericOp::create(
        rewriter, loc, type, in, start, ArrayRef<AffineMap>{inMap, outMap},
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = linalg::IndexOp::create(b, l, dim);
          Value k = linalg::IndexOp::create(b, l, rank);
          Value take = arith::CmpIOp::create(
              b, l,
              inclusive ? arith::CmpIPredicate::ule : arith::CmpIPredicate::ult,
              k, i);
          Value id = arith::ConstantOp::create(b, l, identity);
          Value x = arith::SelectOp::create(b, l, take, args[0], id);
          linalg::YieldOp::create(b, l, combine(b, l, x, args[1]));
        });
    // The final accumulator: everything combined (onto acc0 when exclusive).
    auto accType = cast<RankedTensorType>(accInit.getType());
    Value accStart = accInit;
    if (inclusive) {
      Value c = arith::ConstantOp::create(rewriter, loc, identity);
      Value e =
          tensor::EmptyOp::create(rewriter, loc, accType.getShape(), elem);
      accStart = linalg::FillOp::create(rewriter, loc, c, e).getResult(0);
    }
    SmallVector<AffineExpr> total;
    for (int64_t i = 0; i < rank; ++i)
      total.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineExpr> rest;
    for (int64_t i = 0; i < rank; ++i)
      if (i != dim)
        rest.push_back(getAffineDimExpr(i, ctx));
    SmallVector<utils::IteratorType> accIters(rank,
                                              utils::IteratorType::parallel);
    accIters[dim] = utils::IteratorType::reduction;
    auto acc = linalg::GenericOp::create(
        rewriter, loc, accType, in, accStart,
        ArrayRef<AffineMap>{AffineMap::get(rank, 0, total, ctx),
                            AffineMap::get(rank, 0, rest, ctx)},
        accIters, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, combine(b, l, args[0], args[1]));
        });
    rewriter.replaceOp(op, {scan.getResult(0), acc.getResult(0)});
    return success();
  }
};

/// A parallel/reduction generic (the last `reducedLoops` loops reduce).
Value buildGeneric(OpBuilder &b, Location loc, ValueRange ins, Value init,
                   ArrayRef<AffineMap> maps, unsigned reducedLoops,
                   function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  unsigned n = maps.front().getNumDims();
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
  for (unsigned i = n - reducedLoops; i < n; ++i)
    iters[i] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(b, loc, init.getType(), ins, init, maps,
                                   iters, body)
      .getResult(0);
}

Value filled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elem,
             double value) {
  Value e = tensor::EmptyOp::create(b, loc, shape, elem);
  Value c = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, value));
  return linalg::FillOp::create(b, loc, c, e).getResult(0);
}

Value widen(OpBuilder &b, Location l, Value x) {
  Type f32 = b.getF32Type();
  return x.getType() == f32 ? x : arith::ExtFOp::create(b, l, f32, x);
}

struct AttentionToLinalg : OpRewritePattern<sinter::tm_tensor::AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(sinter::tm_tensor::AttentionOp op,
                                PatternRewriter &rewriter) const override {
    ValueRange in = op.getInputs();
    auto qType = cast<RankedTensorType>(in[0].getType());
    auto vType = cast<RankedTensorType>(in[2].getType());
    if (!qType.hasStaticShape() || !vType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    int64_t r = qType.getRank(), nb = r - 2;
    int64_t m = qType.getDimSize(r - 2), kd = qType.getDimSize(r - 1);
    int64_t nk = vType.getDimSize(r - 2), dv = vType.getDimSize(r - 1);
    Type f32 = rewriter.getF32Type();
    Type elem = qType.getElementType();
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(static_cast<double>(kd));
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto map = [&](unsigned loops, SmallVector<AffineExpr> tail) {
      SmallVector<AffineExpr> res;
      for (int64_t i = 0; i < nb; ++i)
        res.push_back(d(i));
      res.append(tail);
      return AffineMap::get(loops, 0, res, ctx);
    };
    SmallVector<int64_t> lead(qType.getShape().drop_back(2));
    SmallVector<int64_t> sShape(lead), rowShape(lead), oShape(lead);
    sShape.append({m, nk});
    rowShape.push_back(m);
    oShape.append({m, dv});
    // Loops [batch.., m, n, k]: s = sum_k q * k.
    unsigned c3 = nb + 3;
    Value s = buildGeneric(
        rewriter, loc, {in[0], in[1]}, filled(rewriter, loc, sShape, f32, 0.0),
        {map(c3, {d(nb), d(nb + 2)}), map(c3, {d(nb + 1), d(nb + 2)}),
         map(c3, {d(nb), d(nb + 1)})},
        1, [&](OpBuilder &b, Location l, ValueRange a) {
          Value p = arith::MulFOp::create(b, l, widen(b, l, a[0]),
                                          widen(b, l, a[1]));
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a[2], p));
        });
    // Scale and mask, elementwise over [batch.., m, n].
    unsigned c2 = nb + 2;
    AffineMap id = map(c2, {d(nb), d(nb + 1)});
    AffineMap row = map(c2, {d(nb)});
    SmallVector<Value> sIns{s};
    SmallVector<AffineMap> sMaps{id};
    if (in.size() == 4) {
      sIns.push_back(in[3]);
      sMaps.push_back(id);
    }
    sMaps.push_back(id);
    s = buildGeneric(
        rewriter, loc, sIns, tensor::EmptyOp::create(rewriter, loc, sShape, f32),
        sMaps, 0, [&](OpBuilder &b, Location l, ValueRange a) {
          Value c = arith::ConstantOp::create(b, l, b.getF32FloatAttr(scale));
          Value x = arith::MulFOp::create(b, l, a[0], c);
          if (a.size() == 3) {
            Value bias = a[1];
            if (bias.getType().isInteger(1)) {
              Value z = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
              Value ninf =
                  arith::ConstantOp::create(b, l, b.getF32FloatAttr(-INFINITY));
              bias = arith::SelectOp::create(b, l, bias, z, ninf);
            }
            x = arith::AddFOp::create(b, l, x, widen(b, l, bias));
          }
          linalg::YieldOp::create(b, l, x);
        });
    // Softmax over n: max, exp(s - max), sum, divide.
    Value mx = buildGeneric(
        rewriter, loc, {s}, filled(rewriter, loc, rowShape, f32, -INFINITY),
        {id, row}, 1, [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l,
                                  (Value)arith::MaximumFOp::create(b, l, a[0], a[1]));
        });
    Value e = buildGeneric(
        rewriter, loc, {s, mx},
        tensor::EmptyOp::create(rewriter, loc, sShape, f32), {id, row, id}, 0,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = arith::SubFOp::create(b, l, a[0], a[1]);
          linalg::YieldOp::create(b, l, (Value)math::ExpOp::create(b, l, x));
        });
    Value sum = buildGeneric(
        rewriter, loc, {e}, filled(rewriter, loc, rowShape, f32, 0.0),
        {id, row}, 1, [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a[0], a[1]));
        });
    Value p = buildGeneric(
        rewriter, loc, {e, sum},
        tensor::EmptyOp::create(rewriter, loc, sShape, f32), {id, row, id}, 0,
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, (Value)arith::DivFOp::create(b, l, a[0], a[1]));
        });
    // O = P V over loops [batch.., m, dv, n], accumulated in f32.
    Value o = buildGeneric(
        rewriter, loc, {p, in[2]}, filled(rewriter, loc, oShape, f32, 0.0),
        {map(c3, {d(nb), d(nb + 2)}), map(c3, {d(nb + 2), d(nb + 1)}),
         map(c3, {d(nb), d(nb + 1)})},
        1, [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = arith::MulFOp::create(b, l, a[0], widen(b, l, a[1]));
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a[2], x));
        });
    if (elem != f32)
      o = buildGeneric(rewriter, loc, {o},
                       tensor::EmptyOp::create(rewriter, loc, oShape, elem),
                       {id, id}, 0,
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         linalg::YieldOp::create(
                             b, l, (Value)arith::TruncFOp::create(b, l, elem, a[0]));
                       });
    rewriter.replaceOp(op, o);
    return success();
  }
};

} // namespace

void sinter::populateTMTensorToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanToLinalg, AttentionToLinalg>(patterns.getContext());
}
