//===- BackwardRowOps.cpp - softmax and norm backward to linalg generics --===//
//
// Part of the Sinter project.
//
// The backward of the row ops as whole-tensor linalg generics with the ops'
// contract (f32 arithmetic, each gradient rounded once). Both targets run
// them: the CPU pipeline compiles them as they are, the CUDA general path
// one thread per output element. Each reduction is its own generic, so the
// row statistics and the column (weight) sums are exact f32 sums in a fixed
// order, whatever the target:
//
//   %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd
//       weight(%w : tensor<768xbf16>) : tensor<16x768xbf16>, tensor<16xf32>
//       -> tensor<16x768xbf16> dweight(tensor<768xf32>) dbias(tensor<768xf32>)
//   ->
//   xhat(r, c) = (f32(x) - mean(r)) * rstd(r),  g(r, c) = f32(dy) * f32(w(c))
//   %rs:2 = generic sum over c of g, g * xhat               -> 2 x
//   tensor<16xf32> %dx   = generic rstd * (g - rs#0 / N - xhat * rs#1 / N) ->
//   tensor<16x768xbf16> %cs:2 = generic sum over r of dy * xhat, dy -> 2 x
//   tensor<768xf32>
//
// A fast single-pass kernel per target replaces these where one exists.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

// dx = scale * y * (dy - sum_dim(dy * y)):
//   %dot = generic sum over `dim` of f32(dy) * f32(y)   (the other dims kept)
//   %dx  = generic scale * f32(y) * (f32(dy) - %dot), rounded once
struct SoftmaxBackwardToLinalg : public OpRewritePattern<SoftmaxBackwardOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxBackwardOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    Value dy = op.getGradOutput(), y = op.getOutput();
    ArrayRef<int64_t> shape = shapeOf(y);
    unsigned rank = shape.size();
    unsigned dim = op.getDimension();
    double scale = 1.0;
    if (std::optional<APFloat> s = op.getScale())
      scale = s->convertToDouble();
    MLIRContext *ctx = rw.getContext();
    SmallVector<unsigned> kept;
    SmallVector<int64_t> keptShape;
    for (unsigned d = 0; d < rank; ++d)
      if (d != dim) {
        kept.push_back(d);
        keptShape.push_back(shape[d]);
      }
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap row = AffineMap::getMultiDimMapWithTargets(rank, kept, ctx);
    Value dot =
        filledTensor(rw, loc, keptShape, rw.getF32Type(), cF32(rw, loc, 0.0));
    dot = buildGeneric(rw, loc, {dy, y}, {dot}, {id, id, row}, rank, {dim},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value p = arith::MulFOp::create(
                             b, l, toF32(b, l, a[0]), toF32(b, l, a[1]));
                         linalg::YieldOp::create(
                             b, l,
                             ValueRange{arith::AddFOp::create(b, l, a[2], p)});
                       })
              .getResult(0);
    Type elt = elementTypeOf(y);
    Value init = tensor::EmptyOp::create(rw, loc, shape, elt);
    Value dx =
        buildGeneric(
            rw, loc, {dy, y, dot}, {init}, {id, id, row, id}, rank, {},
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value diff = arith::SubFOp::create(b, l, toF32(b, l, a[0]), a[2]);
              Value v = arith::MulFOp::create(b, l, toF32(b, l, a[1]), diff);
              if (scale != 1.0)
                v = arith::MulFOp::create(b, l, v, cF32(b, l, scale));
              linalg::YieldOp::create(b, l, ValueRange{fromF32(b, l, v, elt)});
            })
            .getResult(0);
    rw.replaceOp(op, dx);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LayerNorm and RMSNorm
//===----------------------------------------------------------------------===//

/// What the generics of one norm backward share: the operands, the maps of
/// the full space onto the rows and the normalized shape, and xhat and g.
struct NormBackwardParts {
  Value dy, x, mean, rstd, weight;
  unsigned rank = 0, lead = 0;
  int64_t n = 1; // elements per row
  AffineMap id, rowMap, colMap;

