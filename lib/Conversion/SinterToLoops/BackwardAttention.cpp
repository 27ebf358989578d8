//===- BackwardAttention.cpp - sinter.attention_backward to generics ------===//
//
// Part of the Sinter project.
//
// The reference form of the attention backward: whole-tensor linalg ops
// over the score space, every sum in f32 and every gradient rounded once.
// The query heads are split as [B, Hkv, G, ...] (G = Hq / Hkv query heads
// per key/value head), so that a key/value head's G query heads are G * Sq
// rows of one batch of N = B * Hkv:
//
//   delta[b,g,r,i]  = sum_e dO[b,g,r,i,e] O[b,g,r,i,e]
//   s    [n, ri, j] = Q [n, ri, :] . K[n, j, :]     (batch_matmul with K^T)
//   dpd  [n, ri, j] = dO[n, ri, :] . V[n, j, :]     (batch_matmul with V^T)
//   pd, ds          = generic over (b,g,r,i,j): p = exp(scale s + mask - lse)
//                     (0 for hidden keys and rows without one), the dropout
//                     decision from the forward's Philox offset,
//                     pd = keep p / (1-q), ds = p (keep dpd / (1-q) - delta)
//   dV^T [n, e, j]  = dO^T[n, e, ri] pd[n, ri, j]   (summed over the group)
//   dK^T [n, d, j]  = scale Q^T[n, d, ri] ds[n, ri, j]
//   dQ   [n, ri, d] = scale ds[n, ri, j] K[n, j, d]
//   dmask           = ds summed to the mask shape
//
// The five contractions are linalg.batch_matmul ops with untransposed
// operands and f32 results (the small [S, D] operands are transposed
// instead), the form every backend runs as a GEMM: on CUDA cuBLASLt or the
// tiled matmul kernel, on the CPU the vectorized matmul. s and dpd read Q,
// K, dO and V in their own element type (tensor cores for bf16/f16). For
// bf16/f16 inputs pd and ds are rounded to that type for the dV, dK and dQ
// GEMMs, as FlashAttention rounds P and dS for its tensor cores (sums stay
// f32); f32/f64 inputs and a mask gradient keep them in f32.
// It holds f32 tensors of B x Hq x Sq x Skv elements: the CPU's numerics and
// the CUDA general path's correct fallback, not the fast kernel (which
// recomputes P tile by tile and never stores it).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/Philox.h"
#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

/// The op's shape with the query heads split into (Hkv, G), and the builders
/// of the maps over the iteration spaces below.
struct BackwardShape {
  int64_t B, Hq, Hkv, G, Sq, Skv, D, Dv;
  MLIRContext *ctx;

  /// A map of an `n`-loop space onto the loops `dims`.
  AffineMap map(unsigned n, ArrayRef<unsigned> dims) const {
    return AffineMap::getMultiDimMapWithTargets(n, dims, ctx);
  }
};

/// [B, Hq, S, X] -> [B, Hkv, G, S, X] (or [B, Hq, S] -> [B, Hkv, G, S]).
Value splitHeads(OpBuilder &b, Location loc, Value v, const BackwardShape &s) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = {s.B, s.Hkv, s.G};
  llvm::append_range(shape, type.getShape().drop_front(2));
  SmallVector<ReassociationIndices> re = {{0}, {1, 2}};
  for (int64_t d = 3; d < static_cast<int64_t>(shape.size()); ++d)
    re.push_back({d});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, re);
}

