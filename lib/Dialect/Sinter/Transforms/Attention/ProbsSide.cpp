//===- ProbsSide.cpp - From P V's operand back to the softmax -------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "ProbsSide.h"
#include "../DropoutMatch.h"
#include "../MatchUtils.h"
#include "Products.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace sinter {
namespace attention {

namespace {

using match::Node;

bool isConstantValue(Value v, double x) {
  FloatAttr c;
  return matchPattern(v, m_Constant(&c)) && c.getValueAsDouble() == x;
}

/// The AND-reduction over the trailing axis that `all` is: a generic with
/// one reduction loop (last) or a `linalg.reduce` over the last dim (TOSA's
/// reduce_all, then an expand_shape adding the unit dim back), initialised
/// to true. Returns the reduced tensor.
Value matchAllOverKeys(Value all, SetVector<Operation *> &ops) {
  SetVector<Operation *> local;
  if (auto e = all.getDefiningOp<tensor::ExpandShapeOp>()) {
    local.insert(e);
    all = e.getSrc();
  }
  auto op = all.getDefiningOp<linalg::LinalgOp>();
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return {};
  Block *body = op.getBlock();
  auto andOp = dyn_cast_or_null<arith::AndIOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!andOp || !fill || !matchPattern(fill.getInputs()[0], m_One()))
    return {};
  local.insert(op);
  ops.insert(local.begin(), local.end());
  return op.getDpsInputs()[0];
}

/// `all_j(s[..., j] == -inf)` as torch's SDPA decomposition computes it:
///
///   %e = linalg.generic ins(%s) { %w = arith.extf %in : f32 to f64
///                                 arith.cmpf oeq, %w, %ninf : f64 }
///   %a = linalg.generic {[..., "reduction"]} ins(%e) outs(%true_fill)
///        { arith.andi %in, %out : i1 }
///
/// (TOSA: the f64 cast in a generic of its own, linalg.reduce, an
/// expand_shape.) Returns `s`.
Value matchAllHidden(Value all, SetVector<Operation *> &ops) {
  SetVector<Operation *> local;
  Value eq = matchAllOverKeys(all, local);
  auto cmpGen = eq ? eq.getDefiningOp<linalg::GenericOp>() : nullptr;
  if (!cmpGen || cmpGen.getNumDpsInputs() != 1 ||
      cmpGen.getNumReductionLoops() != 0 ||
      !llvm::all_of(cmpGen.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block *cb = cmpGen.getBlock();
  auto cmp = dyn_cast_or_null<arith::CmpFOp>(
      cb->getTerminator()->getOperand(0).getDefiningOp());
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return {};
  auto stripExt = [](Value v) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      return ext.getIn();
    return v;
  };
  FloatAttr c;
  bool constOnRight = matchPattern(cmp.getRhs(), m_Constant(&c));
  Value x = stripExt(constOnRight ? cmp.getLhs() : cmp.getRhs());
  Value k = constOnRight ? cmp.getRhs() : cmp.getLhs();
  if (!matchPattern(k, m_Constant(&c)) ||
      !(std::isinf(c.getValueAsDouble()) && c.getValueAsDouble() < 0) ||
      x != cb->getArgument(0))
    return {};
  local.insert(cmpGen);
  Value s = cmpGen.getDpsInputs()[0];
  // A widening (exact) of the scores in a generic of its own.
  if (Value narrow = matchCast(s, /*widen=*/true)) {
    local.insert(s.getDefiningOp());
    s = narrow;
  }
  ops.insert(local.begin(), local.end());
  return s;
}

/// `select(all_hidden_row, 0, p)`: returns `p`, sets `scores`.
Value matchRowGuard(Value v, Value &scores, SetVector<Operation *> &ops) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return {};
  Block *body = g.getBlock();
  auto sel = dyn_cast_or_null<arith::SelectOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  if (!sel || !isConstantValue(sel.getTrueValue(), 0.0))
    return {};
  auto condArg = dyn_cast<BlockArgument>(sel.getCondition());
  auto pArg = dyn_cast<BlockArgument>(sel.getFalseValue());
  if (!condArg || !pArg || condArg.getOwner() != body ||
      pArg.getOwner() != body)
    return {};
  OpOperand *condIn = g.getMatchingOpOperand(condArg);
  OpOperand *pIn = g.getMatchingOpOperand(pArg);
  if (!g.isDpsInput(condIn) || !g.isDpsInput(pIn) ||
      !g.getMatchingIndexingMap(pIn).isIdentity())
    return {};
  // The row flag is read along every loop but the key loop (at 0 or not).
  AffineMap cm = g.getMatchingIndexingMap(condIn);
  unsigned n = g.getNumLoops();
  for (unsigned i = 0; i + 1 < n; ++i)
    if (i >= cm.getNumResults() ||
        cm.getResult(i) != getAffineDimExpr(i, g.getContext()))
      return {};
  if (cm.getNumResults() == n && !isa<AffineConstantExpr>(cm.getResult(n - 1)))
    return {};
  SetVector<Operation *> local;
  Value s = matchAllHidden(condIn->get(), local);
  if (!s)
    return {};
  // The flag may arrive with a unit key dim added by a reshape.
  scores = s;
  ops.insert(local.begin(), local.end());
  ops.insert(g);
  return pIn->get();
}

enum class DropoutResult { None, Matched, Failed };

/// A dropout (torch-mlir's aten.dropout) of the probabilities, matched from
/// the probabilities' producer down to the random tensor:
///
///   select(keep, x, 0) | mask * x * constants (mask: uitofp(keep) or
///                        select(keep, c, 0), through float casts)
///   keep = cmpf <order> random, threshold   (possibly xor-ed with true)
///   x    = c * probs                        (constants absorbed into scale)
///
/// with scale = 1 / (1 - p) and one draw per element.
class DropoutMatcher {
public:
  DropoutMatcher(Value probs, RankedTensorType type, std::string &reason)
      : probs(probs), type(type), b(probs.getContext(), type.getRank()),
        reason(reason) {}

