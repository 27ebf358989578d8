//===- NormalizeFrontend.cpp - Canonical forms of frontend idioms ---------===//
//
// Part of the Sinter project.
//
// The rewrites of `sinter-normalize-frontend` (see Passes.td for the list
// and why each is sound). Each idiom is a small pattern, exposed through
// `populateNormalizeFrontendPatterns` for compilers that embed Sinter; the
// f64-island demotion is a walk over the function (it replaces a subgraph,
// not an op) in F64Demotion.cpp.
//
//===----------------------------------------------------------------------===//

#include "MatchUtils.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace sinter {
#define GEN_PASS_DEF_NORMALIZEFRONTEND
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {

/// A float constant converted to `type` with round-to-nearest-even, as the
/// cast op computes it at run time.
static FloatAttr convertFloat(FloatAttr c, FloatType type) {
  APFloat v = c.getValue();
  bool losesInfo = false;
  v.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return FloatAttr::get(type, v);
}

// A cast of a scalar float constant, in a body or not:
//
//   %c = arith.constant 9.9999999999999995E-7 : f64
//   %e = arith.truncf %c : f64 to f32            // also extf
//   ->
//   %e = arith.constant 9.99999997E-7 : f32
//
// (upstream's folder keeps inexact truncations).
template <typename CastOp>
struct FoldFloatCastOfConstant : OpRewritePattern<CastOp> {
  using OpRewritePattern<CastOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    FloatAttr c;
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type || !matchPattern(op.getIn(), m_Constant(&c)))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   convertFloat(c, type));
    return success();
  }
};

//   %c = arith.constant 1 : i64
//   %f = arith.sitofp %c : i64 to f32            // also uitofp
//   ->
//   %f = arith.constant 1.0 : f32
template <typename CastOp, bool isSigned>
struct FoldIntToFloatOfConstant : OpRewritePattern<CastOp> {
  using OpRewritePattern<CastOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    APInt c;
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type || !matchPattern(op.getIn(), m_ConstantInt(&c)))
      return failure();
    APFloat v(type.getFloatSemantics());
    v.convertFromAPInt(c, isSigned, APFloat::rmNearestTiesToEven);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   FloatAttr::get(type, v));
    return success();
  }
};

//   %s = math.fpowi %x, %c2 : f32, i64           (%c2 = arith.constant 2)
//   ->
//   %s = arith.mulf %x, %x : f32
//
// Also `math.powf %x, 2.0`. Exact: x*x rounds the exact square once.
struct SquareFromPower : OpRewritePattern<math::FPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FPowIOp op,
                                PatternRewriter &rewriter) const override {
    APInt e;
    if (!matchPattern(op.getRhs(), m_ConstantInt(&e)) || e != 2)
      return failure();
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), op.getLhs());
    return success();
  }
};

struct SquareFromPowF : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    FloatAttr e;
    if (!matchPattern(op.getRhs(), m_Constant(&e)) ||
        e.getValueAsDouble() != 2.0)
      return failure();
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), op.getLhs());
    return success();
  }
};

// A splat constant read by a generic becomes a constant in its body, so
// that the body's folders see it (`select` on a decided condition, ...):
//
//   %g = linalg.generic ins(%x, %cst : tensor<4xf32>, tensor<f32>) ...
//   ^bb0(%a: f32, %b: f32, %o: f32):  %r = arith.mulf %a, %b
//   (%cst = arith.constant dense<0.5> : tensor<f32>)
//   ->
//   ^bb0(%a: f32, %b: f32, %o: f32):  %h = arith.constant 0.5 : f32
//                                     %r = arith.mulf %a, %h
//
// The unused input is dropped by the upstream dead-operand patterns.
struct InlineSplatInputs : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    Block *body = op.getBlock();
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      DenseElementsAttr dense;
      if (arg.use_empty() || !matchPattern(in->get(), m_Constant(&dense)) ||
          !dense.isSplat() || !isa<FloatType, IntegerType>(arg.getType()))
        continue;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(body);
      auto attr = cast<TypedAttr>(dense.getSplatValue<Attribute>());
      Value c = arith::ConstantOp::create(rewriter, op.getLoc(), attr);
      rewriter.replaceAllUsesWith(arg, c);
      changed = true;
    }
    return success(changed);
  }
};

/// The single element of a 0-d or one-element constant tensor.
static Attribute scalarOf(Value v) {
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.getNumElements() == 1)
    return dense.getSplatValue<Attribute>();
  return {};
}

