//===- DialectTest.cpp - Unit tests for the sinter dialect ----------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/Patterns.h"
#include "sinter/InitAll.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class SinterDialectTest : public ::testing::Test {
protected:
  SinterDialectTest() {
    DialectRegistry registry;
    sinter::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

TEST_F(SinterDialectTest, AttentionDefaultScaleIsInverseSqrtHeadDim) {
  const char *ir = R"mlir(
    func.func @f(%q: tensor<1x4x8x64xf32>, %k: tensor<1x2x8x64xf32>,
                 %v: tensor<1x2x8x32xf32>) -> tensor<1x4x8x32xf32> {
      %o = sinter.attention %q, %k, %v : tensor<1x4x8x64xf32>,
          tensor<1x2x8x64xf32>, tensor<1x2x8x32xf32> -> tensor<1x4x8x32xf32>
      return %o : tensor<1x4x8x32xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module);
  sinter::AttentionOp op;
  module->walk([&](sinter::AttentionOp a) { op = a; });
  ASSERT_TRUE(op);
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 0.125);
  op.setScaleAttr(FloatAttr::get(Float32Type::get(&ctx), 0.5));
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 0.5);
}

TEST_F(SinterDialectTest, AdamWResultGroupsFollowOperandLists) {
  const char *ir = R"mlir(
    func.func @f(%p0: tensor<4xf32>, %p1: tensor<2x3xbf16>,
                 %g0: tensor<4xf32>, %g1: tensor<2x3xbf16>,
                 %m0: tensor<4xf32>, %m1: tensor<2x3xf32>,
                 %v0: tensor<4xf32>, %v1: tensor<2x3xf32>,
                 %lr: f32, %t: f32) {
      %r:6 = sinter.adamw params(%p0, %p1 : tensor<4xf32>, tensor<2x3xbf16>)
          grads(%g0, %g1 : tensor<4xf32>, tensor<2x3xbf16>)
          exp_avgs(%m0, %m1 : tensor<4xf32>, tensor<2x3xf32>)
          exp_avg_sqs(%v0, %v1 : tensor<4xf32>, tensor<2x3xf32>)
          lr(%lr) step(%t)
      return
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module);
  sinter::AdamWOp op;
  module->walk([&](sinter::AdamWOp a) { op = a; });
  ASSERT_TRUE(op);
  EXPECT_EQ(op.getNumTensors(), 2u);
  EXPECT_EQ(op.getNewParams()[1].getType(), op.getParams()[1].getType());
  EXPECT_EQ(op.getNewExpAvgs()[1].getType(), op.getExpAvgs()[1].getType());
  EXPECT_EQ(op.getNewExpAvgSqs()[0].getType(), op.getExpAvgSqs()[0].getType());
  // Builders go through the same inference: the verifier must accept it.
  EXPECT_TRUE(succeeded(verify(*module)));
}

// populateRaiseCustomCallsPatterns, as an embedder runs it in its own
// driver: a call of a marked declaration becomes the op; a call that
// breaks the contract (here two operands) is left as it is.
TEST_F(SinterDialectTest, RaiseCustomCallsPatternsForEmbedders) {
  const char *ir = R"mlir(
    func.func private @att(tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>,
        tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
        attributes {sinter.call = "sinter.attention",
                    sinter.attributes = {causal}}
    func.func private @bad(tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
        -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
        attributes {sinter.call = "sinter.attention"}
    func.func @f(%q: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>,
                                                tensor<1x2x8x16xf32>) {
      %a:2 = call @att(%q, %q, %q) : (tensor<1x2x8x16xf32>,
          tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
          -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
      %b:2 = call @bad(%q, %q) : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
          -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
      return %a#0, %b#0 : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module);
  RewritePatternSet patterns(&ctx);
  sinter::populateRaiseCustomCallsPatterns(patterns);
  (void)applyPatternsGreedily(*module, std::move(patterns));
  ASSERT_TRUE(succeeded(verify(*module)));
  int attentions = 0, calls = 0;
  module->walk([&](sinter::AttentionOp op) {
    ++attentions;
    EXPECT_TRUE(op.getCausal());
  });
  module->walk([&](func::CallOp call) {
    ++calls;
    EXPECT_EQ(call.getCallee(), "bad");
  });
  EXPECT_EQ(attentions, 1);
  EXPECT_EQ(calls, 1);
}

} // namespace