  /// The operands every generic reads, then their maps.
  SmallVector<Value> inputs() const {
    SmallVector<Value> v = {dy, x, rstd};
    if (mean)
      v.push_back(mean);
    if (weight)
      v.push_back(weight);
    return v;
  }
  SmallVector<AffineMap> inputMaps() const {
    SmallVector<AffineMap> m = {id, id, rowMap};
    if (mean)
      m.push_back(rowMap);
    if (weight)
      m.push_back(colMap);
    return m;
  }
  /// xhat = (x - mean) * rstd (RMSNorm: x * rstd) from the block arguments
  /// in the order of inputs().
  Value xhat(OpBuilder &b, Location l, ValueRange a) const {
    Value x = toF32(b, l, a[1]);
    if (mean)
      x = arith::SubFOp::create(b, l, x, a[3]);
    return arith::MulFOp::create(b, l, x, a[2]);
  }
  /// g = dy * weight (dy without a weight).
  Value g(OpBuilder &b, Location l, ValueRange a) const {
    Value v = toF32(b, l, a[0]);
    if (weight)
      v = arith::MulFOp::create(b, l, v, toF32(b, l, a[mean ? 4 : 3]));
    return v;
  }
};

/// Row sums of g and g * xhat (LayerNorm) or of g * xhat alone (RMSNorm).
SmallVector<Value> buildRowSums(OpBuilder &rw, Location loc,
                                const NormBackwardParts &p,
                                ArrayRef<int64_t> leadShape) {
  bool withG = static_cast<bool>(p.mean);
  SmallVector<Value> outs;
  for (int k = 0; k < (withG ? 2 : 1); ++k)
    outs.push_back(
        filledTensor(rw, loc, leadShape, rw.getF32Type(), cF32(rw, loc, 0.0)));
  SmallVector<AffineMap> maps = p.inputMaps();
  maps.append(outs.size(), p.rowMap);
  SmallVector<unsigned> red =
      llvm::to_vector(llvm::seq<unsigned>(p.lead, p.rank));
  size_t numIns = p.inputs().size();
  auto gen = buildGeneric(
      rw, loc, p.inputs(), outs, maps, p.rank, red,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value g = p.g(b, l, a);
        Value gx = arith::MulFOp::create(b, l, g, p.xhat(b, l, a));
        SmallVector<Value> sums;
        size_t next = numIns;
        if (withG)
          sums.push_back(arith::AddFOp::create(b, l, a[next++], g));
        sums.push_back(arith::AddFOp::create(b, l, a[next++], gx));
        linalg::YieldOp::create(b, l, sums);
      });
  return SmallVector<Value>(gen.getResults());
}

/// dx = rstd * (g - sum(g) / N - xhat * sum(g * xhat) / N), rounded once
/// (RMSNorm has no sum(g) term).
Value buildInputGrad(OpBuilder &rw, Location loc, const NormBackwardParts &p,
                     ArrayRef<Value> rowSums, ArrayRef<int64_t> shape,
                     Type elt) {
  SmallVector<Value> ins = p.inputs();
  SmallVector<AffineMap> maps = p.inputMaps();
  size_t numIns = ins.size();
  for (Value s : rowSums) {
    ins.push_back(s);
    maps.push_back(p.rowMap);
  }
  maps.push_back(p.id);
  Value init = tensor::EmptyOp::create(rw, loc, shape, elt);
  double invN = 1.0 / static_cast<double>(p.n);
  return buildGeneric(
             rw, loc, ins, {init}, maps, p.rank, {},
             [&](OpBuilder &b, Location l, ValueRange a) {
               Value g = p.g(b, l, a);
               Value sumGX = a[numIns + rowSums.size() - 1];
               Value corr = arith::MulFOp::create(
                   b, l, p.xhat(b, l, a),
                   arith::MulFOp::create(b, l, sumGX, cF32(b, l, invN)));
               Value v = arith::SubFOp::create(b, l, g, corr);
               if (rowSums.size() == 2)
                 v = arith::SubFOp::create(
                     b, l, v,
                     arith::MulFOp::create(b, l, a[numIns], cF32(b, l, invN)));
               v = arith::MulFOp::create(b, l, v, a[2]);
               linalg::YieldOp::create(b, l, ValueRange{fromF32(b, l, v, elt)});
             })
      .getResult(0);
}

