//===- Philox.cpp - Philox4x32-10 mask as IR ------------------------------===//
//
// Part of the Sinter project.
//
// Emits the same computation as sinter::philoxWord (Philox.h) with arith ops
// on i32/i64 values, usable on any backend (no intrinsics).
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace {
/// The high and low 32-bit words of the 64-bit product `m * x`.
std::pair<Value, Value> wideMulHiLo(OpBuilder &b, Location loc, uint32_t m,
                                    Value x) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value wide = arith::ExtUIOp::create(b, loc, i64, x);
  Value mc = arith::ConstantIntOp::create(b, loc, i64, APInt(64, m));
  Value prod = arith::MulIOp::create(b, loc, wide, mc);
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value hi = arith::TruncIOp::create(b, loc, i32,
                                     arith::ShRUIOp::create(b, loc, prod, c32));
  Value lo = arith::TruncIOp::create(b, loc, i32, prod);
  return {hi, lo};
}
} // namespace

std::array<Value, sinter::kPhiloxWords>
sinter::buildPhilox4x32(OpBuilder &b, Location loc, Value counterI64,
                        Value seedI64, PhiloxMulHiLo mulHiLo) {
  if (!mulHiLo)
    mulHiLo = wideMulHiLo;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto cst64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto cst32 = [&](uint32_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, APInt(32, v));
  };
  std::array<Value, 4> ctr = {
      arith::TruncIOp::create(b, loc, i32, counterI64),
      arith::TruncIOp::create(
          b, loc, i32, arith::ShRUIOp::create(b, loc, counterI64, cst64(32))),
      cst32(0), cst32(0)};
  Value key[2] = {
      arith::TruncIOp::create(b, loc, i32, seedI64),
      arith::TruncIOp::create(
          b, loc, i32, arith::ShRUIOp::create(b, loc, seedI64, cst64(32)))};
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      key[0] = arith::AddIOp::create(b, loc, key[0], cst32(kPhiloxW0));
      key[1] = arith::AddIOp::create(b, loc, key[1], cst32(kPhiloxW1));
    }
    auto [hi0, lo0] = mulHiLo(b, loc, kPhiloxM0, ctr[0]);
    auto [hi1, lo1] = mulHiLo(b, loc, kPhiloxM1, ctr[2]);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi1, ctr[1]), key[0]);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi0, ctr[3]), key[1]);
    ctr = {n0, lo1, n2, lo0};
  }
  return ctr;
}

Value sinter::buildPhiloxWord(OpBuilder &b, Location loc, Value offsetI64,
                              Value seedI64, PhiloxMulHiLo mulHiLo) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto cst64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value counter =
      arith::DivUIOp::create(b, loc, offsetI64, cst64(kPhiloxDraws));
  std::array<Value, 4> ctr = buildPhilox4x32(b, loc, counter, seedI64, mulHiLo);
  // Word (offset % 8) / 2, selected without branches.
  Value index = arith::TruncIOp::create(
      b, loc, i32,
      arith::DivUIOp::create(
          b, loc,
          arith::RemUIOp::create(b, loc, offsetI64, cst64(kPhiloxDraws)),
          cst64(kPhiloxDrawsPerWord)));
  return buildSelectPhiloxWord(b, loc, ctr, index);
}

Value sinter::buildSelectPhiloxWord(OpBuilder &b, Location loc,
                                    ArrayRef<Value> words, Value indexI32) {
  Value word = words[kPhiloxWords - 1];
  for (int w = kPhiloxWords - 2; w >= 0; --w) {
    Value isW = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, indexI32,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), w));
    word = arith::SelectOp::create(b, loc, isW, words[w], word);
  }
  return word;
}

Value sinter::buildPhiloxKeepHalf(OpBuilder &b, Location loc, Value word,
                                  int half, double p) {
  uint32_t threshold = philoxDropThreshold(p);
  if (threshold == 0)
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  // draw >= t  <=>  (draw << 16) >= (t << 16): the low half is shifted into
  // the high one; the high half's comparison ignores the low bits.
  Value shift =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kPhiloxDrawBits);
  Value high = half ? word : arith::ShLIOp::create(b, loc, word, shift);
  Value thr = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(), APInt(32, threshold << kPhiloxDrawBits));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, high, thr);
}

Value sinter::buildPhiloxKeep(OpBuilder &b, Location loc, Value offsetI64,
                              Value seedI64, double p, PhiloxMulHiLo mulHiLo) {
  if (philoxDropThreshold(p) == 0)
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value word = buildPhiloxWord(b, loc, offsetI64, seedI64, mulHiLo);
  // The odd position's draw is the high half: shift the even one's up.
  Value odd = arith::TruncIOp::create(
      b, loc, b.getI1Type(),
      arith::AndIOp::create(
          b, loc, offsetI64,
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1)));
  return arith::SelectOp::create(b, loc, odd,
                                 buildPhiloxKeepHalf(b, loc, word, 1, p),
                                 buildPhiloxKeepHalf(b, loc, word, 0, p));
}