/// [B, Hkv, G, S, X] -> [B, Hq, S, X].
Value joinHeads(OpBuilder &b, Location loc, Value v) {
  return tensor::CollapseShapeOp::create(
      b, loc, v, ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

/// An f32 accumulator of `shape` filled with zeros.
Value zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return filledTensor(b, loc, shape, b.getF32Type(), cF32(b, loc, 0.0));
}

/// sum over the reduction loops of f32(lhs) * f32(rhs), into `out`.
Value sumOfProducts(OpBuilder &b, Location loc, Value lhs, Value rhs, Value out,
                    ArrayRef<AffineMap> maps, unsigned numLoops,
                    ArrayRef<unsigned> reductions) {
  return buildGeneric(b, loc, {lhs, rhs}, {out}, maps, numLoops, reductions,
                      [&](OpBuilder &bb, Location l, ValueRange a) {
                        Value p = arith::MulFOp::create(
                            bb, l, toF32(bb, l, a[0]), toF32(bb, l, a[1]));
                        linalg::YieldOp::create(
                            bb, l,
                            ValueRange{arith::AddFOp::create(bb, l, a[2], p)});
                      })
      .getResult(0);
}

/// [B, Hkv, G, S, X] (or [B, Hkv, S, X]) as [B * Hkv, G * S, X]: the
/// rows of one key/value head's group, contiguous; its elements converted
/// to `type` when one is given.
Value groupRows(OpBuilder &b, Location loc, Value v, Type type = nullptr) {
  if (type)
    v = castElements(b, loc, v, type);
  unsigned rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<ReassociationIndices> re = {{0, 1}};
  re.push_back(rank == 5 ? ReassociationIndices{2, 3}
                         : ReassociationIndices{2});
  re.push_back({rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, re);
}

/// [N, R, X] -> [N, X, R], materialized.
Value transposeRows(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{shape[0], shape[2], shape[1]},
      type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init,
                                     ArrayRef<int64_t>{0, 2, 1})
      .getResult()[0];
}

/// lhs [N, M, K] x rhs [N, K, P] -> f32 [N, M, P], accumulated from zero.
Value batchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  ArrayRef<int64_t> l = cast<RankedTensorType>(lhs.getType()).getShape();
  ArrayRef<int64_t> r = cast<RankedTensorType>(rhs.getType()).getShape();
  Value out = zeros(b, loc, {l[0], l[1], r[2]});
  return linalg::BatchMatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                       ValueRange{out})
      .getResult(0);
}

/// [N, R, X] -> `shape` (R or X split back into the heads' dimensions).
Value ungroup(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(v.getType()).getElementType());
  SmallVector<ReassociationIndices> re = {{0, 1}};
  if (shape.size() == 5)
    re.append({{2, 3}, {4}});
  else
    re.append({{2}, {3}});
  return tensor::ExpandShapeOp::create(b, loc, type, v, re);
}

/// `scale * t` rounded once to `type`.
Value scaleAndRound(OpBuilder &b, Location loc, Value t, double scale,
                    Type type) {
  auto tt = cast<RankedTensorType>(t.getType());
  unsigned rank = tt.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init = tensor::EmptyOp::create(b, loc, tt.getShape(), type);
  return buildGeneric(b, loc, {t}, {init}, {id, id}, rank, {},
                      [&](OpBuilder &bb, Location l, ValueRange a) {
                        Value v = arith::MulFOp::create(bb, l, a[0],
                                                        cF32(bb, l, scale));
                        linalg::YieldOp::create(
                            bb, l, ValueRange{fromF32(bb, l, v, type)});
                      })
      .getResult(0);
}

/// The body of the generic over (b, g, r, i, j) that recomputes the
/// probabilities and yields pd and ds. Block arguments: s, dpd, lse, delta,
/// then the two outputs; the seed is used from above (a scalar the kernel
/// takes as a parameter).
struct ProbabilityBody {
  mutable AttentionBackwardOp op; // op accessors are not const
  const BackwardShape &shape;
  KeyVisibility visibility;
  double scale, dropP;
  Type outType; // pd's and ds's element type (f32, or the inputs' bf16/f16)

