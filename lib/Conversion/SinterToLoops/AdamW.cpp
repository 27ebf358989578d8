//===- AdamW.cpp - sinter.adamw to one multi-tensor program nest ----------===//
//
// Part of the Sinter project.
//
// One scf.forall whose program c updates chunk c of every tensor of the op
// (a chunk is about `elementwise-block` elements: whole slices of the
// outermost dimension). A tensor with fewer chunks gets empty slices in the
// surplus programs. The parameters and moments are the forall's shared
// outs, so one-shot-bufferize updates them in place; the generic on a chunk
// reads p, m and v from its outs and the gradient from its ins: one read
// and one write of each element.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

struct AdamWToLoops : public OpRewritePattern<AdamWOp> {
  AdamWToLoops(MLIRContext *ctx, const SinterToLoopsOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(AdamWOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    unsigned n = op.getNumTensors();
    Location loc = op.getLoc();
    // A rank-0 tensor takes part as a 1-element 1-D tensor (a reshape that
    // bufferizes to a view, so the update stays in place).
    auto as1D = [&](Value v) -> Value {
      if (!shapeOf(v).empty())
        return v;
      auto type = RankedTensorType::get({1}, elementTypeOf(v));
      return tensor::ExpandShapeOp::create(rw, loc, type, v,
                                           ArrayRef<ReassociationIndices>{});
    };
    SmallVector<Value> params, grads, outs;
    for (Value v : op.getParams())
      params.push_back(as1D(v));
    for (Value v : op.getGrads())
      grads.push_back(as1D(v));
    llvm::append_range(outs, params);
    for (Value v : op.getExpAvgs())
      outs.push_back(as1D(v));
    for (Value v : op.getExpAvgSqs())
      outs.push_back(as1D(v));

    // Rows of the outermost dimension per chunk, and chunks, per tensor.
    SmallVector<int64_t> rowsPerChunk, chunks;
    int64_t numPrograms = 0;
    for (Value p : params) {
      ArrayRef<int64_t> s = shapeOf(p);
      int64_t inner = std::max<int64_t>(1, numElements(s.drop_front()));
      int64_t r = std::max<int64_t>(1, options.elementwiseBlock / inner);
      r = std::min(r, std::max<int64_t>(1, s[0]));
      rowsPerChunk.push_back(r);
      chunks.push_back((s[0] + r - 1) / r);
      numPrograms = std::max(numPrograms, chunks.back());
    }

    // Scalars shared by every element: bias corrections from the step.
    double beta1 = op.getBeta1().convertToDouble();
    double beta2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();
    Value lr = op.getLr(), step = op.getStep();
    Value one = cF32(rw, loc, 1.0);
    Value bc1 = arith::SubFOp::create(
        rw, loc, one,
        math::PowFOp::create(rw, loc, cF32(rw, loc, beta1), step));
    Value bc2 = arith::SubFOp::create(
        rw, loc, one,
        math::PowFOp::create(rw, loc, cF32(rw, loc, beta2), step));
    Value decay = arith::SubFOp::create(
        rw, loc, one, arith::MulFOp::create(rw, loc, lr, cF32(rw, loc, wd)));

    OpBuilder::InsertionGuard guard(rw);
    scf::ForallOp forall = createForall(rw, loc, {numPrograms}, outs);
    setTileAttr(forall, "adamw",
                {rw.getNamedAttr(
                     "chunk", rw.getI64IntegerAttr(options.elementwiseBlock)),
                 rw.getNamedAttr("num_tensors", rw.getI64IntegerAttr(n))});
    Value c = forall.getInductionVars()[0];
    ValueRange outArgs = forall.getRegionOutArgs();
    for (unsigned t = 0; t < n; ++t) {
      ArrayRef<int64_t> s = shapeOf(params[t]);
      int64_t r = rowsPerChunk[t];
      Value r0 = arith::MulIOp::create(rw, loc, c, cIdx(rw, loc, r));
      OpFoldResult rows = rw.getIndexAttr(r);
      int64_t sliceRows = r;
      if (chunks[t] != numPrograms || s[0] % r != 0) {
        // Clamp to the tensor: a surplus program gets an empty slice.
        r0 = arith::MinSIOp::create(rw, loc, r0, cIdx(rw, loc, s[0]));
        rows = arith::MinSIOp::create(
                   rw, loc, cIdx(rw, loc, r),
                   arith::SubIOp::create(rw, loc, cIdx(rw, loc, s[0]), r0))
                   .getResult();
        sliceRows = ShapedType::kDynamic;
      }
      SmallVector<OpFoldResult> offsets(s.size(), rw.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes;
      SmallVector<int64_t> sliceShape(s.begin(), s.end());
      offsets[0] = r0;
      sizes.push_back(rows);
      for (int64_t d : s.drop_front())
        sizes.push_back(rw.getIndexAttr(d));
      sliceShape[0] = sliceRows;
      auto slice = [&](Value v) {
        return extractSlice(rw, loc, v, offsets, sizes, sliceShape);
      };
      Value g = slice(grads[t]);
      Value pOut = slice(outArgs[t]), mOut = slice(outArgs[n + t]),
            vOut = slice(outArgs[2 * n + t]);
      unsigned rank = s.size();
      AffineMap id = AffineMap::getMultiDimIdentityMap(rank, rw.getContext());
      auto gen = buildGeneric(
          rw, loc, {g}, {pOut, mOut, vOut}, {id, id, id, id}, rank, {},
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value gv = toF32(bb, l, a[0]);
            Value pv = toF32(bb, l, a[1]);
            Value mv = toF32(bb, l, a[2]);
            Value vv = toF32(bb, l, a[3]);
            pv = arith::MulFOp::create(bb, l, pv, decay);
            mv = arith::AddFOp::create(
                bb, l, arith::MulFOp::create(bb, l, cF32(bb, l, beta1), mv),
                arith::MulFOp::create(bb, l, cF32(bb, l, 1.0 - beta1), gv));
            Value g2 = arith::MulFOp::create(bb, l, gv, gv);
            vv = arith::AddFOp::create(
                bb, l, arith::MulFOp::create(bb, l, cF32(bb, l, beta2), vv),
                arith::MulFOp::create(bb, l, cF32(bb, l, 1.0 - beta2), g2));
            Value denom = arith::AddFOp::create(
                bb, l,
                math::SqrtOp::create(bb, l,
                                     arith::DivFOp::create(bb, l, vv, bc2)),
                cF32(bb, l, eps));
            Value upd = arith::DivFOp::create(
                bb, l,
                arith::MulFOp::create(bb, l, lr,
                                      arith::DivFOp::create(bb, l, mv, bc1)),
                denom);
            pv = arith::SubFOp::create(bb, l, pv, upd);
            linalg::YieldOp::create(
                bb, l,
                ValueRange{fromF32(bb, l, pv, a[1].getType()),
                           fromF32(bb, l, mv, a[2].getType()),
                           fromF32(bb, l, vv, a[3].getType())});
          });
      for (unsigned k = 0; k < 3; ++k)
        addParallelInsert(rw, loc, forall, gen.getResult(k), outArgs[k * n + t],
                          offsets, sizes);
    }
    rw.setInsertionPointAfter(forall);
    SmallVector<Value> results;
    for (auto [res, orig] :
         llvm::zip_equal(forall.getResults(), op.getResults())) {
      if (res.getType() == orig.getType())
        results.push_back(res);
      else
        results.push_back(tensor::CollapseShapeOp::create(
            rw, loc, orig.getType(), res, ArrayRef<ReassociationIndices>{}));
    }
    rw.replaceOp(op, results);
    return success();
  }

  SinterToLoopsOptions options;
};

} // namespace

void sinter::populateAdamWToLoopsPatterns(RewritePatternSet &patterns,
                                          const SinterToLoopsOptions &options) {
  patterns.add<AdamWToLoops>(patterns.getContext(), options);
}