/// Column sums over the rows: dweight = sum dy * xhat, dbias = sum dy, each
/// rounded once to its result type (null results are not built).
SmallVector<Value> buildColumnSums(OpBuilder &rw, Location loc,
                                   const NormBackwardParts &p,
                                   ArrayRef<int64_t> normShape,
                                   Value gradWeight, Value gradBias) {
  SmallVector<Value> outs;
  if (gradWeight)
    outs.push_back(
        filledTensor(rw, loc, normShape, rw.getF32Type(), cF32(rw, loc, 0.0)));
  if (gradBias)
    outs.push_back(
        filledTensor(rw, loc, normShape, rw.getF32Type(), cF32(rw, loc, 0.0)));
  if (outs.empty())
    return {};
  SmallVector<AffineMap> maps = p.inputMaps();
  maps.append(outs.size(), p.colMap);
  SmallVector<unsigned> red = llvm::to_vector(llvm::seq<unsigned>(0, p.lead));
  size_t numIns = p.inputs().size();
  auto gen = buildGeneric(
      rw, loc, p.inputs(), outs, maps, p.rank, red,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value dy = toF32(b, l, a[0]);
        SmallVector<Value> sums;
        size_t next = numIns;
        if (gradWeight)
          sums.push_back(arith::AddFOp::create(
              b, l, a[next++],
              arith::MulFOp::create(b, l, dy, p.xhat(b, l, a))));
        if (gradBias)
          sums.push_back(arith::AddFOp::create(b, l, a[next++], dy));
        linalg::YieldOp::create(b, l, sums);
      });
  SmallVector<Value> results;
  unsigned next = 0;
  for (Value want : {gradWeight, gradBias})
    if (want)
      results.push_back(
          castElements(rw, loc, gen.getResult(next++), elementTypeOf(want)));
  return results;
}

template <typename NormBackwardOp>
struct NormBackwardToLinalg : public OpRewritePattern<NormBackwardOp> {
  using OpRewritePattern<NormBackwardOp>::OpRewritePattern;
  static constexpr bool kIsLayerNorm =
      std::is_same_v<NormBackwardOp, LayerNormBackwardOp>;

  LogicalResult matchAndRewrite(NormBackwardOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    NormBackwardParts p;
    p.dy = op.getGradOutput();
    p.x = op.getInput();
    p.rstd = op.getRstd();
    p.weight = op.getWeight();
    Value gradBias;
    if constexpr (kIsLayerNorm) {
      p.mean = op.getMean();
      gradBias = op.getGradBias();
    }
    ArrayRef<int64_t> shape = shapeOf(p.x);
    p.rank = shape.size();
    p.lead = p.rank - op.getNormalizedRank();
    p.n = numElements(shape.drop_front(p.lead));
    if (p.n == 0)
      return rw.notifyMatchFailure(op, "empty normalized shape");
    MLIRContext *ctx = rw.getContext();
    p.id = AffineMap::getMultiDimIdentityMap(p.rank, ctx);
    p.rowMap = AffineMap::getMultiDimMapWithTargets(
        p.rank, llvm::to_vector(llvm::seq<unsigned>(0, p.lead)), ctx);
    p.colMap = AffineMap::getMultiDimMapWithTargets(
        p.rank, llvm::to_vector(llvm::seq<unsigned>(p.lead, p.rank)), ctx);

    SmallVector<Value> rowSums =
        buildRowSums(rw, loc, p, shape.take_front(p.lead));
    SmallVector<Value> results = {
        buildInputGrad(rw, loc, p, rowSums, shape, elementTypeOf(p.x))};
    llvm::append_range(results,
                       buildColumnSums(rw, loc, p, shape.drop_front(p.lead),
                                       op.getGradWeight(), gradBias));
    rw.replaceOp(op, results);
    return success();
  }
};

} // namespace

void sinter::populateSoftmaxBackwardToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxBackwardToLinalg>(patterns.getContext());
}

void sinter::populateRowBackwardToLinalgPatterns(RewritePatternSet &patterns) {
  populateSoftmaxBackwardToLinalgPatterns(patterns);
  patterns.add<NormBackwardToLinalg<LayerNormBackwardOp>,
               NormBackwardToLinalg<RMSNormBackwardOp>>(patterns.getContext());
}
