//===- PhiloxTest.cpp - Philox4x32-10 reference and IR builder ------------===//
//
// Part of the Sinter project.
//
// Checks the C++ reference against the published Random123 known-answer
// vectors, the (offset, seed) -> word mapping of sinter.dropout, and that the
// IR emitted by buildPhiloxWord/buildPhiloxKeep computes the same values
// (folded to constants by the canonicalizer).
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>

using namespace mlir;

namespace {

using Words = std::array<uint32_t, 4>;

// Random123 kat_vectors, philox4x32 with 10 rounds.
TEST(PhiloxTest, KnownAnswerVectors) {
  EXPECT_EQ(sinter::philox4x32({0, 0, 0, 0}, {0, 0}),
            (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(sinter::philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                               {0xffffffff, 0xffffffff}),
            (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(sinter::philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                               {0xa4093822, 0x299f31d0}),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxTest, WordMapping) {
  // Offsets 0..7 share counter 0: offsets 2k and 2k + 1 draw the low and
  // high halves of word k.
  Words zero = sinter::philox4x32({0, 0, 0, 0}, {0, 0});
  for (uint64_t o = 0; o < 8; ++o) {
    EXPECT_EQ(sinter::philoxWord(o, 0), zero[o / 2]);
    EXPECT_EQ(sinter::philoxDraw(o, 0),
              o % 2 ? zero[o / 2] >> 16 : zero[o / 2] & 0xffffu);
  }
  // The counter is offset / 8, low word first; the key is the seed, low
  // word first.
  uint64_t offset =
      (uint64_t{0x12345678} << 35) | (uint64_t{0x9abcdef} << 3) | 5;
  uint64_t seed = (uint64_t{0xdeadbeef} << 32) | 0x01234567;
  Words w = sinter::philox4x32({0x9abcdef, 0x12345678, 0, 0},
                               {0x01234567, 0xdeadbeef});
  EXPECT_EQ(sinter::philoxWord(offset, seed), w[2]);
  EXPECT_EQ(sinter::philoxDraw(offset, seed), w[2] >> 16);
}

TEST(PhiloxTest, Threshold) {
  EXPECT_EQ(sinter::philoxDropThreshold(0.0), 0u);
  EXPECT_EQ(sinter::philoxDropThreshold(0.5), 0x8000u);
  EXPECT_EQ(sinter::philoxDropThreshold(0.1), 6553u);
  EXPECT_EQ(sinter::philoxDropThreshold(0.99999999), 0xffffu);
  EXPECT_TRUE(sinter::philoxKeep(7, 42, 0.0));
  // p = 0.5 keeps exactly the draws with the top bit set.
  for (uint64_t o = 0; o < 64; ++o)
    EXPECT_EQ(sinter::philoxKeep(o, 42, 0.5),
              (sinter::philoxDraw(o, 42) & 0x8000u) != 0);
}

/// Builds `func @f() -> (i32, i1)` returning buildPhiloxWord/Keep of
/// constants, canonicalizes, and reads back the folded constants.
std::optional<std::pair<uint32_t, bool>> foldedIR(uint64_t offset,
                                                  uint64_t seed, double p) {
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(
      b, loc, "f", b.getFunctionType({}, {b.getI32Type(), b.getI1Type()}));
  b.setInsertionPointToStart(fn.addEntryBlock());
  Value o = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                         static_cast<int64_t>(offset));
  Value s = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                         static_cast<int64_t>(seed));
  Value word = sinter::buildPhiloxWord(b, loc, o, s);
  Value keep = sinter::buildPhiloxKeep(b, loc, o, s, p);
  func::ReturnOp::create(b, loc, ValueRange{word, keep});
  PassManager pm(&ctx);
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  auto w = ret.getOperand(0).getDefiningOp<arith::ConstantIntOp>();
  auto k = ret.getOperand(1).getDefiningOp<arith::ConstantIntOp>();
  if (!w || !k)
    return std::nullopt;
  return std::make_pair(static_cast<uint32_t>(w.value()), k.value() != 0);
}

TEST(PhiloxTest, BuilderMatchesReference) {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {0, 0},          {1, 0},
      {2, 0},          {3, 0},
      {6, 9},          {7, 9},
      {5, 1234},       {~uint64_t{0}, ~uint64_t{0}},
      {1ull << 40, 7}, {0x0123456789abcdefull, 0xfedcba9876543210ull}};
  for (auto [offset, seed] : cases) {
    std::optional<std::pair<uint32_t, bool>> r = foldedIR(offset, seed, 0.3);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->first, sinter::philoxWord(offset, seed))
        << "offset " << offset << " seed " << seed;
    EXPECT_EQ(r->second, sinter::philoxKeep(offset, seed, 0.3))
        << "offset " << offset << " seed " << seed;
  }
}

} // namespace
