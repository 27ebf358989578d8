//===- Fused.cpp - sinter.fused to one linalg.generic per program ---------===//
//
// Part of the Sinter project.
//
// One scf.forall program per block of the outermost iteration dimension
// (about `elementwise-block` elements); each program is one linalg.generic
// with the op's indexing maps over slices of the inputs and results, and
// the op's body cloned into it, so each input element is read once and each
// output element written once. Scalar inputs are used directly.
// sinter.dropout becomes a Philox4x32-10 keep mask at the row-major linear
// index of the iteration point.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/Philox.h"
#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

struct FusedToLoops : public OpRewritePattern<FusedOp> {
  FusedToLoops(MLIRContext *ctx, const SinterToLoopsOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(FusedOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    for (Operation &inner : op.getBody().front())
      if (inner.getNumRegions() != 0)
        return rw.notifyMatchFailure(op, "ops with regions are not supported "
                                         "in a sinter.fused body");
    Location loc = op.getLoc();
    ArrayRef<int64_t> iter = op.getIterationShape();
    unsigned rank = iter.size();

    // Programs over blocks of the outermost dimension.
    int64_t rows = 1, programs = 1;
    bool ragged = false;
    if (rank > 0) {
      int64_t inner = std::max<int64_t>(1, numElements(iter.drop_front()));
      rows = std::max<int64_t>(1, options.elementwiseBlock / inner);
      rows = std::min(rows, std::max<int64_t>(1, iter[0]));
      programs = (iter[0] + rows - 1) / rows;
      ragged = iter[0] % rows != 0;
    }

    SmallVector<Value> inits;
    for (Value r : op.getResults())
      inits.push_back(
          tensor::EmptyOp::create(rw, loc, shapeOf(r), elementTypeOf(r)));
    OpBuilder::InsertionGuard guard(rw);
    scf::ForallOp forall = createForall(rw, loc, {programs}, inits);
    setTileAttr(
        forall, "elementwise",
        {rw.getNamedAttr("rows_per_program", rw.getI64IntegerAttr(rows))});
    Value r0 = arith::MulIOp::create(rw, loc, forall.getInductionVars()[0],
                                     cIdx(rw, loc, rows));
    OpFoldResult count = rw.getIndexAttr(rows);
    if (ragged)
      count = arith::MinSIOp::create(
                  rw, loc, cIdx(rw, loc, rows),
                  arith::SubIOp::create(rw, loc, cIdx(rw, loc, iter[0]), r0))
                  .getResult();

    // The slice of a tensor indexed by `map` that one program touches.
    auto sliceOf = [&](Value v, AffineMap map, SmallVector<OpFoldResult> &offs,
                       SmallVector<OpFoldResult> &sizes) -> Value {
      ArrayRef<int64_t> shape = shapeOf(v);
      SmallVector<int64_t> sliceShape(shape.begin(), shape.end());
      for (auto [k, expr] : llvm::enumerate(map.getResults())) {
        auto dimExpr = dyn_cast<AffineDimExpr>(expr);
        if (rank > 0 && dimExpr && dimExpr.getPosition() == 0) {
          offs.push_back(r0);
          sizes.push_back(count);
          sliceShape[k] = ragged ? ShapedType::kDynamic : rows;
        } else {
          offs.push_back(rw.getIndexAttr(0));
          sizes.push_back(rw.getIndexAttr(shape[k]));
        }
      }
      return extractSlice(rw, loc, v, offs, sizes, sliceShape);
    };

    Block &body = op.getBody().front();
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    IRMapping mapping;
    SmallVector<BlockArgument> tensorArgs;
    for (auto [input, attr, arg] : llvm::zip_equal(
             op.getInputs(), op.getIndexingMaps(), body.getArguments())) {
      AffineMap map = cast<AffineMapAttr>(attr).getValue();
      if (!isa<RankedTensorType>(input.getType())) {
        mapping.map(arg, input);
        continue;
      }
      SmallVector<OpFoldResult> offs, sizes;
      ins.push_back(sliceOf(input, map, offs, sizes));
      maps.push_back(map);
      tensorArgs.push_back(arg);
    }
    SmallVector<Value> outs;
    SmallVector<SmallVector<OpFoldResult>> outOffsets, outSizes;
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, rw.getContext());
    for (Value arg : forall.getRegionOutArgs()) {
      outOffsets.emplace_back();
      outSizes.emplace_back();
      outs.push_back(sliceOf(arg, id, outOffsets.back(), outSizes.back()));
      maps.push_back(id);
    }

    // Row-major strides of the iteration space (dropout offsets).
    SmallVector<int64_t> strides(rank, 1);
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * iter[d + 1];

    auto generic = buildGeneric(
        rw, loc, ins, outs, maps, rank, {},
        [&](OpBuilder &bb, Location l, ValueRange a) {
          for (auto [arg, v] : llvm::zip(tensorArgs, a))
            mapping.map(arg, v);
          Value linear;
          auto linearIndex = [&]() -> Value {
            if (linear)
              return linear;
            Type i64 = bb.getI64Type();
            linear = arith::ConstantIntOp::create(bb, l, i64, 0);
            for (unsigned d = 0; d < rank; ++d) {
              Value idx = linalg::IndexOp::create(bb, l, d);
              if (d == 0)
                idx = arith::AddIOp::create(bb, l, idx, r0);
              Value i = arith::IndexCastOp::create(bb, l, i64, idx);
              Value s = arith::ConstantIntOp::create(bb, l, i64, strides[d]);
              linear = arith::AddIOp::create(
                  bb, l, linear, arith::MulIOp::create(bb, l, i, s));
            }
            return linear;
          };
          for (Operation &inner : body) {
            if (auto yield = dyn_cast<YieldOp>(inner)) {
              SmallVector<Value> vals;
              for (Value v : yield.getValues())
                vals.push_back(mapping.lookup(v));
              linalg::YieldOp::create(bb, l, vals);
              continue;
            }
            if (auto drop = dyn_cast<DropoutOp>(inner)) {
              double p = drop.getP().convertToDouble();
              Value x = mapping.lookup(drop.getInput());
              Value keep = buildPhiloxKeep(bb, drop.getLoc(), linearIndex(),
                                           mapping.lookup(drop.getSeed()), p);
              Value scaled = arith::DivFOp::create(
                  bb, drop.getLoc(), x,
                  cFloat(bb, drop.getLoc(), x.getType(), 1.0 - p));
              Value zero = cFloat(bb, drop.getLoc(), x.getType(), 0.0);
              mapping.map(
                  drop.getResult(),
                  arith::SelectOp::create(bb, drop.getLoc(), keep, scaled, zero)
                      .getResult());
              continue;
            }
            bb.clone(inner, mapping);
          }
        });
    for (auto [k, arg] : llvm::enumerate(forall.getRegionOutArgs()))
      addParallelInsert(rw, loc, forall, generic.getResult(k), arg,
                        outOffsets[k], outSizes[k]);
    rw.replaceOp(op, forall.getResults());
    return success();
  }

  SinterToLoopsOptions options;
};

} // namespace

void sinter::populateFusedToLoopsPatterns(RewritePatternSet &patterns,
                                          const SinterToLoopsOptions &options) {
  patterns.add<FusedToLoops>(patterns.getContext(), options);
}