  DropoutResult match(bool allowRngChange, ProbsDropout &dropout, Value &input);

private:
  /// Whether a node depends on a random tensor (bounded: the walk also sees
  /// the softmax and the scores).
  bool dependsOnRandom(Node *n);
  DropoutResult fail(const Twine &r) {
    reason = ("dropout on the probabilities is not raised: " + r).str();
    return DropoutResult::Failed;
  }
  static bool isCast(Node *k) {
    return k->kind == Node::Kind::Op &&
           isa<arith::ExtFOp, arith::TruncFOp>(k->op);
  }
  /// select(keep, x, 0) (or select(drop, 0, x)) at `top`.
  bool matchSelect(Node *top);
  /// mask * x * constants: descends into the products that involve the
  /// random tensor; the one other factor is the dropped tensor.
  bool matchProduct(Node *root);
  bool collectFactors(Node *n, bool divide, Node *&maskNode, std::string &why);
  /// The mask: uitofp(keep) or select(keep, c, 0), through float casts.
  bool matchMask(Node *maskNode);
  /// The comparison under `cond`, past negations (xor with true).
  arith::CmpFOp matchComparison();
  /// The random tensor `n` reads, through float casts, or null.
  Node *randomView(Node *n);
  /// Moves the dropped tensor's constant factors into `scale` until it is
  /// the dropout's 1 / keep.
  void absorbConstantFactors(double keep);

