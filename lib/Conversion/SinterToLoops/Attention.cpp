//===- Attention.cpp - sinter.attention to a FlashAttention-2 nest --------===//
//
// Part of the Sinter project.
//
// One scf.forall program per (batch, query head, query tile of block_m
// rows); an scf.for over key/value tiles of block_n rows carries the running
// row max m, the running row sum l and an f32 accumulator, rescaled by
// exp(m_old - m_new) on every tile (FlashAttention-2). Every tile is static:
// a ragged tail is copied into a zero tile, its missing keys are masked to
// -inf and its missing query rows are dropped when the tile is stored. No
// tensor of Sq x Skv elements exists.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "sinter/Conversion/Philox.h"
#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::detail;

namespace {

struct AttentionToLoops : public OpRewritePattern<AttentionOp> {
  AttentionToLoops(MLIRContext *ctx, const SinterToLoopsOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rw) const override {
    if (failed(requireStaticShapes(op, rw)))
      return failure();
    Location loc = op.getLoc();
    Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
    Value mask = op.getMask(), seed = op.getSeed();
    ArrayRef<int64_t> qShape = shapeOf(query), kShape = shapeOf(key),
                      vShape = shapeOf(value);
    int64_t B = qShape[0], Hq = qShape[1], Sq = qShape[2], D = qShape[3];
    int64_t Hkv = kShape[1], Skv = kShape[2], Dv = vShape[3];
    if (Hkv == 0 || Hq % Hkv != 0)
      return rw.notifyMatchFailure(op, "query heads not a multiple of the "
                                       "key/value heads");
    int64_t group = Hq / Hkv;
    Type elt = elementTypeOf(query);
    Type f32 = rw.getF32Type();
    int64_t BM = std::max<int64_t>(1, std::min(options.blockM, Sq));
    int64_t BN = std::max<int64_t>(1, std::min(options.blockN, Skv));
    bool raggedQ = Sq % BM != 0, raggedK = Skv % BN != 0;
    int64_t numQTiles = (Sq + BM - 1) / BM;
    int64_t numKTiles = (Skv + BN - 1) / BN;
    double scale = op.getEffectiveScale();
    // Which keys each query sees (causal: the bottom-right diagonal).
    KeyVisibility visibility = KeyVisibility::of(op);
    double dropP = op.getDropoutP().convertToDouble();
    bool hasLse = static_cast<bool>(op.getLse());
    const double inf = std::numeric_limits<double>::infinity();

    SmallVector<Value> inits = {tensor::EmptyOp::create(
        rw, loc, ArrayRef<int64_t>{B, Hq, Sq, Dv}, elt)};
    if (hasLse)
      inits.push_back(
          tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{B, Hq, Sq}, f32));
    OpBuilder::InsertionGuard guard(rw);
    scf::ForallOp forall = createForall(rw, loc, {B, Hq, numQTiles}, inits);
    setTileAttr(forall, "attention",
                {rw.getNamedAttr("block_m", rw.getI64IntegerAttr(BM)),
                 rw.getNamedAttr("block_n", rw.getI64IntegerAttr(BN))});
    SmallVector<Value> ivs = forall.getInductionVars();
    Value b = ivs[0], h = ivs[1], qt = ivs[2];
    Value c0 = cIdx(rw, loc, 0), c1 = cIdx(rw, loc, 1);
    Value i0 = arith::MulIOp::create(rw, loc, qt, cIdx(rw, loc, BM));
    Value g = group == 1
                  ? h
                  : arith::DivUIOp::create(rw, loc, h, cIdx(rw, loc, group))
                        .getResult();
    // Valid query rows of this tile (dynamic only for a ragged tail).
    OpFoldResult rows = rw.getIndexAttr(BM);
    if (raggedQ)
      rows = arith::MinSIOp::create(
                 rw, loc, cIdx(rw, loc, BM),
                 arith::SubIOp::create(rw, loc, cIdx(rw, loc, Sq), i0))
                 .getResult();
    auto oneIdx = rw.getIndexAttr(1), zeroIdx = rw.getIndexAttr(0);

