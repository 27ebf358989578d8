//===- Dropout.cpp - Dropout of the MMA kernels' probabilities ------------===//
//
// Part of the Sinter project.
//
// Dropout of P in registers, drawn from the Philox stream of sinter.dropout
// (Philox.h): probability (b, h, i, j) is kept iff word o % 4 of
// Philox4x32-10(o / 4) clears the threshold, o = ((b*Hq + h)*Sq + i)*Skv + j.
// P is only zeroed here; the 1 / (1 - p) of the kept ones is folded into the
// epilogue's 1 / l (Epilogue.cpp), and l sums the undropped probabilities.
//
// One Philox call makes the decisions of four adjacent keys of one row. The
// accumulator fragments (Fragments.h) give each lane of a quad two adjacent
// keys of two rows per 8-key n-tile, so a quad holds four such groups per
// n-tile: with Skv % 4 == 0 (groups never straddle rows) each lane draws one
// group and swaps half of it with its neighbour (dropoutGroups), a quarter of
// the Philox rounds of one call per element (dropoutElements, the form kept
// for other Skv).
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
  // Groups of four keys never straddle a row when Skv % 4 == 0.
  if (Skv % kPhiloxWords == 0)
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

Value MMAKernel::keepP(Value pc, Value word) {
  Value keep = buildPhiloxKeepWord(b, b.getLoc(), word, dropP);
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
          Value word = buildPhiloxWord(
              b, b.getLoc(), arith::IndexCastOp::create(b, b.getI64Type(), off),
              seed);
          p = vector::InsertOp::create(b, keepP(mb.elem(p, c), word), p,
                                       ArrayRef<int64_t>{c});
        }
        S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], p, r);
      }
    }
}

// Per (mt, nt), lane q = lane % 4 of a quad holds keys 8nt + 2q + {0, 1} of
// rows r = 0 and 1; the quad's four groups of four keys are (r, half) for
// half = 0 (keys 8nt + 0..3: lanes 0, 1) and 1 (8nt + 4..7: lanes 2, 3):
//
//   lane q draws group (r = q & 1, half = q >> 1): words w0..w3;
//   its own keys of that row are words 2(q & 1) + {0, 1}: it keeps them;
//   the other two belong to lane q ^ 1 (same half, other row's owner of
//   these keys): one shuffle each way per word.
void MMAKernel::dropoutGroups(SmallVector<Value> &S, Value kv0) {
  Value one = kb.idx(1);
  Value parity = arith::AndIOp::create(b, lane, one);
  Value odd = mb.cmp(arith::CmpIPredicate::ne, parity, kb.idx(0));
  Value even = mb.cmp(arith::CmpIPredicate::eq, parity, kb.idx(0));
  Value half =
      arith::AndIOp::create(b, arith::ShRUIOp::create(b, lane, one), one);
  // Counter of the lane's group in n-tile 0: its row's start / 4, plus the
  // key tile's and the half's groups.
  Value tileGroups =
      mb.add(arith::DivUIOp::create(b, kv0, kb.idx(kPhiloxWords)), half);
  for (int64_t mt = 0; mt < MT; ++mt) {
    Value rowStart =
        arith::SelectOp::create(b, odd, dropoutRow(mt, 1), dropoutRow(mt, 0));
    Value groupBase = mb.add(
        arith::DivUIOp::create(b, rowStart, kb.idx(kPhiloxWords)), tileGroups);
    for (int64_t nt = 0; nt < NT; ++nt) {
      // Two groups per n-tile: 8 keys.
      Value counter = arith::IndexCastOp::create(b, b.getI64Type(),
                                                 mb.add(groupBase, 2 * nt));
      std::array<Value, kPhiloxWords> w =
          buildPhilox4x32(b, b.getLoc(), counter, seed);
      Value mine[2], theirs[2];
      for (int64_t c = 0; c < 2; ++c) {
        mine[c] = arith::SelectOp::create(b, odd, w[2 + c], w[c]);
        Value send = arith::SelectOp::create(b, odd, w[c], w[2 + c]);
        theirs[c] =
            gpu::ShuffleOp::create(b, send, 1, kWarpSize, gpu::ShuffleMode::XOR)
                .getShuffleResult();
      }
      Value &tile = S[mt * NT + nt];
      for (int64_t r = 0; r < 2; ++r) {
        // Row r's words: drawn here on the lanes that own row r's group.
        Value ownsRow = r ? odd : even;
        Value p = mb.row(tile, r);
        for (int64_t c = 0; c < 2; ++c) {
          Value word = arith::SelectOp::create(b, ownsRow, mine[c], theirs[c]);
          p = vector::InsertOp::create(b, keepP(mb.elem(p, c), word), p,
                                       ArrayRef<int64_t>{c});
        }
        tile = mb.setRow(tile, p, r);
      }
    }
  }
}

double MMAKernel::dropoutKeptScale() const {
  return dropP > 0.0 ? 1.0 / (1.0 - dropP) : 1.0;
}