// Arithmetic on 0-d constants, as torch-mlir spells scalar math:
//
//   %a = linalg.generic {iterator_types = []} ins(%cst : tensor<f32>) ...
//        { %x = math.absf %in : f32 ... }      (%cst = dense<0.1>)
//   ->
//   %a = arith.constant dense<0.1> : tensor<f32>
//
// The body is evaluated with the ops' own folders; a body that does not
// fold entirely (a function argument, an op without a folder) stays.
struct FoldScalarGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumLoops() != 0 || op->getNumResults() != 1)
      return failure();
    Block *body = op.getBlock();
    DenseMap<Value, Attribute> values;
    for (OpOperand *in : op.getDpsInputOperands()) {
      Attribute a = scalarOf(in->get());
      if (!a)
        return failure();
      values[op.getMatchingBlockArgument(in)] = a;
    }
    auto lookup = [&](Value v) -> Attribute {
      if (auto it = values.find(v); it != values.end())
        return it->second;
      Attribute a;
      if (matchPattern(v, m_Constant(&a)))
        return a;
      return {};
    };
    for (Operation &inner : body->without_terminator()) {
      SmallVector<Attribute> operands;
      for (Value v : inner.getOperands()) {
        Attribute a = lookup(v);
        if (!a)
          return failure();
        operands.push_back(a);
      }
      SmallVector<OpFoldResult> folded;
      if (inner.getNumResults() != 1 || isa<linalg::IndexOp>(inner) ||
          failed(inner.fold(operands, folded)) || folded.size() != 1)
        return failure();
      Attribute r = dyn_cast<Attribute>(folded[0]);
      if (!r) // Folded to one of its operands.
        r = lookup(cast<Value>(folded[0]));
      if (!r)
        return failure();
      values[inner.getResult(0)] = r;
    }
    Attribute result = lookup(body->getTerminator()->getOperand(0));
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!result || cast<TypedAttr>(result).getType() != type.getElementType())
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, result));
    return success();
  }
};

// A matmul of widened operands, as torch-mlir lowers a bf16 `aten.mm` /
// `aten.addmm` (GPT-2's Conv1D, every nn.Linear of a bf16 model):
//
//   %a32 = linalg.generic ins(%a : tensor<8192x768xbf16>)
//          outs(... tensor<8192x768xf32>) { arith.extf ; linalg.yield }
//   %w32 = linalg.generic ins(%w : tensor<768x2304xbf16>) ... { arith.extf }
//   %c = linalg.matmul ins(%a32, %w32 : ...xf32, ...xf32) outs(%z : ...xf32)
//   ->
//   %c = linalg.matmul ins(%a, %w : ...xbf16, ...xbf16) outs(%z : ...xf32)
//
// Exact: linalg.matmul extends each operand to the accumulator's type before
// multiplying, so the mixed form computes the same products and sums. It
// runs on the tensor cores (bf16 in, f32 accumulate) instead of as an f32
// GEMM, and the widened copies (the weights' included) are never written.
struct ContractNarrowOperands : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  /// The narrow source of `v` when `v` is an elementwise generic that only
  /// extends a float tensor to `wide` (identity maps).
  static Value narrowSourceOf(Value v, Type wide) {
    return getElementTypeOrSelf(v.getType()) == wide
               ? sinter::match::widenedSource(v)
               : Value();
  }

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
    auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
    if ((!mm || mm.hasUserDefinedMaps()) && (!bmm || bmm.hasUserDefinedMaps()))
      return failure();
    if (!op.hasPureTensorSemantics())
      return failure();
    Type acc = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (!acc.isF32())
      return failure();
    SmallVector<Value> inputs = op.getDpsInputs();
    bool narrowed = false;
    for (Value &in : inputs)
      if (Value narrow = narrowSourceOf(in, acc)) {
        in = narrow;
        narrowed = true;
      }
    if (!narrowed)
      return rewriter.notifyMatchFailure(op, "no operand is a widened copy");
    // A named op's body is built from its operand types: build it anew.
    Value init = op.getDpsInits()[0];
    if (mm)
      rewriter.replaceOpWithNewOp<linalg::MatmulOp>(op, inputs, init);
    else
      rewriter.replaceOpWithNewOp<linalg::BatchMatmulOp>(op, inputs, init);
    return success();
  }
};

struct NormalizeFrontendPass
    : public sinter::impl::NormalizeFrontendBase<NormalizeFrontendPass> {
  using Base::Base;
  void runOnOperation() override {
    // Reshapes the upstream verifier lets through with out-of-range
    // reassociation indices (they wrap) are refused here, located, rather
    // than read past a shape later.
    WalkResult bad = getOperation()->walk([](Operation *op) {
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) &&
          !sinter::match::hasValidReassociation(op)) {
        op->emitError("malformed reassociation: the groups must list every "
                      "dimension of the expanded type once, in order");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet set(&getContext());
    sinter::populateNormalizeFrontendPatterns(set);
    FrozenRewritePatternSet patterns(std::move(set));
    if (failed(applyPatternsGreedily(getOperation(), patterns)))
      return signalPassFailure();
    // After the exact rewrites (splat constants inlined), so that islands
    // read no constant tensors; then once more for what the clones expose.
    if (demoteF64 && sinter::demoteF64Statistics(getOperation()) &&
        failed(applyPatternsGreedily(getOperation(), patterns)))
      return signalPassFailure();
  }
};

} // namespace

void sinter::populateNormalizeFrontendPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FoldFloatCastOfConstant<arith::TruncFOp>,
               FoldFloatCastOfConstant<arith::ExtFOp>,
               FoldIntToFloatOfConstant<arith::SIToFPOp, true>,
               FoldIntToFloatOfConstant<arith::UIToFPOp, false>,
               SquareFromPower, SquareFromPowF, InlineSplatInputs,
               FoldScalarGeneric, ContractNarrowOperands>(ctx);
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  // The folders of the ops the patterns above leave with constant operands
  // (selects on decided conditions, arithmetic on constants).
  arith::SelectOp::getCanonicalizationPatterns(patterns, ctx);
}
