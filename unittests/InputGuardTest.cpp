//===- InputGuardTest.cpp - The input guard and the CUDA planner ---------===//
//
// Part of the Sinter project.
//
// What lit reaches only through fixed limits: the pre-parse scan with
// other limits, the region-builder rules one by one, and the CUDA manifest
// planned without compiling kernels (what the fuzz target runs).
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/InputGuard.h"
#include "sinter/GPU/CUDAArtifact.h"
#include "sinter/Target/Compiler.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class InputGuardTest : public ::testing::Test {
protected:
  InputGuardTest() {
    DialectRegistry registry;
    sinter::registerCompilerDialects(registry);
    ctx.appendDialectRegistry(registry);
  }

  /// The scan of `text` with `limits`: "" when accepted, else the message.
  std::string scan(StringRef text, const sinter::SourceLimits &limits) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text),
                                 llvm::SMLoc());
    std::string message;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    if (succeeded(sinter::checkSourceBeforeParsing(sourceMgr, ctx, limits)))
      return "";
    return message.empty() ? "failed without a message" : message;
  }

  Type type(StringRef text) { return parseType(text, &ctx); }

  MLIRContext ctx;
};

TEST_F(InputGuardTest, NestingLimitCountsBracketsAndAliases) {
  sinter::SourceLimits limits;
  limits.maxNesting = 3;
  EXPECT_EQ(scan("func.func @f(%a: tuple<i32>)", limits), "");
  EXPECT_EQ(scan("func.func @f(%a: tuple<tuple<i32>>)", limits), "");
  EXPECT_NE(scan("func.func @f(%a: tuple<tuple<tuple<i32>>>)", limits), "");
  // An alias of depth 2 referenced at depth 1: 1 + 2 + 1.
  EXPECT_NE(scan("!t = tuple<tuple<i32>>\nfunc.func @f(%a: !t)", limits), "");
  // Brackets in comments and strings are not nesting.
  EXPECT_EQ(scan("// ((((((\nfunc.func @f() attributes {s = \"<<<<\"}", limits),
            "");
}

TEST_F(InputGuardTest, OperatorLimitIsPerItem) {
  sinter::SourceLimits limits;
  limits.maxExpressionOperators = 2;
  EXPECT_EQ(scan("#m = affine_map<(d0) -> (d0 + 1, d0 * 2 - 1)>", limits), "");
  EXPECT_NE(scan("#m = affine_map<(d0) -> (d0 + 1 + 2 + 3)>", limits), "");
  // Exponents of float literals and dashes in SSA names are no operators.
  EXPECT_EQ(scan("%a-b-c-d = arith.constant 1.0e-5 : f32", limits), "");
}

TEST_F(InputGuardTest, RegionBuilderRules) {
  Type f32 = type("tensor<4xf32>"), i64 = type("tensor<4xi64>"),
       idx = type("tensor<4xindex>"), i1 = type("tensor<4xi1>"),
       cplx = type("tensor<4xcomplex<f32>>");
  auto fails = [](StringRef op, ArrayRef<Type> ins, ArrayRef<Type> outs,
                  StringRef kind = "") {
    return sinter::whyLinalgRegionBuilderFails(op, ins, outs, kind).has_value();
  };
  EXPECT_FALSE(fails("batch_matmul", {f32, f32}, {i64}));
  EXPECT_TRUE(fails("batch_matmul", {f32, f32}, {idx}));
  EXPECT_TRUE(fails("batch_reduce_matmul", {cplx, cplx}, {f32}));
  EXPECT_FALSE(fails("batch_matmul", {cplx, cplx}, {cplx}));
  EXPECT_FALSE(fails("matmul", {f32, f32}, {idx})); // stops without a crash
  EXPECT_TRUE(fails("elementwise", {i64}, {i64}, "tanh"));
  EXPECT_FALSE(fails("elementwise", {f32}, {f32}, "tanh"));
  EXPECT_TRUE(fails("elementwise", {f32, i64}, {f32}, "add"));
  EXPECT_FALSE(fails("elementwise", {i64, i64}, {i64}, "add"));
  EXPECT_TRUE(fails("elementwise", {i1, i1}, {i1}, "sub"));
  EXPECT_TRUE(fails("elementwise", {f32, f32}, {f32}, "div_unsigned"));
  EXPECT_FALSE(fails("elementwise", {i1, f32, f32}, {f32}, "select"));
}

TEST_F(InputGuardTest, CUDAManifestPlannedWithoutCompilingKernels) {
  const char *ir = R"mlir(
    func.func @norm(%x: tensor<16x4096xbf16>, %n: index) -> tensor<16x4096xbf16> {
      %y = sinter.rms_norm %x : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
      return %y : tensor<16x4096xbf16>
    }
  )mlir";
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(ir),
                               llvm::SMLoc());
  sinter::ArgumentNames names;
  OwningOpRef<ModuleOp> module =
      sinter::parseForCompilation(sourceMgr, ctx, &names);
  ASSERT_TRUE(module);
  sinter::NVVMPipelineOptions options;
  options.chip = "sm_90a";
  FailureOr<std::string> manifest =
      sinter::planCUDAManifest(*module, options, &names);
  ASSERT_TRUE(succeeded(manifest));
  EXPECT_NE(manifest->find("\"target\": \"cuda:sm_90a\""), std::string::npos);
  EXPECT_NE(manifest->find("\"rms_norm_0\""), std::string::npos);
  EXPECT_NE(manifest->find("\"name\": \"n\""), std::string::npos);
  EXPECT_NE(manifest->find("\"dtype\": \"int64\""), std::string::npos);
}

} // namespace
