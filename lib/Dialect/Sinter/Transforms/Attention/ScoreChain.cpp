//===- ScoreChain.cpp - From the softmax input back to Q K^T --------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "ScoreChain.h"
#include "Products.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace sinter {
namespace attention {

namespace {

/// A uniform constant: a scalar constant (splat tensor inputs were inlined
/// into bodies by sinter-normalize-frontend).
std::optional<double> scalarConstant(Value v) {
  FloatAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getValueAsDouble();
  return std::nullopt;
}

/// Whether `v` comes from `target` through elementwise ops and reshapes.
bool reaches(Value v, Value target, int depth = 12) {
  if (v == target)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0)
    return false;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return reaches(def->getOperand(0), target, depth - 1);
  if (auto g = dyn_cast<linalg::GenericOp>(def)) {
    if (g.getNumReductionLoops() != 0)
      return false;
    for (Value in : g.getDpsInputs())
      if (reaches(in, target, depth - 1))
        return true;
  }
  return false;
}

std::string describe(const KeyVisibility &v) {
  switch (v.kind) {
  case KeyVisibility::Kind::SlidingWindow:
    return "a sliding window of " + std::to_string(v.window) +
           " keys, kept as a mask tensor";
  case KeyVisibility::Kind::Causal:
    return "a causal mask aligned at offset " + std::to_string(v.offset) +
           " (the op aligns at Skv - Sq), kept as a mask tensor";
  case KeyVisibility::Kind::CausalAndData:
    return "causal (the attribute) and a data-dependent part (a padding "
           "mask), kept as a mask tensor";
  default:
    return v.why;
  }
}

class ScoreWalker {
public:
  ScoreWalker(ScoreChain &chain, std::string &why, int64_t sq, int64_t skv)
      : chain(chain), why(why), sq(sq), skv(skv) {}

  bool walk(Value t, Value scores, double outerScale);

private:
  bool fail(const Twine &r) {
    why = r.str();
    return false;
  }
  bool peelBody(linalg::GenericOp g, BlockArgument chainArg,
                double &outerScale);
  bool peelScale(Operation *op, Value &v, double &outerScale);
  bool peelMaskAdd(linalg::GenericOp g, arith::AddFOp add, Value &v,
                   BlockArgument chainArg, double outerScale);
  bool peelSelect(linalg::GenericOp g, arith::SelectOp sel, Value &v);
  /// Records `vis` as causal when it is the op's alignment; returns false
  /// (with `why`) when a causal mask cannot be expressed.
  bool takeCausal(const KeyVisibility &vis, bool &taken);