  /// The score scale * s + mask (the mask read at its broadcast index).
  Value score(OpBuilder &b, Location l, Value s, ValueRange full) const {
    Value x = arith::MulFOp::create(b, l, s, cF32(b, l, scale));
    Value mask = op.getMask();
    if (!mask)
      return x;
    ArrayRef<int64_t> mShape = shapeOf(mask);
    int64_t lead = 4 - static_cast<int64_t>(mShape.size());
    SmallVector<Value> idx;
    for (auto [k, size] : llvm::enumerate(mShape))
      idx.push_back(size == 1 ? cIdx(b, l, 0) : full[lead + k]);
    Value mv = tensor::ExtractOp::create(b, l, mask, idx);
    return arith::AddFOp::create(b, l, x, toF32(b, l, mv));
  }

  /// Whether the forward's dropout kept element (b, h, i, j).
  Value keep(OpBuilder &b, Location l, ValueRange full, Value seed) const {
    Type i64 = b.getI64Type();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, l, i64, v);
    };
    auto cast = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, l, i64, v);
    };
    Value off = cast(full[0]);
    off = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, off, c(shape.Hq)), cast(full[1]));
    off = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, off, c(shape.Sq)), cast(full[2]));
    off = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, off, c(shape.Skv)), cast(full[3]));
    return buildPhiloxKeep(b, l, off, seed, dropP);
  }

  void operator()(OpBuilder &b, Location l, ValueRange a) const {
    const double inf = std::numeric_limits<double>::infinity();
    Value bIdx = linalg::IndexOp::create(b, l, 0);
    Value h = arith::AddIOp::create(
        b, l,
        arith::MulIOp::create(b, l, linalg::IndexOp::create(b, l, 1),
                              cIdx(b, l, shape.G)),
        linalg::IndexOp::create(b, l, 2));
    Value i = linalg::IndexOp::create(b, l, 3);
    Value j = linalg::IndexOp::create(b, l, 4);
    Value full[4] = {bIdx, h, i, j};
    Value lse = a[2], delta = a[3];
    Value zero = cF32(b, l, 0.0);
    Value p = math::ExpOp::create(
        b, l, arith::SubFOp::create(b, l, score(b, l, a[0], full), lse));
    // Rows without a visible key have lse = -inf and p = 0.
    Value hidden = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, lse,
                                         cF32(b, l, -inf));
    if (Value seen = visibility.buildIsVisible(b, l, i, j))
      hidden = arith::OrIOp::create(
          b, l, hidden,
          arith::XOrIOp::create(
              b, l, seen,
              arith::ConstantIntOp::create(b, l, b.getI1Type(), 1)));
    p = arith::SelectOp::create(b, l, hidden, zero, p);
    Value pd = p, dp = a[1];
    if (dropP > 0.0) {
      Value kept = keep(b, l, full, op.getSeed());
      Value r = cF32(b, l, dropoutKeptScale(dropP));
      pd = arith::SelectOp::create(b, l, kept,
                                   arith::MulFOp::create(b, l, p, r), zero);
      dp = arith::SelectOp::create(b, l, kept,
                                   arith::MulFOp::create(b, l, dp, r), zero);
    }
    Value ds =
        arith::MulFOp::create(b, l, p, arith::SubFOp::create(b, l, dp, delta));
    linalg::YieldOp::create(
        b, l,
        ValueRange{fromF32(b, l, pd, outType), fromF32(b, l, ds, outType)});
  }
};

