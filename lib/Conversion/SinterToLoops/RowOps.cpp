//===- RowOps.cpp - softmax and the norms to one-row-per-program nests ----===//
//
// Part of the Sinter project.
//
// One scf.forall program per row. A program loads its row once into an f32
// tile (applying the softmax scale and mask on the way), reduces the tile,
// and writes the output row once. The variance is two-pass over the loaded
// tile (sum of (x - mean)^2), never E[x^2] - E[x]^2: on a CPU the tile stays
// in cache, on a GPU it stays in registers. Softmax over a non-trailing
// dimension slices strided rows out of the input.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

/// A row program over the dimensions of `shape` not in `rowDims`: the
/// forall, the offsets and sizes that select one row, and the row's shape.
struct RowNest {
  scf::ForallOp forall;
  SmallVector<OpFoldResult> offsets, sizes;
  /// For every input dimension: the program index (row dims: null).
  SmallVector<Value> programIndex;
  SmallVector<int64_t> rowShape;
};

RowNest createRowNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                      ArrayRef<bool> isRowDim, ValueRange outputs,
                      StringRef op) {
  RowNest nest;
  SmallVector<int64_t> grid;
  for (auto [d, size] : llvm::enumerate(shape))
    if (!isRowDim[d])
      grid.push_back(size);
    else
      nest.rowShape.push_back(size);
  bool noGrid = grid.empty();
  if (noGrid)
    grid.push_back(1);
  nest.forall = createForall(b, loc, grid, outputs);
  setTileAttr(nest.forall, "row",
              {b.getNamedAttr("op", b.getStringAttr(op)),
               b.getNamedAttr("row_size", b.getI64IntegerAttr(
                                              numElements(nest.rowShape)))});
  SmallVector<Value> ivs = nest.forall.getInductionVars();
  unsigned next = 0;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (isRowDim[d]) {
      nest.offsets.push_back(b.getIndexAttr(0));
      nest.sizes.push_back(b.getIndexAttr(size));
      nest.programIndex.push_back(Value());
    } else {
      Value iv = ivs[next++];
      nest.offsets.push_back(iv);
      nest.sizes.push_back(b.getIndexAttr(1));
      nest.programIndex.push_back(iv);
    }
  }
  return nest;
}

/// Sum (or max) over an f32 tile of `f(x)` for each element x (x itself
/// when `f` is null), as an f32 scalar.
Value reduceTile(OpBuilder &b, Location loc, Value tile, bool isMax,
                 function_ref<Value(OpBuilder &, Location, Value)> f = {}) {
  auto type = cast<RankedTensorType>(tile.getType());
  unsigned rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  double init = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value acc = filledTensor(b, loc, {}, b.getF32Type(), cF32(b, loc, init));
  SmallVector<unsigned> red = llvm::to_vector(llvm::seq<unsigned>(0, rank));
  Value r =
      buildGeneric(
          b, loc, {tile}, {acc},
          {AffineMap::getMultiDimIdentityMap(rank, ctx),
           AffineMap::get(rank, 0, {}, ctx)},
          rank, red,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value x = f ? f(bb, l, a[0]) : a[0];
            Value v =
                isMax ? arith::MaximumFOp::create(bb, l, x, a[1]).getResult()
                      : arith::AddFOp::create(bb, l, a[1], x).getResult();
            linalg::YieldOp::create(bb, l, ValueRange{v});
          })
          .getResult(0);
  return tensor::ExtractOp::create(b, loc, r, ValueRange{});
}