    // Loads rows [start, start + count) of head `head` of `src` into a
    // static `tileRows` x `width` tile (zero-padded when `count` is dynamic).
    auto loadTile = [&](Value src, Value head, Value start, OpFoldResult count,
                        int64_t tileRows, int64_t width,
                        Value padTile) -> Value {
      SmallVector<OpFoldResult> offs = {b, head, start, zeroIdx};
      SmallVector<OpFoldResult> sizes = {oneIdx, oneIdx, count,
                                         rw.getIndexAttr(width)};
      if (!padTile)
        return extractSlice(rw, loc, src, offs, sizes, {tileRows, width});
      Value part = extractSlice(rw, loc, src, offs, sizes,
                                {ShapedType::kDynamic, width});
      Value zero = cFloat(rw, loc, elementTypeOf(src), 0.0);
      Value zeros = linalg::FillOp::create(rw, loc, zero, padTile).getResult(0);
      return tensor::InsertSliceOp::create(
          rw, loc, part, zeros, ArrayRef<OpFoldResult>{zeroIdx, zeroIdx},
          ArrayRef<OpFoldResult>{count, rw.getIndexAttr(width)},
          ArrayRef<OpFoldResult>{oneIdx, oneIdx});
    };
    Value qTile = loadTile(query, h, i0, rows, BM, D,
                           raggedQ ? tensor::EmptyOp::create(
                                         rw, loc, ArrayRef<int64_t>{BM, D}, elt)
                                         .getResult()
                                   : Value());

    // Number of key/value tiles: all of them, or up to the last key that
    // the last valid row sees.
    Value numTiles = cIdx(rw, loc, numKTiles);
    if (visibility.hidesKeys()) {
      Value rowEnd = arith::MinSIOp::create(
          rw, loc, arith::AddIOp::create(rw, loc, i0, cIdx(rw, loc, BM)),
          cIdx(rw, loc, Sq));
      Value keyEnd = visibility.buildKeyEnd(rw, loc, rowEnd);
      numTiles = arith::DivUIOp::create(
          rw, loc,
          arith::AddIOp::create(rw, loc, keyEnd, cIdx(rw, loc, BN - 1)),
          cIdx(rw, loc, BN));
    }

