//===- RaiseAttention.cpp - Raise attention to sinter.attention -----------===//
//
// Part of the Sinter project.
//
// The pass and the patterns behind `sinter-raise-attention`:
//
// * RaiseDecomposedAttention: `softmax(scale * Q K^T + mask) V` spelled as
//   products, generics and reshapes (Attention/AttentionMatch.h has the
//   matcher, its parts the forms they accept);
// * RaiseTMTensorAttention: torch-mlir's own `tm_tensor.attention`, which it
//   emits when SDPA is not decomposed.
//
// Both are exposed through populateRaiseAttentionPatterns
// (Transforms/Patterns.h) for compilers that embed Sinter.
//
//===----------------------------------------------------------------------===//

#include "Attention/AttentionMatch.h"
#include "Attention/MaskAnalysis.h"
#include "Attention/Operands.h"
#include "MatchUtils.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/Patterns.h"
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <limits>

namespace sinter {
#define GEN_PASS_DEF_RAISEATTENTION
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::attention;

namespace {

/// Anchored at `O = P V` (a product; see Attention/Products.h).
struct RaiseDecomposedAttention : RewritePattern {
  RaiseDecomposedAttention(MLIRContext *ctx, bool allowRngChange)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        allowRngChange(allowRngChange) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isProductOp(op))
      return failure();
    AttentionMatcher m(op, allowRngChange);
    if (!m.match()) {
      // Remarks are the pass's: a pattern driver revisits ops.
      return rewriter.notifyMatchFailure(op, m.reason);
    }
    llvm::DenseSet<Operation *> erased;
    m.rewrite(rewriter, erased);
    return success();
  }

  bool allowRngChange;
};

/// `select(m, 0, -inf)` of an i1 mask, in `elem`.
Value additiveFromBoolean(OpBuilder &b, Location loc, Value mask, Type elem) {
  return match::mapElements(
      b, loc, mask, elem, [&](OpBuilder &nb, Location l, Value m) {
        auto ft = cast<FloatType>(elem);
        Value zero = arith::ConstantOp::create(nb, l, nb.getFloatAttr(ft, 0.0));
        Value ninf = arith::ConstantOp::create(
            nb, l,
            nb.getFloatAttr(ft, -std::numeric_limits<double>::infinity()));
        return arith::SelectOp::create(nb, l, m, zero, ninf).getResult();
      });
}

