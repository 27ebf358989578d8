//===- Dropout.cpp - Dropout of the MMA kernels' probabilities ------------===//
//
// Part of the Sinter project.
//
// Dropout of P in registers, drawn from the Philox stream of sinter.dropout
// (Philox.h): probability (b, h, i, j) is kept iff its 16-bit draw, half
// o % 2 of word (o % 8) / 2 of Philox4x32-10(o / 8), clears the threshold,
// o = ((b*Hq + h)*Sq + i)*Skv + j.
// P is only zeroed here; the 1 / (1 - p) of the kept ones is folded into the
// epilogue's 1 / l (Epilogue.cpp), and l sums the undropped probabilities.
//
// One Philox call makes the decisions of eight adjacent keys of one row
// (two 16-bit draws per word). The accumulator fragments (Fragments.h) give
// each lane of a quad two adjacent keys -- one word -- of two rows per 8-key
// n-tile: with Skv % 8 == 0 (calls never straddle rows) each lane draws one
// call per pair of n-tiles and the warp exchanges the words through shared
// memory (dropoutGroups, DropoutStage.h), an eighth of the Philox rounds of
// one call per element (dropoutElements, the form kept for other Skv).
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "sinter/Conversion/Philox.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

void MMAKernel::dropout(SmallVector<Value> &S, Value kv0) {
  if (dropP == 0.0)
    return;
  // Calls of eight keys never straddle a row when Skv % 8 == 0; a warp
  // exchanges its calls over pairs of n-tiles.
  if (drawStage)
    dropoutGroups(S, kv0);
  else
    dropoutElements(S, kv0);
}

Value MMAKernel::dropoutRow(int64_t mt, int64_t r) {
  // The first stream position of query row (mt, r) (rows past Sq read row
  // 0's: their probabilities are never stored).
  Value i = rowOf(mt, r);
  Value iSafe = arith::SelectOp::create(
      b, mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq)), i, kb.idx(0));
  return mb.mul(mb.add(qSeqBase, iSafe), Skv);
}

Value MMAKernel::keepP(Value pc, Value keep) {
  return arith::SelectOp::create(b, keep, pc, kb.f32(0.0));
}

void MMAKernel::dropoutElements(SmallVector<Value> &S, Value kv0) {
  // One Philox call per probability (any Skv).
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r) {
      Value rowStart = dropoutRow(mt, r);
      for (int64_t nt = 0; nt < NT; ++nt) {
        Value p = mb.row(S[mt * NT + nt], r);
        for (int64_t c = 0; c < 2; ++c) {
          Value off = mb.add(rowStart, keyOf(kv0, nt, c));
          Value keep = buildPhiloxKeepOnGPU(
              b, b.getLoc(), arith::IndexCastOp::create(b, b.getI64Type(), off),
              seed, dropP);
          p = vector::InsertOp::create(b, keepP(mb.elem(p, c), keep), p,
                                       ArrayRef<int64_t>{c});
        }
        S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], p, r);
      }
    }
}

// Per (mt, nt), lane q = lane % 4 of a quad holds keys 8nt + 2q + {0, 1} of
// rows r = 0 and 1: word q of the call of (row, n-tile nt). Over n-tiles
// 2np and 2np + 1 the warp's 16 rows need 32 calls, one per lane (query row
// lane % 16, keys 16np + 8 (lane / 16)), exchanged through the warp's stage
// (DropoutStage.h): matrix m of the ldmatrix is rows 8 (m / 2) and n-tile
// 2np + m % 2.
void MMAKernel::dropoutGroups(SmallVector<Value> &S, Value kv0) {
  Value row = drawStage->callRow(lane);
  Value keys = mb.add(kv0, mb.mul(drawStage->callChunk(lane), kPhiloxDraws));
  for (int64_t mt = 0; mt < MT; ++mt) {
    Value query = mb.add(mb.add(mb.add(q0, warpRow), 16 * mt), row);
    Value rowStart = mb.mul(mb.add(qSeqBase, query), Skv);
    for (int64_t np = 0; np < NT / 2; ++np) {
      Value counter = arith::IndexCastOp::create(
          b, b.getI64Type(),
          arith::DivUIOp::create(
              b, mb.add(mb.add(rowStart, keys), DropoutStage::kColumns * np),
              kb.idx(kPhiloxDraws)));
      SmallVector<Value, 4> words =
          drawStage->exchange(counter, seed, warp, lane, /*keysAsRows=*/false);
      for (int64_t m = 0; m < 4; ++m) {
        Value &tile = S[mt * NT + 2 * np + m % 2];
        int64_t r = m / 2;
        Value p = mb.row(tile, r);
        for (int64_t c = 0; c < 2; ++c) {
          Value keep = buildPhiloxKeepHalf(b, b.getLoc(), words[m], c, dropP);
          p = vector::InsertOp::create(b, keepP(mb.elem(p, c), keep), p,
                                       ArrayRef<int64_t>{c});
        }
        tile = mb.setRow(tile, p, r);
      }
    }
  }
}

double MMAKernel::dropoutKeptScale() const {
  return sinter::dropoutKeptScale(dropP);
}