/// An elementwise generic over `rank` loops: `ins` (identity maps) to
/// `dest`, or to a new tensor of `outType` elements when `dest` is null.
Value mapTile(OpBuilder &b, Location loc, ValueRange ins,
              ArrayRef<int64_t> shape, Type outType, BodyFn body,
              Value dest = Value()) {
  unsigned rank = shape.size();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<AffineMap> maps(ins.size() + 1, id);
  if (!dest)
    dest = tensor::EmptyOp::create(b, loc, shape, outType);
  return buildGeneric(b, loc, ins, {dest}, maps, rank, {}, body).getResult(0);
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

template <typename NormOp>
struct NormToLoops : public OpRewritePattern<NormOp> {
  using OpRewritePattern<NormOp>::OpRewritePattern;
  static constexpr bool kIsLayerNorm = std::is_same_v<NormOp, LayerNormOp>;

  LogicalResult matchAndRewrite(NormOp op, PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t rank = shape.size(), nr = op.getNormalizedRank();
    // The output may be narrower than the input (a rounding folded in).
    Type elt = elementTypeOf(op.getOutput());
    int64_t n = numElements(shape.take_back(nr));
    if (n == 0)
      return rw.notifyMatchFailure(op, "empty normalized shape");
    double eps = op.getEpsilon().convertToDouble();
    Value weight = op.getWeight(), bias, meanRes, rstdRes = op.getRstd();
    if constexpr (kIsLayerNorm) {
      bias = op.getBias();
      meanRes = op.getMean();
    }
    ArrayRef<int64_t> lead = shape.drop_back(nr);

    SmallVector<Value> inits = {tensor::EmptyOp::create(rw, loc, shape, elt)};
    if (meanRes)
      inits.push_back(tensor::EmptyOp::create(rw, loc, lead, rw.getF32Type()));
    if (rstdRes)
      inits.push_back(tensor::EmptyOp::create(rw, loc, lead, rw.getF32Type()));

    OpBuilder::InsertionGuard guard(rw);
    SmallVector<bool> isRowDim(rank, false);
    for (int64_t d = rank - nr; d < rank; ++d)
      isRowDim[d] = true;
    RowNest nest = createRowNest(rw, loc, shape, isRowDim, inits,
                                 op->getName().stripDialect());
    ArrayRef<int64_t> rowShape = nest.rowShape;
    Value row =
        extractSlice(rw, loc, input, nest.offsets, nest.sizes, rowShape);
    Type f32 = rw.getF32Type();
    // The row, loaded once into an f32 tile.
    Value tile = mapTile(rw, loc, {row}, rowShape, f32,
                         [&](OpBuilder &bb, Location l, ValueRange a) {
                           linalg::YieldOp::create(
                               bb, l, ValueRange{toF32(bb, l, a[0])});
                         });
    Value count = cF32(rw, loc, static_cast<double>(n));
    Value mean;
    Value sq;
    if constexpr (kIsLayerNorm) {
      mean = arith::DivFOp::create(rw, loc, reduceTile(rw, loc, tile, false),
                                   count);
      // Second pass over the loaded tile: the sum of centred squares.
      sq = reduceTile(rw, loc, tile, false,
                      [&](OpBuilder &bb, Location l, Value x) -> Value {
                        Value c = arith::SubFOp::create(bb, l, x, mean);
                        return arith::MulFOp::create(bb, l, c, c);
                      });
    } else {
      sq = reduceTile(rw, loc, tile, false,
                      [&](OpBuilder &bb, Location l, Value x) -> Value {
                        return arith::MulFOp::create(bb, l, x, x);
                      });
    }
    Value var = arith::DivFOp::create(rw, loc, sq, count);
    Value rstd = arith::DivFOp::create(
        rw, loc, cF32(rw, loc, 1.0),
        math::SqrtOp::create(
            rw, loc, arith::AddFOp::create(rw, loc, var, cF32(rw, loc, eps))));

    SmallVector<Value> ins = {tile};
    if (weight)
      ins.push_back(weight);
    if (bias)
      ins.push_back(bias);
    // The normalised row is written straight into the program's slice of
    // the result (destination-passing: in place after bufferization).
    ValueRange outArgs = nest.forall.getRegionOutArgs();
    Value outSlice =
        extractSlice(rw, loc, outArgs[0], nest.offsets, nest.sizes, rowShape);
    Value out = mapTile(
        rw, loc, ins, rowShape, elt,
        [&](OpBuilder &bb, Location l, ValueRange a) {
          Value x = a[0];
          if (mean)
            x = arith::SubFOp::create(bb, l, x, mean);
          x = arith::MulFOp::create(bb, l, x, rstd);
          unsigned next = 1;
          if (weight)
            x = arith::MulFOp::create(bb, l, x, toF32(bb, l, a[next++]));
          if (bias)
            x = arith::AddFOp::create(bb, l, x, toF32(bb, l, a[next++]));
          linalg::YieldOp::create(bb, l, ValueRange{fromF32(bb, l, x, elt)});
        },
        outSlice);
    addParallelInsert(rw, loc, nest.forall, out, outArgs[0], nest.offsets,
                      nest.sizes);
    // Statistics: one scalar per program.
    ArrayRef<OpFoldResult> leadOffsets =
        ArrayRef<OpFoldResult>(nest.offsets).drop_back(nr);
    SmallVector<OpFoldResult> leadSizes(lead.size(), rw.getIndexAttr(1));
    // Stored into the program's 0-d slice of the statistic (in place).
    auto storeStat = [&](Value v, Value dest) {
      Value slice = extractSlice(rw, loc, dest, leadOffsets, leadSizes, {});
      Value stat = tensor::InsertOp::create(rw, loc, v, slice, ValueRange{});
      addParallelInsert(rw, loc, nest.forall, stat, dest, leadOffsets,
                        leadSizes);
    };
    unsigned nextOut = 1;
    if (meanRes)
      storeStat(mean, outArgs[nextOut++]);
    if (rstdRes)
      storeStat(rstd, outArgs[nextOut++]);
    rw.replaceOp(op, nest.forall.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

struct SoftmaxToLoops : public OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput(), mask = op.getMask();
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t rank = shape.size(), dim = op.getDimension();
    Type elt = elementTypeOf(input), f32 = rw.getF32Type();
    std::optional<double> scale;
    if (std::optional<APFloat> s = op.getScale())
      scale = s->convertToDouble();

    Value init = tensor::EmptyOp::create(rw, loc, shape, elt);
    OpBuilder::InsertionGuard guard(rw);
    SmallVector<bool> isRowDim(rank, false);
    isRowDim[dim] = true;
    RowNest nest = createRowNest(rw, loc, shape, isRowDim, {init}, "softmax");
    ArrayRef<int64_t> rowShape = nest.rowShape;
    Value row =
        extractSlice(rw, loc, input, nest.offsets, nest.sizes, rowShape);
    // Load: y = scale * x + mask, the mask read by index (broadcast
    // dimensions read index 0).
    Value tile =
        mapTile(rw, loc, {row}, rowShape, f32,
                [&](OpBuilder &bb, Location l, ValueRange a) {
                  Value y = toF32(bb, l, a[0]);
                  if (scale)
                    y = arith::MulFOp::create(bb, l, y, cF32(bb, l, *scale));
                  if (mask) {
                    ArrayRef<int64_t> mShape = shapeOf(mask);
                    int64_t leadDims =
                        rank - static_cast<int64_t>(mShape.size());
                    SmallVector<Value> idx;
                    for (auto [k, size] : llvm::enumerate(mShape)) {
                      int64_t d = leadDims + static_cast<int64_t>(k);
                      if (size == 1)
                        idx.push_back(cIdx(bb, l, 0));
                      else if (d == dim)
                        idx.push_back(linalg::IndexOp::create(bb, l, 0));
                      else
                        idx.push_back(nest.programIndex[d]);
                    }
                    Value mv = tensor::ExtractOp::create(bb, l, mask, idx);
                    y = arith::AddFOp::create(bb, l, y, toF32(bb, l, mv));
                  }
                  linalg::YieldOp::create(bb, l, ValueRange{y});
                });
    const double inf = std::numeric_limits<double>::infinity();
    Value mx = reduceTile(rw, loc, tile, /*isMax=*/true);
    Value allMasked = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OEQ,
                                            mx, cF32(rw, loc, -inf));
    Value shift =
        arith::SelectOp::create(rw, loc, allMasked, cF32(rw, loc, 0.0), mx);
    // exp(y - shift), in place of the tile.
    Value e = mapTile(
        rw, loc, {}, rowShape, f32,
        [&](OpBuilder &bb, Location l, ValueRange a) {
          linalg::YieldOp::create(
              bb, l,
              ValueRange{math::ExpOp::create(
                  bb, l, arith::SubFOp::create(bb, l, a[0], shift))});
        },
        tile);
    Value sum = reduceTile(rw, loc, e, /*isMax=*/false);
    Value empty = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OEQ, sum,
                                        cF32(rw, loc, 0.0));
    Value outSlice = extractSlice(rw, loc, nest.forall.getRegionOutArgs()[0],
                                  nest.offsets, nest.sizes, rowShape);
    Value out = mapTile(
        rw, loc, {e}, rowShape, elt,
        [&](OpBuilder &bb, Location l, ValueRange a) {
          Value v = arith::DivFOp::create(bb, l, a[0], sum);
          v = arith::SelectOp::create(bb, l, empty, cF32(bb, l, 0.0), v);
          linalg::YieldOp::create(bb, l, ValueRange{fromF32(bb, l, v, elt)});
        },
        outSlice);
    addParallelInsert(rw, loc, nest.forall, out,
                      nest.forall.getRegionOutArgs()[0], nest.offsets,
                      nest.sizes);
    rw.replaceOp(op, nest.forall.getResults());
    return success();
  }
};

} // namespace

void sinter::populateRowOpsToLoopsPatterns(RewritePatternSet &patterns,
                                           const SinterToLoopsOptions &) {
  patterns
      .add<SoftmaxToLoops, NormToLoops<LayerNormOp>, NormToLoops<RMSNormOp>>(
          patterns.getContext());
}
