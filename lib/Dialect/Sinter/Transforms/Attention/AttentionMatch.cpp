//===- AttentionMatch.cpp - softmax(scale Q K^T + mask) V -----------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatch.h"
#include "../DropoutMatch.h"
#include "../MatchUtils.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;

namespace sinter {
namespace attention {

bool AttentionMatcher::matchSoftmaxOf(Value p) {
  if (auto sm = p.getDefiningOp<SoftmaxOp>()) {
    significant = true;
    if (sm.getMask())
      return fail("the sinter.softmax already carries a mask");
    softmaxOp = sm;
    softmaxInput = sm.getInput();
    softmax.dim = sm.getDimension();
    softmax.scale = sm.getScale() ? sm.getScale()->convertToDouble() : 1.0;
  } else {
    SoftmaxMiss miss;
    std::optional<SoftmaxMatch> m = matchSoftmax(p, miss);
    if (!m) {
      significant = miss.significant;
      // An elementwise op between a softmax and P V (such as a dropout with
      // a keep-mask tensor) cannot be moved into the op.
      if (auto g = p.getDefiningOp<linalg::GenericOp>();
          !significant && g && g.getNumReductionLoops() == 0) {
        for (Value in : g.getDpsInputs()) {
          while (
              isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
                  in.getDefiningOp()))
            in = in.getDefiningOp()->getOperand(0);
          SoftmaxMiss inner;
          if (in.getDefiningOp<SoftmaxOp>() || matchSoftmax(in, inner)) {
            significant = true;
            return fail("the probabilities go through a '" +
                        g->getName().getStringRef() +
                        "' between the softmax and P V (a dropout with a "
                        "keep-mask tensor?), which sinter.attention cannot "
                        "express");
          }
        }
      }
      return fail("the probabilities are not a softmax: " + miss.reason);
    }
    softmax = *m;
    softmaxInput = m->input;
  }
  significant = true;
  softmaxRank = cast<RankedTensorType>(p.getType()).getRank();
  if (softmaxRank > 4)
    return fail("the probabilities have rank " + Twine(softmaxRank) +
                "; attention has at most batch, heads, queries and keys");
  if (softmax.dim != softmaxRank - 1)
    return fail("the softmax is over axis " + Twine(softmax.dim) +
                ", not the trailing (key) axis");
  if (!(softmax.scale > 0.0))
    return fail("the softmax scale is not positive");
  if (probs.guarded && probs.guardScores != softmaxInput)
    return fail("the fully-masked-row guard tests another tensor than the "
                "softmax input");
  return true;
}

Operation *AttentionMatcher::findScoresProduct(Value t) {
  // The first product on the chain (through generics and reshapes).
  SmallVector<Value> work{t};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || seen.size() > 32)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (matchProduct(def))
      return def;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      work.push_back(def->getOperand(0));
    else if (auto g = dyn_cast<linalg::GenericOp>(def))
      if (g.getNumReductionLoops() == 0)
        for (Value in : g.getDpsInputs())
          work.push_back(in);
  }
  return nullptr;
}

bool AttentionMatcher::matchOperands() {
  std::string why;
  std::optional<Operand> qo = resolveOperand(qkProd.lhs, false, true, why);
  std::optional<Operand> ko =
      qo ? resolveOperand(qkProd.rhs, !qkProd.transposedB, true, why)
         : std::nullopt;
  std::optional<Operand> vo =
      ko ? resolveOperand(pvProd.rhs, false, false, why) : std::nullopt;
  if (!vo)
    return fail(why);
  q = *qo;
  k = *ko;
  v = *vo;
  scale = chain.scale * q.scale * k.scale;
  return true;
}

