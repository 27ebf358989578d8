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
// n-tile, so over a pair of n-tiles a quad holds four calls' worth: with
// Skv % 8 == 0 (calls never straddle rows) each lane draws one call and the
// quad transposes the words (dropoutGroups), an eighth of the Philox rounds
// of one call per element (dropoutElements, the form kept for other Skv).
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
  // Calls of eight keys never straddle a row when Skv % 8 == 0; a quad
  // shares its calls over pairs of n-tiles.
  if (Skv % kPhiloxDraws == 0 && NT % 2 == 0)
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

namespace {
/// `pred ? a : b` on each of two pairs.
std::array<Value, 2> pick(ImplicitLocOpBuilder &b, Value pred,
                          std::array<Value, 2> a, std::array<Value, 2> c) {
  return {arith::SelectOp::create(b, pred, a[0], c[0]),
          arith::SelectOp::create(b, pred, a[1], c[1])};
}

Value shuffleXor(ImplicitLocOpBuilder &b, Value v, int32_t mask) {
  return gpu::ShuffleOp::create(b, v, mask, kWarpSize, gpu::ShuffleMode::XOR)
      .getShuffleResult();
}
} // namespace

// Per (mt, nt), lane q = lane % 4 of a quad holds keys 8nt + 2q + {0, 1} of
// rows r = 0 and 1: word q of the call of (row r, n-tile nt). Over the
// n-tiles 2np and 2np + 1 the quad needs four calls, slot s = r + 2h for
// n-tile 2np + h; lane q draws slot q's call, whose word d belongs to lane
// d. The 4x4 transpose takes two butterfly steps (xor 2, then xor 1: two
// shuffles each), after which lane q holds the words of slots q ^ x at
// position x; two select steps put slot s at position s.
std::array<Value, 4> MMAKernel::dropoutWordsOfPair(Value groupBase,
                                                   int64_t np) {
  Value one = kb.idx(1);
  Value odd = mb.cmp(arith::CmpIPredicate::ne,
                     arith::AndIOp::create(b, lane, one), kb.idx(0));
  Value high = mb.cmp(
      arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, arith::ShRUIOp::create(b, lane, one), one),
      kb.idx(0));
  Value counter =
      arith::IndexCastOp::create(b, b.getI64Type(), mb.add(groupBase, 2 * np));
  std::array<Value, kPhiloxWords> w =
      buildPhiloxOnGPU(b, b.getLoc(), counter, seed);
  // Step 1 (lane ^ 2): keep the words of destinations on this lane's side.
  std::array<Value, 2> lowWords = {w[0], w[1]}, highWords = {w[2], w[3]};
  std::array<Value, 2> own = pick(b, high, highWords, lowWords);
  std::array<Value, 2> send = pick(b, high, lowWords, highWords);
  std::array<Value, 2> across = {shuffleXor(b, send[0], 2),
                                 shuffleXor(b, send[1], 2)};
  // Step 2 (lane ^ 1): of each pair, keep this lane's word, send the other.
  std::array<Value, 2> mine = {
      arith::SelectOp::create(b, odd, own[1], own[0]),
      arith::SelectOp::create(b, odd, across[1], across[0])};
  std::array<Value, 2> theirs = {
      shuffleXor(b, arith::SelectOp::create(b, odd, own[0], own[1]), 1),
      shuffleXor(b, arith::SelectOp::create(b, odd, across[0], across[1]), 1)};
  // Position x holds slot q ^ x; move slot s to position s.
  std::array<Value, 4> byX = {mine[0], theirs[0], mine[1], theirs[1]};
  std::array<Value, 2> even = pick(b, odd, {byX[1], byX[3]}, {byX[0], byX[2]});
  std::array<Value, 2> oddX = pick(b, odd, {byX[0], byX[2]}, {byX[1], byX[3]});
  std::array<Value, 4> t = {even[0], oddX[0], even[1], oddX[1]};
  std::array<Value, 2> lowSlots = pick(b, high, {t[2], t[3]}, {t[0], t[1]});
  std::array<Value, 2> highSlots = pick(b, high, {t[0], t[1]}, {t[2], t[3]});
  return {lowSlots[0], lowSlots[1], highSlots[0], highSlots[1]};
}

void MMAKernel::dropoutGroups(SmallVector<Value> &S, Value kv0) {
  Value one = kb.idx(1);
  Value odd = mb.cmp(arith::CmpIPredicate::ne,
                     arith::AndIOp::create(b, lane, one), kb.idx(0));
  Value half =
      arith::AndIOp::create(b, arith::ShRUIOp::create(b, lane, one), one);
  // Counter of the lane's call in n-tile pair 0: its row's start / 8, plus
  // the key tile's and the n-tile's calls.
  Value tileCalls =
      mb.add(arith::DivUIOp::create(b, kv0, kb.idx(kPhiloxDraws)), half);
  for (int64_t mt = 0; mt < MT; ++mt) {
    Value rowStart =
        arith::SelectOp::create(b, odd, dropoutRow(mt, 1), dropoutRow(mt, 0));
    Value groupBase = mb.add(
        arith::DivUIOp::create(b, rowStart, kb.idx(kPhiloxDraws)), tileCalls);
    for (int64_t np = 0; np < NT / 2; ++np) {
      std::array<Value, 4> slot = dropoutWordsOfPair(groupBase, np);
      for (int64_t h = 0; h < 2; ++h) {
        Value &tile = S[mt * NT + 2 * np + h];
        for (int64_t r = 0; r < 2; ++r) {
          Value word = slot[r + 2 * h];
          Value p = mb.row(tile, r);
          for (int64_t c = 0; c < 2; ++c) {
            Value keep = buildPhiloxKeepHalf(b, b.getLoc(), word, c, dropP);
            p = vector::InsertOp::create(b, keepP(mb.elem(p, c), keep), p,
                                         ArrayRef<int64_t>{c});
          }
          tile = mb.setRow(tile, p, r);
        }
      }
    }
  }
}

double MMAKernel::dropoutKeptScale() const {
  return dropP > 0.0 ? 1.0 / (1.0 - dropP) : 1.0;
}
