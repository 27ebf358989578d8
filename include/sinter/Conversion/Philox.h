//===- Philox.h - Philox4x32-10 dropout masks -------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The counter-based generator behind every sinter dropout mask (see the
// sinter.dropout description): a plain C++ reference and an IR builder that
// emits the same computation with arith ops, so that every backend and every
// tile configuration draws the same mask for the same seed.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_CONVERSION_PHILOX_H
#define SINTER_CONVERSION_PHILOX_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

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
/// Words (stream positions) of one Philox4x32 call: the decisions of four
/// consecutive elements.
constexpr int kPhiloxWords = 4;

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

/// The random word of stream position `offset` under `seed`: word
/// `offset % 4` of Philox4x32-10(counter = (offset / 4 as two 32-bit words,
/// low first, 0, 0), key = (seed low word, seed high word)).
inline uint32_t philoxWord(uint64_t offset, uint64_t seed) {
  uint64_t c = offset / 4;
  std::array<uint32_t, 4> out = philox4x32(
      {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0},
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return out[offset % 4];
}

/// The drop threshold floor(p * 2^32) for a dropout probability p in [0, 1):
/// an element is kept iff its word is >= the threshold (as unsigned).
inline uint32_t philoxDropThreshold(double p) {
  double t = std::floor(p * 4294967296.0);
  if (!(t > 0.0))
    return 0;
  if (t >= 4294967295.0)
    return 0xFFFFFFFFu;
  return static_cast<uint32_t>(t);
}

/// Whether stream position `offset` under `seed` is kept by dropout with
/// probability `p`.
inline bool philoxKeep(uint64_t offset, uint64_t seed, double p) {
  return philoxWord(offset, seed) >= philoxDropThreshold(p);
}

/// Emits Philox4x32-10 of counter (counterI64 low word, high word, 0, 0)
/// under key `seedI64`: the four i32 words of stream positions
/// 4*counter .. 4*counter+3 (a vectorized kernel draws four elements per
/// call).
std::array<mlir::Value, kPhiloxWords> buildPhilox4x32(mlir::OpBuilder &b,
                                                      mlir::Location loc,
                                                      mlir::Value counterI64,
                                                      mlir::Value seedI64);

/// Emits `word >= philoxDropThreshold(p)` for an i32 Philox word.
mlir::Value buildPhiloxKeepWord(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value word, double p);

/// Emits `philoxWord(offset, seed)` with arith ops on i64 operands; returns
/// an i32 value.
mlir::Value buildPhiloxWord(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value offsetI64, mlir::Value seedI64);

/// Emits `philoxKeep(offset, seed, p)`; returns an i1 value.
mlir::Value buildPhiloxKeep(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value offsetI64, mlir::Value seedI64,
                            double p);

} // namespace sinter

#endif // SINTER_CONVERSION_PHILOX_H