bool AttentionMatcher::matchOutput() {
  result = pv->getResult(0);
  Type outElem = cast<RankedTensorType>(result.getType()).getElementType();
  if (outElem == elemType)
    return true;
  // Mixed precision: P V accumulates in f32, then (after reshapes of the
  // heads) rounds to Q's type.
  Value cur = result;
  SmallVector<Operation *> reshapes;
  while (cur.hasOneUse() &&
         isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
             *cur.getUsers().begin()) &&
         keepsTrailingDims(*cur.getUsers().begin())) {
    reshapes.push_back(*cur.getUsers().begin());
    cur = reshapes.back()->getResult(0);
  }
  Operation *user = cur.hasOneUse() ? *cur.getUsers().begin() : nullptr;
  if (!user || user->getNumResults() != 1 ||
      matchCast(user->getResult(0), /*widen=*/false) != cur ||
      cast<RankedTensorType>(user->getResult(0).getType()).getElementType() !=
          elemType)
    return fail("P V's result is used without rounding to the operands' "
                "type");
  outputCast = user;
  outputReshapes = std::move(reshapes);
  result = user->getResult(0);
  return true;
}

/// `o`'s shape as [B, H, S, D]: 4-D operands as they are, [N, S, D] ones
/// split as N = batch x (N / batch), [S, D] ones as one head.
static SmallVector<int64_t> shape4(const Operand &o, int64_t batch) {
  SmallVector<int64_t> s = operandShape(o);
  if (o.is4D || s.size() == 4)
    return s;
  if (s.size() == 3)
    return {batch, s[0] / batch, s[1], s[2]};
  return {1, 1, s[0], s[1]};
}

bool AttentionMatcher::checkShapes() {
  auto staticShape = [](Value x) {
    return cast<RankedTensorType>(x.getType()).hasStaticShape();
  };
  if (!staticShape(q.source) || !staticShape(k.source) ||
      !staticShape(v.source) || !staticShape(pv->getResult(0)))
    return fail("dynamic shapes are not supported yet");
  SmallVector<int64_t> qs = operandShape(q);
  auto softType = cast<RankedTensorType>(softmaxInput.getType());
  if (qs.size() == 4) {
    batch = qs[0];
    heads = qs[1];
  } else if (softmaxRank == 4) {
    batch = softType.getDimSize(0);
    heads = softType.getDimSize(1);
  } else {
    batch = 1;
    heads = qs.size() == 3 ? qs[0] : 1;
  }
  if (qs.size() == 3 && batch * heads != qs[0])
    return fail("the shapes of Q and the scores do not line up");
  qs = shape4(q, batch);
  SmallVector<int64_t> ks = shape4(k, batch), vs = shape4(v, batch);
  sq = qs[2];
  d = qs[3];
  dv = vs[3];
  if (ks[0] * ks[1] * k.repeat == batch * heads && ks[0] != batch)
    return fail("K splits its heads differently from Q");
  if (ks[0] != batch || ks[1] * k.repeat != heads || ks[2] != skv || ks[3] != d)
    return fail("the shapes of Q and K do not line up");
  if (vs[0] != batch || vs[1] * v.repeat != heads || vs[2] != skv)
    return fail("the shapes of the probabilities and V do not line up");
  if (ks[1] != vs[1])
    return fail("K and V repeat their heads differently");
  kvHeads = ks[1];
  if (heads <= 0 || kvHeads <= 0 || batch <= 0)
    return fail("an operand has no heads or no batch (a zero dimension)");
  if (heads % kvHeads != 0)
    return fail("the query heads are not a multiple of the key/value heads");
  auto elem = [](Value x) {
    return cast<RankedTensorType>(x.getType()).getElementType();
  };
  elemType = elem(q.source);
  if (elem(k.source) != elemType || elem(v.source) != elemType)
    return fail("Q, K and V have different element types");
  if (!isa<Float16Type, BFloat16Type, Float32Type>(elemType))
    return fail("unsupported element type");
  return true;
}