// torch-mlir's attention, kept whole:
//
//   %o = tm_tensor.attention {scale = 1.250000e-01 : f64}
//       ins(%q, %k, %v, %m : tensor<8x32x64xf32>, tensor<8x32x64xf32>,
//                            tensor<8x32x64xf32>, tensor<8x32x32xi1>)
//       outs(%init : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
//
// Q, K and V are traced back to [B, H, S, D] through the head merges (and
// GQA repeats, scales); an i1 mask that the mask analysis proves causal
// becomes `causal`, any other becomes `select(m, 0, -inf)`.
LogicalResult raiseTMTensorAttention(tm_tensor::AttentionOp op,
                                     RewriterBase &rewriter, std::string &why) {
  rewriter.setInsertionPoint(op);
  ValueRange in = op.getInputs();
  auto qType = cast<RankedTensorType>(in[0].getType());
  int64_t r = qType.getRank();
  if ((r != 3 && r != 4) || !qType.hasStaticShape()) {
    why = "only static rank-3 and rank-4 tm_tensor.attention is raised";
    return failure();
  }
  std::optional<Operand> q = resolveOperand(in[0], false, true, why);
  std::optional<Operand> k =
      q ? resolveOperand(in[1], false, true, why) : std::nullopt;
  std::optional<Operand> v =
      k ? resolveOperand(in[2], false, false, why) : std::nullopt;
  if (!v)
    return failure();
  SmallVector<int64_t> qs = operandShape(*q), ks = operandShape(*k);
  int64_t batch = 1, heads = qType.getDimSize(0);
  if (q->is4D) {
    batch = qs[0];
    heads = qs[1];
  } else if (r == 4) {
    batch = qType.getDimSize(0);
    heads = qType.getDimSize(1);
  }
  int64_t kvHeads = k->is4D ? ks[1] : heads;
  if ((k->is4D ? ks[1] * k->repeat : heads) != heads ||
      (v->is4D ? operandShape(*v)[1] : heads) != kvHeads) {
    why = "the heads of Q, K and V do not line up";
    return failure();
  }
  Type elem = qType.getElementType();
  int64_t sq = qType.getDimSize(r - 2), d = qType.getDimSize(r - 1);
  int64_t skv = cast<RankedTensorType>(in[1].getType()).getDimSize(r - 2);
  double scale = op.getScale() ? op.getScale()->convertToDouble()
                               : 1.0 / std::sqrt(static_cast<double>(d));
  scale *= q->scale * k->scale;

  Location loc = op.getLoc();
  Value mask;
  bool causal = false;
  std::string note;
  if (in.size() == 4) {
    Value m = in[3];
    auto mType = cast<RankedTensorType>(m.getType());
    // The mask over the loops [B, H, Sq, Skv] (its batch dim is B*H).
    SmallVector<int64_t> loops{batch, heads, sq, skv};
    MLIRContext *ctx = op.getContext();
    AffineExpr b0 = getAffineDimExpr(0, ctx), h0 = getAffineDimExpr(1, ctx);
    SmallVector<AffineExpr> res;
    if (r == 3)
      res.push_back(b0 * heads + h0);
    else
      res.append({b0, h0});
    res.append({getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)});
    AffineMap map = AffineMap::get(4, 0, res, ctx);
    KeyVisibility vis = mType.getElementType().isInteger(1)
                            ? classifyBooleanMask(m, map, loops)
                            : classifyAdditiveMask(m, map, loops);
    bool causalKind = vis.kind == KeyVisibility::Kind::Causal ||
                      vis.kind == KeyVisibility::Kind::CausalAndData;
    causal =
        causalKind && vis.offset == skv - sq && !(vis.finiteFill && sq > skv);
    if (vis.kind != KeyVisibility::Kind::All &&
        !(causal && vis.kind == KeyVisibility::Kind::Causal)) {
      mask = m;
      if (mType.getElementType().isInteger(1))
        mask = additiveFromBoolean(rewriter, loc, m, elem);
      if (r == 3)
        mask = to4D(rewriter, loc, mask, batch, heads);
      note = vis.why;
    }
  }
  Value q4 = materialize(rewriter, loc, *q, batch, heads);
  Value k4 = materialize(rewriter, loc, *k, batch, kvHeads);
  Value v4 = materialize(rewriter, loc, *v, batch, kvHeads);
  int64_t dv = cast<RankedTensorType>(in[2].getType()).getDimSize(r - 1);
  auto attnType = RankedTensorType::get({batch, heads, sq, dv}, elem);
  FloatAttr scaleAttr = rewriter.getF32FloatAttr(static_cast<float>(scale));
  if (std::fabs(scale * std::sqrt(static_cast<double>(d)) - 1.0) < 1e-6)
    scaleAttr = FloatAttr();
  auto attn = AttentionOp::create(rewriter, loc, attnType, Type(), q4, k4, v4,
                                  mask, Value(), scaleAttr,
                                  causal ? rewriter.getUnitAttr() : UnitAttr(),
                                  rewriter.getF64FloatAttr(0.0));
  Value out = attn.getOutput();
  if (r == 3)
    out = tensor::CollapseShapeOp::create(
        rewriter, loc, op.getResults()[0].getType(), out,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  rewriter.replaceOp(op, out);
  reportFusion(attn, "attention", 0);
  if (!note.empty() && mask)
    attn->emitRemark("attention mask: ") << note;
  return success();
}

struct RaiseTMTensorAttention : OpRewritePattern<tm_tensor::AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tm_tensor::AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    if (failed(raiseTMTensorAttention(op, rewriter, why)))
      return rewriter.notifyMatchFailure(op, why);
    return success();
  }
};

struct SinterRaiseAttentionPass
    : public sinter::impl::RaiseAttentionBase<SinterRaiseAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    // A walk (not the greedy driver) so that every product is tried once,
    // last first, and each miss gets one remark.
    SmallVector<Operation *> products;
    SmallVector<tm_tensor::AttentionOp> whole;
    getOperation()->walk([&](Operation *op) {
      if (isProductOp(op))
        products.push_back(op);
      if (auto a = dyn_cast<tm_tensor::AttentionOp>(op))
        whole.push_back(a);
    });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> erased;
    for (Operation *op : llvm::reverse(products)) {
      if (erased.contains(op))
        continue;
      AttentionMatcher m(op, allowRngChange);
      if (!m.match()) {
        if (m.significant)
          reportNearMiss(op, "attention", m.reason);
        continue;
      }
      m.rewrite(rewriter, erased);
    }
    for (tm_tensor::AttentionOp a : whole) {
      std::string why;
      if (failed(raiseTMTensorAttention(a, rewriter, why)))
        reportNearMiss(a, "attention", why);
    }
  }
};

} // namespace

void sinter::populateRaiseAttentionPatterns(RewritePatternSet &patterns,
                                            bool allowRngChange) {
  patterns.add<RaiseDecomposedAttention>(patterns.getContext(), allowRngChange);
  patterns.add<RaiseTMTensorAttention>(patterns.getContext());
}
