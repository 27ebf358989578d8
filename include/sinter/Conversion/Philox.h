//===- Philox.h - Philox4x32-10 dropout masks -------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The counter-based generator behind every sinter dropout mask (see the
// sinter.dropout description): a plain C++ reference and an IR builder that
// emits the same computation with arith ops, so that every backend and every
// tile configuration draws the same mask for the same seed. One call draws
// eight 16-bit numbers, the decisions of eight consecutive elements.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_CONVERSION_PHILOX_H
#define SINTER_CONVERSION_PHILOX_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace sinter {

/// Philox4x32 constants (Salmon et al., SC'11; Random123).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;
/// 32-bit words of one Philox4x32 call.
constexpr int kPhiloxWords = 4;
/// Draws (stream positions) of one call: each word holds the 16-bit draws of
/// two consecutive positions, the even one in its low half.
constexpr int kPhiloxDraws = 8;
constexpr int kPhiloxDrawsPerWord = kPhiloxDraws / kPhiloxWords;
constexpr int kPhiloxDrawBits = 16;
constexpr uint32_t kPhiloxDrawMask = (1u << kPhiloxDrawBits) - 1;

/// Philox4x32-10 of one 128-bit counter under a 64-bit key.
inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> ctr,
                                          std::array<uint32_t, 2> key) {
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      key[0] += kPhiloxW0;
      key[1] += kPhiloxW1;
    }
    uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * ctr[0];
    uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * ctr[2];
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = uint32_t(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

/// The 32-bit word holding the draw of stream position `offset` under
/// `seed`: word (offset % 8) / 2 of Philox4x32-10(counter = (offset / 8 as
/// two 32-bit words, low first, 0, 0), key = (seed low word, seed high
/// word)).
inline uint32_t philoxWord(uint64_t offset, uint64_t seed) {
  uint64_t c = offset / kPhiloxDraws;
  std::array<uint32_t, 4> out = philox4x32(
      {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0},
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return out[(offset % kPhiloxDraws) / kPhiloxDrawsPerWord];
}

/// The 16-bit draw of stream position `offset`: the low half of its word
/// for an even offset, the high half for an odd one.
inline uint32_t philoxDraw(uint64_t offset, uint64_t seed) {
  return (philoxWord(offset, seed) >> (kPhiloxDrawBits * (offset % 2))) &
         kPhiloxDrawMask;
}

/// The drop threshold floor(p * 2^16) for a dropout probability p in [0, 1):
/// a position is kept iff its draw is >= the threshold, so p is drawn to
/// 2^-16 (below it, in [p - 2^-16, p]).
inline uint32_t philoxDropThreshold(double p) {
  double t = std::floor(p * double(1u << kPhiloxDrawBits));
  if (!(t > 0.0))
    return 0;
  return static_cast<uint32_t>(std::min<double>(t, kPhiloxDrawMask));
}

/// The factor of a kept element, 1 / (1 - p) (1 without dropout).
inline double dropoutKeptScale(double p) {
  return p > 0.0 ? 1.0 / (1.0 - p) : 1.0;
}

/// Whether stream position `offset` under `seed` is kept by dropout with
/// probability `p`.
inline bool philoxKeep(uint64_t offset, uint64_t seed, double p) {
  return philoxDraw(offset, seed) >= philoxDropThreshold(p);
}

/// Emits Philox4x32-10 of counter (counterI64 low word, high word, 0, 0)
/// under key `seedI64`: the four i32 words holding the draws of stream
/// positions 8*counter .. 8*counter+7 (a vectorized kernel draws eight
/// elements per call).
/// `mulHiLo` emits the high and low i32 words of the 64-bit product of a
/// round's multiplier and an i32 value; by default with arith ops on i64
/// (a target may give its own multiply-high, which keeps LLVM from widening
/// the rounds' xors to 64 bits).
using PhiloxMulHiLo = llvm::function_ref<std::pair<mlir::Value, mlir::Value>(
    mlir::OpBuilder &, mlir::Location, uint32_t, mlir::Value)>;
std::array<mlir::Value, kPhiloxWords>
buildPhilox4x32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value counterI64,
                mlir::Value seedI64, PhiloxMulHiLo mulHiLo = nullptr);

/// Emits whether the draw in half `half` (0: low, the even position; 1:
/// high) of the i32 Philox `word` keeps its element under probability `p`
/// (`draw >= philoxDropThreshold(p)`, compared on the whole word: the low
/// half shifted up, the high half against the threshold shifted up).
mlir::Value buildPhiloxKeepHalf(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value word, int half, double p);

/// Emits word `indexI32` (0..3) of a call's `words`, selected without
/// branches.
mlir::Value buildSelectPhiloxWord(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::ArrayRef<mlir::Value> words,
                                  mlir::Value indexI32);

/// Emits `philoxWord(offset, seed)` with arith ops on i64 operands; returns
/// an i32 value.
mlir::Value buildPhiloxWord(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value offsetI64, mlir::Value seedI64,
                            PhiloxMulHiLo mulHiLo = nullptr);

/// Emits `philoxKeep(offset, seed, p)`; returns an i1 value.
mlir::Value buildPhiloxKeep(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value offsetI64, mlir::Value seedI64,
                            double p, PhiloxMulHiLo mulHiLo = nullptr);

} // namespace sinter

#endif // SINTER_CONVERSION_PHILOX_H