bool AttentionMatcher::checkMask() {
  if (!chain.mask)
    return true;
  auto mType = cast<RankedTensorType>(chain.mask.getType());
  if (!isa<Float16Type, BFloat16Type, Float32Type>(mType.getElementType()))
    return fail("the mask has an unsupported element type");
  unsigned pr = softmaxRank;
  if (chain.maskRank > 4 || (chain.maskRank != 4 && chain.maskRank != pr))
    return fail("the mask is applied at an unsupported rank");
  // Each mask dim reads a loop in order, or is a unit dim read at 0 in its
  // trailing-aligned position (a broadcast).
  int64_t last = -1;
  int64_t mr = mType.getRank();
  for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults())) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (c.getValue() != 0 || mType.getDimSize(i) != 1)
        return fail("the mask is read through a constant map");
      int64_t aligned = (int64_t)chain.maskRank - mr + (int64_t)i;
      if (aligned <= last)
        return fail("the mask is read through a transposing map");
      last = aligned;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || (int64_t)dim.getPosition() <= last)
      return fail("the mask is read through a transposing map");
    last = dim.getPosition();
  }
  // A mask read along batch/head loops must see the op's own split.
  if (chain.maskRank == 4) {
    for (AffineExpr e : chain.maskMap.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(e);
          dim && dim.getPosition() < 2 &&
          chain.maskLoopShape[dim.getPosition()] !=
              (dim.getPosition() == 0 ? batch : heads))
        return fail("the mask splits batch and heads differently from Q");
  }
  // A rank-3 [N, Sq, Skv] mask indexed by the collapsed batch*heads loop
  // needs N = B * H split; reads of it keep the same element order.
  if (chain.maskRank == 3 && chain.maskMap.getNumResults() == 3 && batch != 1 &&
      mType.getDimSize(0) != 1)
    return fail("a per-(batch*head) mask over collapsed heads is not "
                "supported yet");
  return true;
}

bool AttentionMatcher::checkNoEscape() {
  SetVector<Operation *> all;
  all.insert(qkProd.op);
  all.insert(chain.ops.begin(), chain.ops.end());
  if (softmaxOp)
    all.insert(softmaxOp);
  else
    all.insert(softmax.covered.begin(), softmax.covered.end());
  all.insert(probs.ops.begin(), probs.ops.end());
  all.insert(probs.dropout.ops.begin(), probs.dropout.ops.end());
  all.insert(pv);
  all.insert(outputReshapes.begin(), outputReshapes.end());
  if (outputCast)
    all.insert(outputCast);
  if (Operation *esc = match::findEscapingOp(
          all.getArrayRef(), [&](Value x) { return x == result; }))
    return fail("the intermediate computed by '" +
                esc->getName().getStringRef() +
                "' (scores or probabilities) has another user");
  covered = std::move(all);
  return true;
}

bool AttentionMatcher::match() {
  std::optional<Product> p = matchProduct(pv);
  if (!p || p->transposedB)
    return false;
  pvProd = *p;
  if (!walkProbsSide(pvProd.lhs, allowRngChange, probs, reason)) {
    significant = true;
    return false;
  }
  if (!matchSoftmaxOf(probs.probs))
    return false;
  Operation *qk = findScoresProduct(softmaxInput);
  if (!qk)
    return fail("the softmax input does not come from a matrix product");
  qkProd = *matchProduct(qk);
  auto sType = cast<RankedTensorType>(qk->getResult(0).getType());
  if (!sType.hasStaticShape())
    return fail("dynamic shapes are not supported yet");
  sq = sType.getDimSize(sType.getRank() - 2);
  skv = sType.getDimSize(sType.getRank() - 1);
  std::string why;
  if (!walkScoreChain(softmaxInput, qk->getResult(0), softmax.scale, sq, skv,
                      chain, why))
    return fail(why);
  return matchOperands() && checkShapes() && matchOutput() && checkMask() &&
         checkNoEscape();
}

/// The mask with unit dims inserted for the loops it does not read, so that
/// numpy broadcasting against [B, H, Sq, Skv] reads the same elements.
Value AttentionMatcher::buildMask(OpBuilder &b, Location loc) {
  auto mType = cast<RankedTensorType>(chain.mask.getType());
  unsigned rank = chain.maskRank;
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<bool> read(rank, false);
  for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    unsigned p = dim ? dim.getPosition() : rank - mType.getRank() + (unsigned)i;
    shape[p] = mType.getDimSize(i);
    read[p] = true;
  }
  // Group each mask dim with the unit dims that precede it.
  SmallVector<ReassociationIndices> reassoc;
  ReassociationIndices group;
  for (unsigned p = 0; p < rank; ++p) {
    group.push_back(p);
    if (read[p]) {
      reassoc.push_back(group);
      group.clear();
    }
  }
  if (!group.empty() && !reassoc.empty())
    reassoc.back().append(group.begin(), group.end());
  // A map reading the trailing loops in order already broadcasts as numpy.
  bool trailing = true;
  for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      trailing &= (int64_t)dim.getPosition() ==
                  (int64_t)rank - mType.getRank() + (int64_t)i;
  if (trailing || reassoc.empty())
    return chain.mask;
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, mType.getElementType()), chain.mask,
      reassoc);
}