/// ds [B, Hkv, G, Sq, Skv] summed over the dimensions the mask broadcasts
/// along, rounded to `gradType`; failure when the shapes do not reshape.
FailureOr<Value> buildMaskGrad(OpBuilder &b, Location loc, Value ds,
                               RankedTensorType gradType,
                               const BackwardShape &s) {
  Value full = joinHeads(b, loc, ds); // [B, Hq, Sq, Skv]
  int64_t fullShape[4] = {s.B, s.Hq, s.Sq, s.Skv};
  ArrayRef<int64_t> mShape = gradType.getShape();
  int64_t lead = 4 - static_cast<int64_t>(mShape.size());
  SmallVector<unsigned> kept, reduced;
  SmallVector<int64_t> keptShape;
  for (unsigned d = 0; d < 4; ++d) {
    int64_t k = static_cast<int64_t>(d) - lead;
    if (k >= 0 && mShape[k] == fullShape[d]) {
      kept.push_back(d);
      keptShape.push_back(fullShape[d]);
    } else {
      reduced.push_back(d);
    }
  }
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, b.getContext());
  Value sum =
      buildGeneric(b, loc, {full}, {zeros(b, loc, keptShape)},
                   {id, s.map(4, kept)}, 4, reduced,
                   [&](OpBuilder &bb, Location l, ValueRange a) {
                     linalg::YieldOp::create(
                         bb, l,
                         ValueRange{arith::AddFOp::create(bb, l, a[1], a[0])});
                   })
          .getResult(0);
  sum = castElements(b, loc, sum, gradType.getElementType());
  if (keptShape == mShape)
    return sum;
  auto keptType = cast<RankedTensorType>(sum.getType());
  std::optional<SmallVector<ReassociationIndices>> re =
      getReassociationIndicesForReshape(keptType, gradType);
  if (!re)
    return failure();
  return tensor::ExpandShapeOp::create(b, loc, gradType, sum, *re).getResult();
}

/// A key/value gradient [B, Hkv, Skv, X]: (rows^T [N, X, G * Sq] x
/// probs [N, G * Sq, Skv])^T, summed over the group's query rows.
Value keyGradient(OpBuilder &b, Location loc, Value rows, Value probs,
                  ArrayRef<int64_t> shape) {
  Value t = batchMatmul(b, loc, transposeRows(b, loc, rows), probs);
  return ungroup(b, loc, transposeRows(b, loc, t), shape);
}

/// The element type of pd and ds and of the dV, dK and dQ GEMMs: the
/// inputs' own bf16 or f16 when Q, K, V and dO share it and no mask
/// gradient sums ds; f32 otherwise.
Type gradientGemmType(AttentionBackwardOp op) {
  Type t = elementTypeOf(op.getQuery());
  bool narrow =
      (t.isBF16() || t.isF16()) && !op.getGradMask() &&
      llvm::all_of(ValueRange{op.getKey(), op.getValue(), op.getGradOutput()},
                   [&](Value v) { return elementTypeOf(v) == t; });
  return narrow ? t : Float32Type::get(op.getContext());
}