  Value probs;
  RankedTensorType type;
  match::ViewBuilder b;
  std::string &reason;
  DenseMap<Node *, bool> memo;
  int budget = 512;
  SetVector<Operation *> ops;
  double scale = 1.0;
  Node *cond = nullptr, *x = nullptr;
  bool keptWhenTrue = true;
};

bool DropoutMatcher::dependsOnRandom(Node *n) {
  Node *k = b.skip(n);
  if (auto it = memo.find(k); it != memo.end())
    return it->second;
  memo[k] = false;
  if (--budget < 0)
    return false;
  bool r = false;
  if (k->kind == Node::Kind::View)
    r = matchRandomGenerator(k->value).kind != RandomGenerator::Kind::None;
  else
    for (Node *o : k->operands)
      r = r || dependsOnRandom(o);
  memo[k] = r;
  return r;
}

bool DropoutMatcher::matchSelect(Node *top) {
  Node *tv = top->operands[1], *fv = top->operands[2];
  std::optional<double> ct = match::getConstant(b, tv);
  std::optional<double> cf = match::getConstant(b, fv);
  cond = top->operands[0];
  if (cf && *cf == 0.0 && !dependsOnRandom(tv)) {
    x = tv;
  } else if (ct && *ct == 0.0 && !dependsOnRandom(fv)) {
    x = fv;
    keptWhenTrue = false;
  } else {
    fail("the select does not zero the dropped elements");
    return false;
  }
  return true;
}

bool DropoutMatcher::collectFactors(Node *n, bool divide, Node *&maskNode,
                                    std::string &why) {
  SetVector<Operation *> local;
  Node *k = b.skip(n, &local);
  if (k->kind == Node::Kind::Const) {
    scale = divide ? scale / k->constant : scale * k->constant;
    return true;
  }
  if (!dependsOnRandom(k)) {
    if (divide || x) {
      why = divide ? "the probabilities are divided by a tensor"
                   : "the mask multiplies more than the probabilities";
      return false;
    }
    x = n;
    return true;
  }
  ops.insert(local.begin(), local.end());
  if (k->kind == Node::Kind::Op && isa<arith::MulFOp>(k->op))
    return collectFactors(k->operands[0], divide, maskNode, why) &&
           collectFactors(k->operands[1], divide, maskNode, why);
  if (k->kind == Node::Kind::Op && isa<arith::DivFOp>(k->op))
    return collectFactors(k->operands[0], divide, maskNode, why) &&
           collectFactors(k->operands[1], !divide, maskNode, why);
  if (divide || maskNode) {
    why = "the probabilities are combined with the random tensor in a "
          "way that is not a dropout";
    return false;
  }
  maskNode = k;
  return true;
}

bool DropoutMatcher::matchProduct(Node *root) {
  ops.clear();
  Node *maskNode = nullptr;
  std::string why;
  if (!collectFactors(root, false, maskNode, why)) {
    fail(why);
    return false;
  }
  if (!maskNode || !x) {
    fail("the probabilities are combined with the random tensor in a way "
         "that is not a dropout");
    return false;
  }
  return matchMask(maskNode);
}

bool DropoutMatcher::matchMask(Node *maskNode) {
  Node *m = maskNode;
  while (isCast(m))
    m = b.skip(m->operands[0], &ops);
  if (m->kind == Node::Kind::Op && isa<arith::UIToFPOp>(m->op)) {
    cond = m->operands[0];
    return true;
  }
  if (!(m->kind == Node::Kind::Op && isa<arith::SelectOp>(m->op))) {
    fail("the probabilities are multiplied by a random value that is not a "
         "keep mask");
    return false;
  }
  std::optional<double> ct = match::getConstant(b, m->operands[1]);
  std::optional<double> cf = match::getConstant(b, m->operands[2]);
  cond = m->operands[0];
  if (ct && cf && *cf == 0.0) {
    scale *= *ct;
  } else if (ct && cf && *ct == 0.0) {
    scale *= *cf;
    keptWhenTrue = false;
  } else {
    fail("the mask is not a select of a constant and zero");
    return false;
  }
  return true;
}

arith::CmpFOp DropoutMatcher::matchComparison() {
  Node *c = b.skip(cond, &ops);
  while (c->kind == Node::Kind::Op && isa<arith::XOrIOp>(c->op)) {
    Node *l = b.skip(c->operands[0]), *r = b.skip(c->operands[1]);
    auto isTrue = [](Node *k) {
      return k->kind == Node::Kind::Op &&
             matchPattern(k->op->getResult(0), m_One());
    };
    if (isTrue(r))
      c = b.skip(c->operands[0], &ops);
    else if (isTrue(l))
      c = b.skip(c->operands[1], &ops);
    else
      break;
    keptWhenTrue = !keptWhenTrue;
  }
  cond = c;
  return c->kind == Node::Kind::Op ? dyn_cast<arith::CmpFOp>(c->op)
                                   : arith::CmpFOp();
}

Node *DropoutMatcher::randomView(Node *n) {
  SetVector<Operation *> local;
  Node *k = b.skip(n, &local);
  while (isCast(k))
    k = b.skip(k->operands[0], &local);
  if (k->kind != Node::Kind::View ||
      matchRandomGenerator(k->value).kind == RandomGenerator::Kind::None)
    return nullptr;
  ops.insert(local.begin(), local.end());
  return k;
}

void DropoutMatcher::absorbConstantFactors(double keep) {
  // Constant factors of the dropped tensor (`select(keep, P / (1 - p), 0)`).
  Type elem = type.getElementType();
  while (!isDropoutScale(scale, keep, elem)) {
    SetVector<Operation *> local;
    Node *k = b.skip(x, &local);
    if (k->kind != Node::Kind::Op || !isa<arith::MulFOp, arith::DivFOp>(k->op))
      break;
    std::optional<double> c0 = match::getConstant(b, k->operands[0]);
    std::optional<double> c1 = match::getConstant(b, k->operands[1]);
    if (c1) {
      scale = isa<arith::DivFOp>(k->op) ? scale / *c1 : scale * *c1;
      x = k->operands[0];
    } else if (c0 && isa<arith::MulFOp>(k->op)) {
      scale *= *c0;
      x = k->operands[1];
    } else {
      break;
    }
    ops.insert(local.begin(), local.end());
  }
}

DropoutResult DropoutMatcher::match(bool allowRngChange, ProbsDropout &dropout,
                                    Value &input) {
  Node *root = b.root(probs);
  if (!dependsOnRandom(root))
    return DropoutResult::None;
  Node *top = b.skip(root, &ops);
  bool matched = top->kind == Node::Kind::Op && isa<arith::SelectOp>(top->op)
                     ? matchSelect(top)
                     : matchProduct(root);
  if (!matched)
    return DropoutResult::Failed;
  // The condition: a comparison of the random tensor with a constant,
  // possibly negated.
  arith::CmpFOp cmp = matchComparison();
  if (!cmp)
    return fail("the keep mask is not a comparison of the random tensor");
  Node *rl = randomView(cond->operands[0]);
  Node *rr = rl ? nullptr : randomView(cond->operands[1]);
  if (!rl && !rr)
    return fail("the keep mask is not a comparison of the random tensor");
  bool randomOnLeft = rl != nullptr;
  Node *rv = rl ? rl : rr;
  Node *thresholdNode = randomOnLeft ? cond->operands[1] : cond->operands[0];
  std::optional<double> threshold = match::getConstant(b, thresholdNode);
  if (!threshold)
    return fail("the random tensor is compared with a threshold that is not "
                "a uniform constant");
  if (!match::isIdentityView(b, rv) ||
      cast<RankedTensorType>(rv->value.getType()).getShape() != type.getShape())
    return fail("the random tensor is read through a broadcast or "
                "transpose map, not one draw per element");
  RandomGenerator gen = matchRandomGenerator(rv->value);
  if (gen.kind == RandomGenerator::Kind::Unusable)
    return fail("the random tensor cannot be replaced: " + gen.reason);
  bool keepBelow = false;
  std::optional<double> keep =
      keepProbability(cmp.getPredicate(), randomOnLeft, *threshold, keepBelow);
  if (!keep)
    return fail("the random tensor is not compared by an order predicate");
  if (!keptWhenTrue) {
    *keep = 1.0 - *keep;
    keepBelow = !keepBelow;
  }
  if (!(*keep > 0.0 && *keep <= 1.0))
    return fail("the threshold keeps a fraction " + formatNumber(*keep) +
                " of the elements, outside (0, 1]");
  absorbConstantFactors(*keep);
  if (!isDropoutScale(scale, *keep, type.getElementType()))
    return fail("the kept probabilities are scaled by " + formatNumber(scale) +
                ", not 1/(1 - p) = " + formatNumber(1.0 / *keep));
  if (!match::isIdentityView(b, x) || x->value.getType() != probs.getType())
    return fail("the dropped value is not a tensor of the probabilities' "
                "shape and type read element for element");
  if (Operation *esc = match::findEscapingOp(
          ops.getArrayRef(), [&](Value v) { return v == probs; }))
    return fail("the intermediate computed by '" +
                esc->getName().getStringRef() + "' has another user");
  if (!allowRngChange)
    return fail(kRngChangeReason);
  dropout.found = true;
  dropout.p = snapDropoutProbability(*keep, *threshold, keepBelow,
                                     cmp.getLhs().getType());
  dropout.seed = gen.seed;
  dropout.ops = std::move(ops);
  dropout.generator = gen.op;
  dropout.generatorErased = llvm::all_of(gen.op->getUsers(), [&](Operation *u) {
    return dropout.ops.contains(u);
  });
  input = x->value;
  return DropoutResult::Matched;
}

/// A dropout of the probabilities (DropoutMatcher); on Matched `input` is
/// the tensor dropped out, on Failed `reason` says why.
DropoutResult matchDropout(Value probs, bool allowRngChange,
                           ProbsDropout &dropout, Value &input,
                           std::string &reason) {
  auto type = dyn_cast<RankedTensorType>(probs.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()) || !probs.getDefiningOp())
    return DropoutResult::None;
  return DropoutMatcher(probs, type, reason)
      .match(allowRngChange, dropout, input);
}

} // namespace

bool walkProbsSide(Value operand, bool allowRngChange, ProbsSide &side,
                   std::string &why) {
  Value probs = operand;
  for (int step = 0; step < 6; ++step) {
    if (Value src = matchCast(probs, /*widen=*/false)) {
      side.ops.insert(probs.getDefiningOp());
      probs = src;
      continue;
    }
    if (auto c = probs.getDefiningOp<tensor::CollapseShapeOp>();
        c && keepsTrailingDims(c)) {
      side.ops.insert(c);
      probs = c.getSrc();
      continue;
    }
    if (!side.guarded) {
      Value scores;
      if (Value p = matchRowGuard(probs, scores, side.ops)) {
        side.guarded = true;
        side.guardScores = scores;
        probs = p;
        continue;
      }
    }
    if (side.dropout.found)
      break;
    Value dropped;
    DropoutResult r =
        matchDropout(probs, allowRngChange, side.dropout, dropped, why);
    if (r == DropoutResult::Failed)
      return false;
    if (r == DropoutResult::None)
      break;
    probs = dropped;
  }
  side.probs = probs;
  return true;
}

} // namespace attention
} // namespace sinter