  ScoreChain &chain;
  std::string &why;
  int64_t sq, skv;
};

bool ScoreWalker::takeCausal(const KeyVisibility &vis, bool &taken) {
  taken = false;
  bool causalKind = vis.kind == KeyVisibility::Kind::Causal ||
                    vis.kind == KeyVisibility::Kind::CausalAndData;
  if (!causalKind || vis.offset != skv - sq)
    return true;
  // A finite fill equals -inf only when no query row is fully hidden.
  if (vis.finiteFill && sq > skv)
    return fail("a finite causal fill differs from -inf on fully masked rows");
  if (chain.causal && vis.kind == KeyVisibility::Kind::Causal)
    return fail("more than one causal mask is applied to the scores");
  chain.causal = true;
  taken = vis.kind == KeyVisibility::Kind::Causal;
  return true;
}

bool ScoreWalker::peelScale(Operation *op, Value &v, double &outerScale) {
  Value l = op->getOperand(0), r = op->getOperand(1);
  std::optional<double> cl = scalarConstant(l), cr = scalarConstant(r);
  std::optional<double> c;
  if (cr) {
    c = isa<arith::DivFOp>(op) ? 1.0 / *cr : *cr;
    v = l;
  } else if (cl && isa<arith::MulFOp>(op)) {
    c = cl;
    v = r;
  }
  if (!c)
    return fail("the scores are scaled by a value that is not a uniform "
                "constant");
  if (!(*c > 0.0) || !std::isfinite(*c))
    return fail("the scores are scaled by a non-positive constant");
  chain.scale *= *c;
  outerScale *= *c;
  return true;
}

bool ScoreWalker::peelMaskAdd(linalg::GenericOp g, arith::AddFOp add, Value &v,
                              BlockArgument chainArg, double outerScale) {
  Value l = add.getLhs(), r = add.getRhs();
  auto isMaskArg = [&](Value x) {
    if (auto ext = x.getDefiningOp<arith::ExtFOp>())
      x = ext.getIn(); // A narrow mask widened to the scores' type.
    auto arg = dyn_cast<BlockArgument>(x);
    return arg && arg.getOwner() == g.getBlock() && arg != chainArg &&
           arg.getArgNumber() < g.getNumDpsInputs();
  };
  Value maskArg = isMaskArg(r) ? r : (isMaskArg(l) ? l : Value());
  if (!maskArg)
    return fail("the scores are added to a value that is not a mask tensor");
  v = maskArg == r ? l : r;
  if (auto ext = maskArg.getDefiningOp<arith::ExtFOp>())
    maskArg = ext.getIn();
  OpOperand *operand =
      g.getDpsInputOperand(cast<BlockArgument>(maskArg).getArgNumber());
  Value maskTensor = operand->get();
  AffineMap map = g.getMatchingIndexingMap(operand);
  SmallVector<int64_t> loops = llvm::to_vector(
      cast<RankedTensorType>(g.getResult(0).getType()).getShape());
  KeyVisibility vis = classifyAdditiveMask(maskTensor, map, loops);
  if (vis.kind == KeyVisibility::Kind::All)
    return true; // An all-zero mask.
  bool taken = false;
  if (!takeCausal(vis, taken))
    return false;
  if (taken)
    return true;
  if (chain.mask)
    return fail("more than one mask tensor is added to the scores");
  if (outerScale != 1.0)
    return fail("the mask is added before a scale of the scores");
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return fail("the mask is read through an unsupported indexing map");
  chain.mask = maskTensor;
  chain.maskMap = map;
  chain.maskRank = g.getNumLoops();
  chain.maskLoopShape = loops;
  chain.maskNote = describe(vis);
  return true;
}

bool ScoreWalker::peelSelect(linalg::GenericOp g, arith::SelectOp sel,
                             Value &v) {
  std::optional<double> tv = scalarConstant(sel.getTrueValue());
  std::optional<double> fv = scalarConstant(sel.getFalseValue());
  bool hideWhenTrue;
  if (tv && isHidingValue(*tv)) {
    v = sel.getFalseValue();
    hideWhenTrue = true;
  } else if (fv && isHidingValue(*fv)) {
    v = sel.getTrueValue();
    hideWhenTrue = false;
  } else {
    return fail("the select does not mask scores with -inf or a large "
                "negative value");
  }
  SmallVector<int64_t> loops = llvm::to_vector(
      cast<RankedTensorType>(g.getResult(0).getType()).getShape());
  KeyVisibility vis = classifyHidingCondition(sel.getCondition(), g, loops,
                                              /*negate=*/!hideWhenTrue);
  bool finite = !(tv && std::isinf(*tv)) && !(fv && std::isinf(*fv));
  vis.finiteFill = finite;
  if (vis.kind == KeyVisibility::Kind::All)
    return true;
  bool taken = false;
  if (!takeCausal(vis, taken))
    return false;
  if (taken)
    return true;
  if (vis.kind == KeyVisibility::Kind::Causal)
    return fail("the index mask is not the bottom-right aligned causal "
                "mask (key j hidden iff j > i + " +
                Twine(skv - sq) + ")");
  std::string what =
      vis.kind == KeyVisibility::Kind::SlidingWindow
          ? "a sliding window of " + std::to_string(vis.window) + " keys"
      : vis.kind == KeyVisibility::Kind::CausalAndData
          ? std::string("causal and data-dependent")
          : vis.why;
  return fail("the scores are selected by a condition that is not a causal "
              "comparison of the query and key indices: " +
              what);
}

bool ScoreWalker::peelBody(linalg::GenericOp g, BlockArgument chainArg,
                           double &outerScale) {
  Value v = g.getBlock()->getTerminator()->getOperand(0);
  while (v != chainArg) {
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != g.getBlock())
      return fail("the scores are combined with an unsupported value");
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      v = op->getOperand(0); // The fused op keeps the scores in f32.
      continue;
    }
    if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      if (!peelScale(op, v, outerScale))
        return false;
      continue;
    }
    if (auto add = dyn_cast<arith::AddFOp>(op)) {
      if (!peelMaskAdd(g, add, v, chainArg, outerScale))
        return false;
      continue;
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      if (!peelSelect(g, sel, v))
        return false;
      continue;
    }
    if (isa<math::TanhOp>(op))
      return fail("the scores are soft-capped (cap * tanh(s / cap), Gemma "
                  "2), which sinter.attention does not express");
    return fail("the scores go through '" + op->getName().getStringRef() +
                "', which attention cannot express");
  }
  return true;
}

bool ScoreWalker::walk(Value t, Value scores, double outerScale) {
  while (t != scores) {
    Operation *def = t.getDefiningOp();
    if (!def)
      return fail("the softmax input does not come from Q K^T");
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
      if (!keepsTrailingDims(def))
        return fail("the scores are reshaped across the query or key axis");
      chain.ops.insert(def);
      t = def->getOperand(0);
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(def);
    if (!g || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return fail("the scores go through '" + def->getName().getStringRef() +
                  "', which attention cannot express");
    // The chain input: the identity-read input that comes from Q K^T.
    BlockArgument chainArg;
    for (OpOperand *in : g.getDpsInputOperands()) {
      if (!g.getMatchingIndexingMap(in).isIdentity() ||
          !reaches(in->get(), scores))
        continue;
      if (chainArg)
        return fail("the scores are combined with themselves");
      chainArg = g.getMatchingBlockArgument(in);
    }
    if (!chainArg)
      return fail("the softmax input does not come from Q K^T");
    if (!peelBody(g, chainArg, outerScale))
      return false;
    chain.ops.insert(g);
    t = g.getDpsInputOperand(chainArg.getArgNumber())->get();
  }
  return true;
}

} // namespace

bool walkScoreChain(Value softmaxInput, Value scores, double softmaxScale,
                    int64_t sq, int64_t skv, ScoreChain &chain,
                    std::string &why) {
  chain.scale = softmaxScale;
  ScoreWalker walker(chain, why, sq, skv);
  return walker.walk(softmaxInput, scores, softmaxScale);
}

} // namespace attention
} // namespace sinter
