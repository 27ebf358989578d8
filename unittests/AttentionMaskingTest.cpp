//===- AttentionMaskingTest.cpp - KeyVisibility's rule and its IR ---------===//
//
// Part of the Sinter project.
//
// The scalar rule of KeyVisibility against docs/Rationale.md's statement
// (key j visible to query i iff j <= i + Skv - Sq), and the IR every
// lowering builds from it against the scalar rule, by folding the IR on
// constant indices over small grids of shapes, queries and keys.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <gtest/gtest.h>

using namespace mlir;
using sinter::KeyVisibility;

namespace {

class AttentionMaskingTest : public ::testing::Test {
protected:
  AttentionMaskingTest() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect>();
  }

  /// The constant that the value `build` returns folds to (i1 as 0/1).
  int64_t fold(function_ref<Value(OpBuilder &, Location)> build) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value v = build(b, loc);
    func::ReturnOp::create(b, loc, v);
    fn.setType(b.getFunctionType({}, {v.getType()}));
    (void)applyPatternsGreedily(fn, FrozenRewritePatternSet());
    auto c = entry->getTerminator()
                 ->getOperand(0)
                 .getDefiningOp<arith::ConstantOp>();
    EXPECT_TRUE(c) << "did not fold";
    if (!c)
      return -1;
    APInt value = cast<IntegerAttr>(c.getValue()).getValue();
    return value.getBitWidth() == 1 ? value.getZExtValue()
                                    : value.getSExtValue();
  }

  static Value index(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  MLIRContext ctx;
};

// Shapes with fewer, as many and more queries than keys.
const std::pair<int64_t, int64_t> kShapes[] = {
    {3, 5}, {5, 3}, {4, 4}, {1, 7}, {7, 1}};

TEST_F(AttentionMaskingTest, CausalIsBottomRightAligned) {
  KeyVisibility rule(KeyVisibility::Kind::Causal, /*Sq=*/3, /*Skv=*/5);
  // The last query sees every key; the first sees keys 0..2.
  EXPECT_TRUE(rule.isVisible(2, 4));
  EXPECT_TRUE(rule.isVisible(0, 2));
  EXPECT_FALSE(rule.isVisible(0, 3));
  EXPECT_EQ(rule.keyEnd(0), 3);
  EXPECT_EQ(rule.keyEnd(2), 5);
  // More queries than keys: the first Sq - Skv queries see no key.
  KeyVisibility tall(KeyVisibility::Kind::Causal, 5, 3);
  EXPECT_EQ(tall.keyEnd(0), 0);
  EXPECT_EQ(tall.keyEnd(1), 0);
  EXPECT_EQ(tall.keyEnd(2), 1);
  EXPECT_EQ(tall.keyEnd(4), 3);
  KeyVisibility all(KeyVisibility::Kind::All, 5, 3);
  EXPECT_FALSE(all.hidesKeys());
  EXPECT_EQ(all.keyEnd(0), 3);
  for (const KeyVisibility &r : {rule, tall, all})
    for (int64_t i = 0; i < r.getQuerySeqLen(); ++i)
      for (int64_t j = 0; j < r.getKeySeqLen(); ++j) {
        EXPECT_EQ(r.isVisible(i, j), r.keyBegin(i) <= j && j < r.keyEnd(i));
        if (r.hidesKeys()) {
          EXPECT_EQ(r.isVisible(i, j),
                    j <= i + r.getKeySeqLen() - r.getQuerySeqLen());
        }
      }
}

TEST_F(AttentionMaskingTest, IRMatchesTheRule) {
  for (auto kind : {KeyVisibility::Kind::All, KeyVisibility::Kind::Causal})
    for (auto [sq, skv] : kShapes) {
      KeyVisibility rule(kind, sq, skv);
      for (int64_t i = 0; i < sq + 2; ++i) {
        for (int64_t j = 0; j < skv; ++j) {
          int64_t one = fold([&](OpBuilder &b, Location loc) -> Value {
            Value v =
                rule.buildIsVisible(b, loc, index(b, loc, i), index(b, loc, j));
            return v ? v : arith::ConstantIntOp::create(b, loc, 1, 1);
          });
          int64_t many = fold([&](OpBuilder &b, Location loc) -> Value {
            Value v = rule.forQuery(b, loc, index(b, loc, i))
                          .isVisible(b, loc, index(b, loc, j));
            return v ? v : arith::ConstantIntOp::create(b, loc, 1, 1);
          });
          EXPECT_EQ(one, rule.isVisible(i, j)) << sq << "x" << skv;
          EXPECT_EQ(many, rule.isVisible(i, j)) << sq << "x" << skv;
        }
        // Keys below buildKeyEnd(i + 1): those query i or an earlier one
        // sees.
        int64_t end = fold([&](OpBuilder &b, Location loc) {
          return rule.buildKeyEnd(b, loc, index(b, loc, i + 1));
        });
        int64_t want = 0;
        for (int64_t r = 0; r <= i; ++r)
          want = std::max(want, std::min(rule.keyEnd(r), skv));
        EXPECT_EQ(end, want) << sq << "x" << skv << " rows < " << i + 1;
      }
    }
}

TEST_F(AttentionMaskingTest, QueryBeginIsTheFirstQueryThatSeesTheKey) {
  for (auto kind : {KeyVisibility::Kind::All, KeyVisibility::Kind::Causal})
    for (auto [sq, skv] : kShapes) {
      KeyVisibility rule(kind, sq, skv);
      for (int64_t j = 0; j < skv; ++j) {
        int64_t want = sq;
        for (int64_t i = sq - 1; i >= 0; --i)
          if (rule.isVisible(i, j))
            want = i;
        // Visibility is monotone in the query: every later query sees j.
        for (int64_t i = want; i < sq; ++i)
          EXPECT_TRUE(rule.isVisible(i, j));
        EXPECT_EQ(rule.queryBegin(j), want) << sq << "x" << skv << " " << j;
        int64_t built = fold([&](OpBuilder &b, Location loc) {
          return rule.buildQueryBegin(b, loc, index(b, loc, j));
        });
        EXPECT_EQ(built, want) << sq << "x" << skv << " key " << j;
      }
    }
}

TEST_F(AttentionMaskingTest, TileTestFindsEveryHiddenKey) {
  for (auto kind : {KeyVisibility::Kind::All, KeyVisibility::Kind::Causal})
    for (auto [sq, skv] : kShapes) {
      KeyVisibility rule(kind, sq, skv);
      for (int64_t q0 = 0; q0 < sq; q0 += 2)
        for (int64_t k0 = 0; k0 < skv; ++k0) {
          const int64_t rows = 2, keys = 2;
          bool hidden = false;
          for (int64_t i = q0; i < q0 + rows; ++i)
            for (int64_t j = k0; j < k0 + keys; ++j)
              hidden |= !rule.isVisible(i, j);
          int64_t got = fold([&](OpBuilder &b, Location loc) -> Value {
            Value v = rule.buildTileNeedsMask(b, loc, index(b, loc, q0), rows,
                                              index(b, loc, k0), keys);
            return v ? v : arith::ConstantIntOp::create(b, loc, 0, 1);
          });
          EXPECT_EQ(got, hidden)
              << sq << "x" << skv << " tile (" << q0 << ", " << k0 << ")";
        }
    }
}

} // namespace