    // Scratch tiles, reused by every iteration.
    Value sEmpty =
        tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BM, BN}, f32);
    Value kTEmpty =
        tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{D, BN}, elt);
    Value rowEmpty =
        tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BM}, f32);
    Value shiftEmpty =
        tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BM}, f32);
    Value alphaEmpty =
        tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BM}, f32);
    Value kPad, vPad;
    if (raggedK) {
      kPad = tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BN, D}, elt);
      vPad = tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BN, Dv}, elt);
    }
    Value m0 = filledTensor(rw, loc, {BM}, f32, cF32(rw, loc, -inf));
    Value l0 = filledTensor(rw, loc, {BM}, f32, cF32(rw, loc, 0.0));
    Value acc0 = filledTensor(rw, loc, {BM, Dv}, f32, cF32(rw, loc, 0.0));

    MLIRContext *ctx = rw.getContext();
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx);
    auto map3 = [&](ArrayRef<AffineExpr> e) {
      return AffineMap::get(3, 0, e, ctx);
    };
    auto map2 = [&](ArrayRef<AffineExpr> e) {
      return AffineMap::get(2, 0, e, ctx);
    };
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);

    // Dropout stream base offset of this program: ((b*Hq + h)*Sq + i0)*Skv.
    Type i64 = rw.getI64Type();
    auto toI64 = [&](OpBuilder &bb, Value v) -> Value {
      return arith::IndexCastOp::create(bb, loc, i64, v);
    };
    Value rowBase;
    if (dropP > 0.0) {
      Value bh = arith::AddIOp::create(
          rw, loc, arith::MulIOp::create(rw, loc, b, cIdx(rw, loc, Hq)), h);
      Value row = arith::AddIOp::create(
          rw, loc, arith::MulIOp::create(rw, loc, bh, cIdx(rw, loc, Sq)), i0);
      rowBase = toI64(rw, row);
    }

    auto forOp =
        scf::ForOp::create(rw, loc, c0, numTiles, c1, ValueRange{m0, l0, acc0});
    {
      OpBuilder::InsertionGuard g2(rw);
      rw.setInsertionPointToStart(forOp.getBody());
      Value jt = forOp.getInductionVar();
      Value mOld = forOp.getRegionIterArgs()[0];
      Value lOld = forOp.getRegionIterArgs()[1];
      Value acc = forOp.getRegionIterArgs()[2];
      Value j0 = arith::MulIOp::create(rw, loc, jt, cIdx(rw, loc, BN));
      OpFoldResult cols = rw.getIndexAttr(BN);
      if (raggedK)
        cols = arith::MinSIOp::create(
                   rw, loc, cIdx(rw, loc, BN),
                   arith::SubIOp::create(rw, loc, cIdx(rw, loc, Skv), j0))
                   .getResult();
      Value kTile = loadTile(key, g, j0, cols, BN, D, kPad);
      Value vTile = loadTile(value, g, j0, cols, BN, Dv, vPad);

      // S = Q K^T over the tile, in f32. K's tile is transposed first, so
      // that S's rows stream along the keys (the loop over keys is then
      // contiguous in every operand and vectorizes), while each score still
      // sums its products over the head dimension in order.
      Value kT = linalg::TransposeOp::create(rw, loc, kTile, kTEmpty,
                                             ArrayRef<int64_t>{1, 0})
                     .getResult()[0];
      Value s = linalg::FillOp::create(rw, loc, cF32(rw, loc, 0.0), sEmpty)
                    .getResult(0);
      s = buildGeneric(rw, loc, {qTile, kT}, {s},
                       {map3({d0, d2}), map3({d2, d1}), map3({d0, d1})}, 3, {2},
                       [&](OpBuilder &bb, Location l, ValueRange a) {
                         Value qv = toF32(bb, l, a[0]);
                         Value kv = toF32(bb, l, a[1]);
                         Value p = arith::MulFOp::create(bb, l, qv, kv);
                         linalg::YieldOp::create(
                             bb, l,
                             ValueRange{arith::AddFOp::create(bb, l, a[2], p)});
                       })
              .getResult(0);

      // Scale, add the mask (read by index: broadcast dimensions read index
      // 0) and, with `maskKeys`, mask invisible keys to -inf.
      auto scores = [&](OpBuilder &ob, Value in, bool maskKeys) -> Value {
        return buildGeneric(
                   ob, loc, {}, {in}, {id2}, 2, {},
                   [&](OpBuilder &bb, Location l, ValueRange a) {
                     Value x =
                         arith::MulFOp::create(bb, l, a[0], cF32(bb, l, scale));
                     Value i = arith::AddIOp::create(
                         bb, l, i0, linalg::IndexOp::create(bb, l, 0));
                     Value j = arith::AddIOp::create(
                         bb, l, j0, linalg::IndexOp::create(bb, l, 1));
                     if (mask) {
                       ArrayRef<int64_t> mShape = shapeOf(mask);
                       Value iIn = raggedQ ? arith::MinSIOp::create(
                                                 bb, l, i, cIdx(bb, l, Sq - 1))
                                                 .getResult()
                                           : i;
                       Value jIn = raggedK ? arith::MinSIOp::create(
                                                 bb, l, j, cIdx(bb, l, Skv - 1))
                                                 .getResult()
                                           : j;
                       Value full[4] = {b, h, iIn, jIn};
                       int64_t lead = 4 - static_cast<int64_t>(mShape.size());
                       SmallVector<Value> idx;
                       for (auto [k, size] : llvm::enumerate(mShape))
                         idx.push_back(size == 1 ? cIdx(bb, l, 0)
                                                 : full[lead + k]);
                       Value mv = tensor::ExtractOp::create(bb, l, mask, idx);
                       x = arith::AddFOp::create(bb, l, x, toF32(bb, l, mv));
                     }
                     Value visible;
                     auto andWith = [&](Value c) {
                       visible = visible
                                     ? arith::AndIOp::create(bb, l, visible, c)
                                           .getResult()
                                     : c;
                     };
                     if (maskKeys && raggedK)
                       andWith(arith::CmpIOp::create(bb, l,
                                                     arith::CmpIPredicate::slt,
                                                     j, cIdx(bb, l, Skv)));
                     if (maskKeys)
                       if (Value seen = visibility.buildIsVisible(bb, l, i, j))
                         andWith(seen);
                     if (visible)
                       x = arith::SelectOp::create(bb, l, visible, x,
                                                   cF32(bb, l, -inf));
                     linalg::YieldOp::create(bb, l, ValueRange{x});
                   })
            .getResult(0);
      };
      if (!raggedK && !visibility.hidesKeys()) {
        s = scores(rw, s, /*maskKeys=*/false);
      } else {
        // Only the ragged last tile and the tiles that hide a key from one
        // of their rows are masked; the others are wholly visible.
        Value needMask =
            arith::ConstantIntOp::create(rw, loc, rw.getI1Type(), 0);
        if (raggedK)
          needMask = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                           jt, cIdx(rw, loc, numKTiles - 1));
        if (Value hides =
                visibility.buildTileNeedsMask(rw, loc, i0, BM, j0, BN))
          needMask = arith::OrIOp::create(rw, loc, needMask, hides);
        Value in = s;
        auto ifOp = scf::IfOp::create(
            rw, loc, needMask,
            [&](OpBuilder &ob, Location l) {
              scf::YieldOp::create(ob, l, scores(ob, in, true));
            },
            [&](OpBuilder &ob, Location l) {
              scf::YieldOp::create(ob, l, scores(ob, in, false));
            });
        s = ifOp.getResult(0);
      }

      // Row max of the tile.
      Value tMax =
          linalg::FillOp::create(rw, loc, cF32(rw, loc, -inf), rowEmpty)
              .getResult(0);
      tMax =
          buildGeneric(
              rw, loc, {s}, {tMax}, {id2, map2({d0})}, 2, {1},
              [&](OpBuilder &bb, Location l, ValueRange a) {
                linalg::YieldOp::create(
                    bb, l,
                    ValueRange{arith::MaximumFOp::create(bb, l, a[0], a[1])});
              })
              .getResult(0);
      // m_new = max(m_old, tile max) (in place of m_old), the safe shift
      // (0 while the row has seen no visible key) and the rescale factor
      // alpha = exp(m_old - shift).
      auto stats = buildGeneric(
          rw, loc, {tMax}, {mOld, shiftEmpty, alphaEmpty}, {id1, id1, id1, id1},
          1, {}, [&](OpBuilder &bb, Location l, ValueRange a) {
            Value mNew = arith::MaximumFOp::create(bb, l, a[1], a[0]);
            Value isNegInf = arith::CmpFOp::create(
                bb, l, arith::CmpFPredicate::OEQ, mNew, cF32(bb, l, -inf));
            Value shift = arith::SelectOp::create(bb, l, isNegInf,
                                                  cF32(bb, l, 0.0), mNew);
            Value alpha = math::ExpOp::create(
                bb, l, arith::SubFOp::create(bb, l, a[1], shift));
            linalg::YieldOp::create(bb, l, ValueRange{mNew, shift, alpha});
          });
      Value mNew = stats.getResult(0), shift = stats.getResult(1),
            alpha = stats.getResult(2);

      // P = exp(S - shift), in place of S.
      Value p =
          buildGeneric(rw, loc, {shift}, {s}, {map2({d0}), id2}, 2, {},
                       [&](OpBuilder &bb, Location l, ValueRange a) {
                         Value e = math::ExpOp::create(
                             bb, l, arith::SubFOp::create(bb, l, a[1], a[0]));
                         linalg::YieldOp::create(bb, l, ValueRange{e});
                       })
              .getResult(0);

      // l = alpha * l + rowsum(P) (undropped probabilities).
      Value l =
          buildGeneric(
              rw, loc, {alpha}, {lOld}, {id1, id1}, 1, {},
              [&](OpBuilder &bb, Location lc, ValueRange a) {
                linalg::YieldOp::create(
                    bb, lc,
                    ValueRange{arith::MulFOp::create(bb, lc, a[1], a[0])});
              })
              .getResult(0);
      l = buildGeneric(
              rw, loc, {p}, {l}, {id2, map2({d0})}, 2, {1},
              [&](OpBuilder &bb, Location lc, ValueRange a) {
                linalg::YieldOp::create(
                    bb, lc,
                    ValueRange{arith::AddFOp::create(bb, lc, a[1], a[0])});
              })
              .getResult(0);

      // Dropout of P from the Philox stream at ((b*Hq+h)*Sq+i)*Skv+j.
      if (dropP > 0.0) {
        p = buildGeneric(
                rw, loc, {}, {p}, {id2}, 2, {},
                [&](OpBuilder &bb, Location lc, ValueRange a) {
                  Value r = toI64(bb, linalg::IndexOp::create(bb, lc, 0));
                  Value c = toI64(
                      bb, arith::AddIOp::create(
                              bb, lc, j0, linalg::IndexOp::create(bb, lc, 1)));
                  Value skv = arith::ConstantIntOp::create(bb, lc, i64, Skv);
                  Value off = arith::AddIOp::create(
                      bb, lc,
                      arith::MulIOp::create(
                          bb, lc, arith::AddIOp::create(bb, lc, rowBase, r),
                          skv),
                      c);
                  Value keep = buildPhiloxKeep(bb, lc, off, seed, dropP);
                  Value scaled = arith::DivFOp::create(
                      bb, lc, a[0], cF32(bb, lc, 1.0 - dropP));
                  Value out = arith::SelectOp::create(bb, lc, keep, scaled,
                                                      cF32(bb, lc, 0.0));
                  linalg::YieldOp::create(bb, lc, ValueRange{out});
                })
                .getResult(0);
      }

      // acc = alpha * acc + P V.
      acc = buildGeneric(
                rw, loc, {alpha}, {acc}, {map2({d0}), id2}, 2, {},
                [&](OpBuilder &bb, Location lc, ValueRange a) {
                  linalg::YieldOp::create(
                      bb, lc,
                      ValueRange{arith::MulFOp::create(bb, lc, a[1], a[0])});
                })
                .getResult(0);
      acc = buildGeneric(
                rw, loc, {p, vTile}, {acc},
                {map3({d0, d2}), map3({d2, d1}), map3({d0, d1})}, 3, {2},
                [&](OpBuilder &bb, Location lc, ValueRange a) {
                  Value prod =
                      arith::MulFOp::create(bb, lc, a[0], toF32(bb, lc, a[1]));
                  linalg::YieldOp::create(
                      bb, lc,
                      ValueRange{arith::AddFOp::create(bb, lc, a[2], prod)});
                })
                .getResult(0);
      scf::YieldOp::create(rw, loc, ValueRange{mNew, l, acc});
    }
    Value mFinal = forOp.getResult(0), lFinal = forOp.getResult(1),
          accFinal = forOp.getResult(2);

    // out = acc / l, rounded once; rows without a visible key give zeros.
    // Full tiles are written straight into the program's slice of the
    // results (in place after bufferization); a ragged tile is computed
    // whole and its valid rows stored.
    Value outArg = forall.getRegionIterArgs()[0];
    Value outTile =
        raggedQ
            ? tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{BM, Dv}, elt)
                  .getResult()
            : extractSlice(rw, loc, outArg, {b, h, i0, zeroIdx},
                           {oneIdx, oneIdx, rows, rw.getIndexAttr(Dv)},
                           {BM, Dv});
    outTile =
        buildGeneric(rw, loc, {accFinal, lFinal}, {outTile},
                     {id2, map2({d0}), id2}, 2, {},
                     [&](OpBuilder &bb, Location lc, ValueRange a) {
                       Value zero = cF32(bb, lc, 0.0);
                       Value empty = arith::CmpFOp::create(
                           bb, lc, arith::CmpFPredicate::OEQ, a[1], zero);
                       Value q = arith::DivFOp::create(bb, lc, a[0], a[1]);
                       q = arith::SelectOp::create(bb, lc, empty, zero, q);
                       linalg::YieldOp::create(
                           bb, lc, ValueRange{fromF32(bb, lc, q, elt)});
                     })
            .getResult(0);
    if (raggedQ)
      outTile =
          extractSlice(rw, loc, outTile, {zeroIdx, zeroIdx},
                       {rows, rw.getIndexAttr(Dv)}, {ShapedType::kDynamic, Dv});
    addParallelInsert(rw, loc, forall, outTile, outArg, {b, h, i0, zeroIdx},
                      {oneIdx, oneIdx, rows, rw.getIndexAttr(Dv)});

    if (hasLse) {
      // lse = m + log(l) (before dropout); -inf for rows without a key.
      Value lseArg = forall.getRegionIterArgs()[1];
      Value lseDest = raggedQ ? rowEmpty
                              : extractSlice(rw, loc, lseArg, {b, h, i0},
                                             {oneIdx, oneIdx, rows}, {BM});
      Value lseTile =
          buildGeneric(
              rw, loc, {mFinal, lFinal}, {lseDest}, {id1, id1, id1}, 1, {},
              [&](OpBuilder &bb, Location lc, ValueRange a) {
                Value empty = arith::CmpFOp::create(
                    bb, lc, arith::CmpFPredicate::OEQ, a[1], cF32(bb, lc, 0.0));
                Value v = arith::AddFOp::create(
                    bb, lc, a[0], math::LogOp::create(bb, lc, a[1]));
                v = arith::SelectOp::create(bb, lc, empty, cF32(bb, lc, -inf),
                                            v);
                linalg::YieldOp::create(bb, lc, ValueRange{v});
              })
              .getResult(0);
      if (raggedQ)
        lseTile = extractSlice(rw, loc, lseTile, {zeroIdx}, {rows},
                               {ShapedType::kDynamic});
      addParallelInsert(rw, loc, forall, lseTile, lseArg, {b, h, i0},
                        {oneIdx, oneIdx, rows});
    }
    rw.replaceOp(op, forall.getResults());
    return success();
  }

  SinterToLoopsOptions options;
};

} // namespace

void sinter::populateAttentionToLoopsPatterns(
    RewritePatternSet &patterns, const SinterToLoopsOptions &options) {
  patterns.add<AttentionToLoops>(patterns.getContext(), options);
}