void AttentionMatcher::rewrite(RewriterBase &rewriter,
                               llvm::DenseSet<Operation *> &erased) {
  Operation *anchor = result.getDefiningOp();
  rewriter.setInsertionPoint(anchor);
  Location loc = pv->getLoc();
  Value q4 = materialize(rewriter, loc, q, batch, heads);
  Value k4 = materialize(rewriter, loc, k, batch, kvHeads);
  Value v4 = materialize(rewriter, loc, v, batch, kvHeads);
  Value mask = chain.mask ? buildMask(rewriter, loc) : Value();
  auto outType = cast<RankedTensorType>(result.getType());
  auto attnType = RankedTensorType::get({batch, heads, sq, dv}, elemType);
  Value seed;
  if (probs.dropout.found)
    seed = buildSeedI64(rewriter, loc, probs.dropout.seed);
  // The default scale when the product of the frontend's factors is
  // 1/sqrt(D) up to their rounding (SDPA's sqrt(scale) on Q and K^T).
  float f32Scale = static_cast<float>(scale);
  FloatAttr scaleAttr = rewriter.getF32FloatAttr(f32Scale);
  if (std::fabs(scale * std::sqrt(static_cast<double>(d)) - 1.0) < 1e-6)
    scaleAttr = FloatAttr();
  auto attn = AttentionOp::create(
      rewriter, loc, attnType, /*lse=*/Type(), q4, k4, v4, mask, seed,
      scaleAttr, chain.causal ? rewriter.getUnitAttr() : UnitAttr(),
      rewriter.getF64FloatAttr(probs.dropout.found ? probs.dropout.p : 0.0));
  Value out = attn.getOutput();
  if (outType.getRank() != 4) {
    SmallVector<ReassociationIndices> reassoc =
        outType.getRank() == 3
            ? SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}
            : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}};
    out = tensor::CollapseShapeOp::create(rewriter, loc, outType, out, reassoc);
  }
  auto bytesOf = [&](ArrayRef<Operation *> ops) {
    int64_t bytes = 0;
    for (Operation *op : ops)
      if (op != pv && op != outputCast &&
          !llvm::is_contained(outputReshapes, op) &&
          !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
        for (Value r : op->getResults())
          bytes += tensorBytes(r.getType());
    return bytes;
  };
  // The dropout's intermediates (and its random tensor) are reported as the
  // dropout's.
  SmallVector<Operation *> attentionOps, dropoutOps;
  for (Operation *op : covered)
    (probs.dropout.ops.contains(op) ? dropoutOps : attentionOps).push_back(op);
  if (probs.dropout.found && probs.dropout.generatorErased)
    dropoutOps.push_back(probs.dropout.generator);
  int64_t bytes = bytesOf(attentionOps);
  int64_t dropoutBytes = bytesOf(dropoutOps);
  rewriter.replaceAllUsesWith(result, out);
  match::eraseWithDeadProducers(anchor, &erased, nullptr, &rewriter);
  for (const Operand *o : {&q, &k, &v})
    for (Operation *op : o->ops)
      if (!erased.contains(op) && op->use_empty())
        match::eraseWithDeadProducers(op, &erased, nullptr, &rewriter);
  std::string note;
  if (!chain.maskNote.empty())
    note = chain.maskNote;
  reportFusion(attn, "attention", bytes);
  if (probs.dropout.found)
    reportFusion(attn, "dropout", dropoutBytes);
  if (!note.empty())
    attn->emitRemark("attention mask: ") << note;
}

} // namespace attention
} // namespace sinter