struct AttentionBackwardToLinalg
    : public OpRewritePattern<AttentionBackwardOp> {
  AttentionBackwardToLinalg(MLIRContext *ctx,
                            std::function<bool(AttentionBackwardOp)> keep)
      : OpRewritePattern(ctx), keep(std::move(keep)) {}

  LogicalResult matchAndRewrite(AttentionBackwardOp op,
                                PatternRewriter &rw) const override {
    if (keep && keep(op))
      return rw.notifyMatchFailure(op, "kept for a kernel of the target");
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    ArrayRef<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()),
                      v = shapeOf(op.getValue());
    BackwardShape s{q[0], q[1], k[1], q[1] / k[1],    q[2],
                    k[2], q[3], v[3], rw.getContext()};
    double scale = op.getEffectiveScale();
    double dropP = op.getDropoutP().convertToDouble();

    Value dO = splitHeads(rw, loc, op.getGradOutput(), s);
    Value qs = splitHeads(rw, loc, op.getQuery(), s);
    Value os = splitHeads(rw, loc, op.getOutput(), s);
    Value lse = splitHeads(rw, loc, op.getLse(), s);
    Value key = op.getKey(), value = op.getValue();

    // Loops (b, g, r, i, x): delta, a row dot product over x = e.
    Value delta =
        sumOfProducts(rw, loc, dO, os, zeros(rw, loc, {s.B, s.Hkv, s.G, s.Sq}),
                      {s.map(5, {0, 1, 2, 3, 4}), s.map(5, {0, 1, 2, 3, 4}),
                       s.map(5, {0, 1, 2, 3})},
                      5, {4});
    // The scores and dO V^T: [N, G * Sq, Skv], from the inputs as they are
    // where both operands have one element type (a product of two bf16 or
    // f16 values is exact in f32 and the sums are f32, so the result is the
    // f32 one; on CUDA these are tensor-core GEMMs).
    SmallVector<int64_t> scoreShape = {s.B, s.Hkv, s.G, s.Sq, s.Skv};
    Type f32 = rw.getF32Type();
    auto commonType = [&](Value a, Value b) -> Type {
      return elementTypeOf(a) == elementTypeOf(b) ? Type() : f32;
    };
    Type qk = commonType(qs, key), dov = commonType(dO, value);
    Value scores = ungroup(
        rw, loc,
        batchMatmul(rw, loc, groupRows(rw, loc, qs, qk),
                    transposeRows(rw, loc, groupRows(rw, loc, key, qk))),
        scoreShape);
    Value dpd = ungroup(
        rw, loc,
        batchMatmul(rw, loc, groupRows(rw, loc, dO, dov),
                    transposeRows(rw, loc, groupRows(rw, loc, value, dov))),
        scoreShape);

    // pd and ds over (b, g, r, i, j).
    SmallVector<Value> ins = {scores, dpd, lse, delta};
    AffineMap id5 = s.map(5, {0, 1, 2, 3, 4}), row5 = s.map(5, {0, 1, 2, 3});
    SmallVector<AffineMap> maps = {id5, id5, row5, row5};
    maps.append({id5, id5});
    // As FlashAttention does, pd and ds are rounded to the inputs' bf16 or
    // f16 for the three GEMMs that read them (whose sums stay f32); f32 and
    // f64 inputs, and a mask gradient (a sum of ds), keep them in f32.
    Type gemmType = gradientGemmType(op);
    ProbabilityBody body{op, s, KeyVisibility::of(op), scale, dropP, gemmType};
    auto probs =
        buildGeneric(rw, loc, ins,
                     {tensor::EmptyOp::create(rw, loc, scoreShape, gemmType),
                      tensor::EmptyOp::create(rw, loc, scoreShape, gemmType)},
                     maps, 5, {}, body);
    Value pd = probs.getResult(0), ds = probs.getResult(1);

    // dV^T and dK^T [N, X, Skv] summed over the group's rows; dQ
    // [N, G * Sq, D].
    Value pdRows = groupRows(rw, loc, pd), dsRows = groupRows(rw, loc, ds);
    Value doRows = groupRows(rw, loc, dO, gemmType),
          qRows = groupRows(rw, loc, qs, gemmType);
    Value kRows = groupRows(rw, loc, key, gemmType);
    Value dV = keyGradient(rw, loc, doRows, pdRows, {s.B, s.Hkv, s.Skv, s.Dv});
    Value dK = keyGradient(rw, loc, qRows, dsRows, {s.B, s.Hkv, s.Skv, s.D});
    Value dQ = ungroup(rw, loc, batchMatmul(rw, loc, dsRows, kRows),
                       {s.B, s.Hkv, s.G, s.Sq, s.D});
    SmallVector<Value> results = {
        joinHeads(
            rw, loc,
            scaleAndRound(rw, loc, dQ, scale, elementTypeOf(op.getQuery()))),
        scaleAndRound(rw, loc, dK, scale, elementTypeOf(key)),
        castElements(rw, loc, dV, elementTypeOf(value))};
    if (Value gradMask = op.getGradMask()) {
      FailureOr<Value> dm = buildMaskGrad(
          rw, loc, ds, cast<RankedTensorType>(gradMask.getType()), s);
      if (failed(dm))
        return rw.notifyMatchFailure(op, "cannot reshape the mask gradient");
      results.push_back(*dm);
    }
    rw.replaceOp(op, results);
    return success();
  }

  std::function<bool(AttentionBackwardOp)> keep;
};

} // namespace

void sinter::populateAttentionBackwardToLinalgPatterns(
    RewritePatternSet &patterns,
    std::function<bool(AttentionBackwardOp)> keep) {
  patterns.add<AttentionBackwardToLinalg>(patterns.getContext(),
                                          std::move(keep));
}
