//===- RaiseNormBackward.cpp - LayerNorm backward from its decomposition --===//
//
// Part of the Sinter project.
//
// The input gradient of a LayerNorm as AOTAutograd decomposes
// native_layer_norm_backward (core ATen, imported by torch-mlir), with the
// forward's saved mean and rstd as row tensors ([rows, 1]):
//
//   xhat = (x - mean) * rstd,  g = dy * weight
//   dx   = (rstd / N) * ((g * N - rowsum(g)) - xhat * rowsum(g * xhat))
//
// as generics (the sums reduce the trailing dims):
//
//   %xhat = generic (x - mean[i]) * rstd[i]
//   %g    = generic dy * w[j]
//   %s1   = generic sum_j g              %s2 = generic sum_j g * xhat
//   %dx   = generic (rstd[i] / N) * ((g * N - s1[i]) - xhat * s2[i])
//
// becomes `sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w)`,
// and the column sums of dy * xhat and of dy (the weight and bias
// gradients) become its dweight and dbias results.
// The matcher flattens dx into rstd times a sum of three terms and checks
// each term's coefficient against rstd * (g - mean(g) - xhat mean(g xhat))
// (scales are free: N may sit on either side). Failures on something that
// got as far as the row sums are reported as remarks.
//
//===----------------------------------------------------------------------===//

#include "NormBackwardMatch.h"

#include "MatchUtils.h"

#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace sinter;
using namespace sinter::match;

/// Relative tolerance on a matched coefficient (the decomposition's
/// constants are f32: 1/N and the like are exact to ~1e-7).
constexpr double kCoefficientTolerance = 1e-6;

static bool nearCoefficient(double got, double want) {
  return std::fabs(got - want) <=
         kCoefficientTolerance * std::max(1.0, std::fabs(want));
}

namespace {

/// What the matched gradient reads.
struct NormBackwardMatch {
  Node *dy = nullptr, *x = nullptr, *mean = nullptr, *rstd = nullptr,
       *weight = nullptr;
  int64_t normalizedRank = 0;
  bool rms = false; // RMSNorm: no mean
  SetVector<Operation *> covered;
};

class NormBackwardMatcher {
public:
  explicit NormBackwardMatcher(Value root)
      : root(root), rootType(cast<RankedTensorType>(root.getType())),
        b(root.getContext(), rootType.getRank()) {}

  FailureOr<NormBackwardMatch> match(std::string &why);
  /// RMSNorm's input gradient as autograd writes it:
  /// dx = rstd * g - x * rstd^3 * rowsum(g * x) / N.
  FailureOr<NormBackwardMatch> matchRms(Node *top, std::string &why);
  /// Whether the root is dy * xhat with the leaves of `m`.
  bool isDyTimesXhat(const NormBackwardMatch &m);

private:
  /// A leaf read once per row: indices (d0, .., d_lead-1, 0, .., 0).
  bool isRowLeaf(Node *n, int64_t k);
  /// A leaf read like the gradient itself (identity over the root's dims).
  bool isFullLeaf(Node *n);
  /// A leaf of the normalized shape (the weight): trailing dims only.
  bool isColumnLeaf(Node *n, int64_t k);
  /// The leaves of a product, through every tensor (shared or not), and
  /// its scale; fails on a sum or a reduction among them unless allowed.
  bool leavesOf(Node *n, double &scale, SmallVector<Node *> &leaves,
                SmallVector<Node *> *reductions = nullptr);
  /// `s` as base^k for a constant 0 <= k <= 4 (math.fpowi), if it is one.
  std::optional<std::pair<Node *, int>> smallPower(Node *s);
  /// g = dy [* weight]: records dy and weight on the first call, checks
  /// them after.
  bool isG(ArrayRef<Node *> leaves, NormBackwardMatch &m);
  /// xhat = (x - mean) * rstd among `leaves` (the centred difference as a
  /// sub node), removed from them.
  bool takeXhat(SmallVector<Node *> &leaves, NormBackwardMatch &m);

  Value root;
  RankedTensorType rootType;
  ViewBuilder b;
};

} // namespace

/// The root dims a leaf view reads, in order, when each of its other
/// indices is a constant 0 into a unit dim (how views read batch-1 and
/// keepdim dims); nullopt for any other read.
static std::optional<SmallVector<int64_t>> readDims(Node *n) {
  if (n->kind != Node::Kind::View)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(n->value.getType());
  if (!type || type.getRank() != n->indices.getNumResults())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (auto [i, e] : llvm::enumerate(n->indices.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      dims.push_back(d.getPosition());
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0 || type.getDimSize(i) != 1)
      return std::nullopt;
  }
  return dims;
}

/// The root dims in [begin, end) that are not unit dims (views read unit
/// dims at 0, so a leaf "reads" only these).
static SmallVector<int64_t> nonUnitDims(RankedTensorType root, int64_t begin,
                                        int64_t end) {
  SmallVector<int64_t> dims;
  for (int64_t d = begin; d < end; ++d)
    if (root.getDimSize(d) != 1)
      dims.push_back(d);
  return dims;
}

bool NormBackwardMatcher::isRowLeaf(Node *n, int64_t k) {
  std::optional<SmallVector<int64_t>> dims = readDims(n);
  int64_t lead = rootType.getRank() - k;
  return dims && *dims == nonUnitDims(rootType, 0, lead) && !(*dims).empty();
}

bool NormBackwardMatcher::isFullLeaf(Node *n) {
  std::optional<SmallVector<int64_t>> dims = readDims(n);
  return dims && *dims == nonUnitDims(rootType, 0, rootType.getRank());
}

bool NormBackwardMatcher::isColumnLeaf(Node *n, int64_t k) {
  std::optional<SmallVector<int64_t>> dims = readDims(n);
  int64_t r = rootType.getRank();
  return dims && *dims == nonUnitDims(rootType, r - k, r) && !(*dims).empty();
}

std::optional<std::pair<Node *, int>> NormBackwardMatcher::smallPower(Node *s) {
  // A scalar fpowi the views expanded, or an elementwise generic whose
  // body is one fpowi of its input by a constant (views do not look into
  // bodies that capture the integer exponent).
  Node *base = nullptr;
  Value exponent;
  if (s->kind == Node::Kind::Op && isa<math::FPowIOp>(s->op)) {
    base = b.skip(stripExt(b, s->operands[0], nullptr));
    exponent = s->op->getOperand(1);
  } else if (s->kind == Node::Kind::View) {
    auto g = s->value.getDefiningOp<linalg::GenericOp>();
    if (!g || g.getNumDpsInputs() != 1 || g->getNumResults() != 1 ||
        !llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return std::nullopt;
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    auto pow = yield.getOperand(0).getDefiningOp<math::FPowIOp>();
    if (!pow || pow.getLhs() != g.getBody()->getArgument(0))
      return std::nullopt;
    base = b.skip(b.view(g.getDpsInputs()[0], s->indices));
    exponent = pow.getRhs();
  } else {
    return std::nullopt;
  }
  APInt k;
  if (!base || !matchPattern(exponent, m_ConstantInt(&k)) ||
      k.getSExtValue() < 0 || k.getSExtValue() > 4)
    return std::nullopt;
  return std::make_pair(base, static_cast<int>(k.getSExtValue()));
}

bool NormBackwardMatcher::leavesOf(Node *n, double &scale,
                                   SmallVector<Node *> &leaves,
                                   SmallVector<Node *> *reductions) {
  Product p = flattenProduct(b, n, nullptr, /*stopAtShared=*/false);
  if (!p.divisors.empty())
    return false;
  scale = p.scale;
  for (Node *f : p.factors) {
    Node *s = b.skip(stripExt(b, f, nullptr));
    if (s->kind == Node::Kind::Reduce) {
      if (!reductions)
        return false;
      reductions->push_back(s);
      continue;
    }
    // x^k with a small constant k (autograd writes rsqrt's derivative with
    // rstd^3, pow's with x^1): k factors of x.
    if (std::optional<std::pair<Node *, int>> pow = smallPower(s)) {
      for (int i = 0; i < pow->second; ++i)
        leaves.push_back(pow->first);
      continue;
    }
    leaves.push_back(s->kind == Node::Kind::View ? s : f);
  }
  return true;
}

bool NormBackwardMatcher::isG(ArrayRef<Node *> leaves, NormBackwardMatch &m) {
  Node *dy = nullptr, *w = nullptr;
  for (Node *l : leaves) {
    if (!dy && isFullLeaf(l))
      dy = l;
    else if (!w && m.normalizedRank > 0 && isColumnLeaf(l, m.normalizedRank))
      w = l;
    else
      return false;
  }
  if (!dy)
    return false;
  if (!m.dy) {
    m.dy = dy;
    m.weight = w;
    return true;
  }
  return same(b, m.dy, dy) &&
         ((!w && !m.weight) || (w && m.weight && same(b, w, m.weight)));
}

bool NormBackwardMatcher::takeXhat(SmallVector<Node *> &leaves,
                                   NormBackwardMatch &m) {
  // rstd: a row leaf equal to the one scaling dx.
  auto rstdIt = llvm::find_if(leaves, [&](Node *l) {
    return isRowLeaf(l, m.normalizedRank) && same(b, l, m.rstd);
  });
  if (rstdIt == leaves.end())
    return false;
  leaves.erase(rstdIt);
  // x - mean: a sub of a full leaf and a row leaf.
  for (auto it = leaves.begin(); it != leaves.end(); ++it) {
    Sum s = flattenSum(b, *it, nullptr);
    if (s.terms.size() != 2 || s.terms[0].second || !s.terms[1].second)
      continue;
    Node *x = b.skip(stripExt(b, s.terms[0].first, nullptr));
    Node *mean = b.skip(stripExt(b, s.terms[1].first, nullptr));
    if (!isFullLeaf(x) || !isRowLeaf(mean, m.normalizedRank))
      continue;
    if ((m.x && !same(b, m.x, x)) || (m.mean && !same(b, m.mean, mean)))
      return false;
    m.x = x;
    m.mean = mean;
    leaves.erase(it);
    return true;
  }
  return false;
}

bool NormBackwardMatcher::isDyTimesXhat(const NormBackwardMatch &matched) {
  // A fresh match state holding only the shape and the leaves' values: the
  // leaves here are nodes of this matcher's views.
  NormBackwardMatch m;
  m.normalizedRank = matched.normalizedRank;
  double scale;
  SmallVector<Node *> leaves;
  if (!leavesOf(b.skip(b.root(root)), scale, leaves) || scale != 1.0)
    return false;
  auto sameLeaf = [](Node *a, Node *b) {
    return a && b && a->value == b->value && a->indices == b->indices;
  };
  // rstd: the row leaf reading the matched rstd tensor.
  for (Node *l : leaves)
    if (isRowLeaf(l, m.normalizedRank) && sameLeaf(l, matched.rstd))
      m.rstd = l;
  if (!m.rstd || !takeXhat(leaves, m) || leaves.size() != 1)
    return false;
  return sameLeaf(m.x, matched.x) && sameLeaf(m.mean, matched.mean) &&
         sameLeaf(leaves.front(), matched.dy);
}

FailureOr<NormBackwardMatch> NormBackwardMatcher::matchRms(Node *top,
                                                           std::string &why) {
  NormBackwardMatch m;
  m.rms = true;
  Sum s = flattenSum(b, top, &m.covered, /*stopAtShared=*/false);
  if (s.terms.size() != 2)
    return failure();
  struct Term {
    double coeff;
    SmallVector<Node *> leaves, reductions;
  };
  SmallVector<Term> terms;
  for (auto [term, neg] : s.terms) {
    Term t;
    double scale;
    if (!leavesOf(term, scale, t.leaves, &t.reductions) ||
        t.reductions.size() > 1)
      return failure();
    t.coeff = (neg ? -1.0 : 1.0) * scale;
    terms.push_back(std::move(t));
  }
  // The rstd * g term first: it names dy, the weight and rstd.
  if (!terms[0].reductions.empty())
    std::swap(terms[0], terms[1]);
  Term &tg = terms[0], &tc = terms[1];
  if (!tg.reductions.empty() || tc.reductions.size() != 1)
    return failure();
  for (auto it = tg.leaves.begin(); it != tg.leaves.end() && !m.rstd; ++it)
    for (int64_t k = rootType.getRank(); k >= 1 && !m.rstd; --k)
      if (isRowLeaf(*it, k)) {
        m.rstd = *it;
        m.normalizedRank = k;
        tg.leaves.erase(it);
        break;
      }
  if (!m.rstd || !isG(tg.leaves, m))
    return failure();
  // x * rstd^3 * rowsum(dy * w * x) * c.
  Node *r = tc.reductions.front();
  std::optional<double> init = getConstant(b, r->operands[1]);
  if (!isa<arith::AddFOp>(r->combiner) || !init || *init != 0.0 ||
      static_cast<int64_t>(r->reducedDims.size()) != m.normalizedRank)
    return failure();
  double bodyScale;
  SmallVector<Node *> body;
  if (!leavesOf(r->operands[0], bodyScale, body))
    return failure();
  auto dyIt = llvm::find_if(body, [&](Node *l) { return same(b, l, m.dy); });
  if (dyIt == body.end())
    return failure();
  body.erase(dyIt);
  if (m.weight) {
    auto wIt =
        llvm::find_if(body, [&](Node *l) { return same(b, l, m.weight); });
    if (wIt == body.end())
      return failure();
    body.erase(wIt);
  }
  if (body.size() != 1 || !isFullLeaf(body.front()))
    return failure();
  m.x = body.front();
  int rstds = 0, xs = 0;
  for (Node *l : tc.leaves) {
    if (same(b, l, m.rstd))
      ++rstds;
    else if (same(b, l, m.x))
      ++xs;
    else
      return failure();
  }
  if (rstds != 3 || xs != 1) {
    why = "the correction term is not x * rstd^3 * rowsum(g * x)";
    return failure();
  }
  int64_t n = 1;
  for (int64_t d : rootType.getShape().take_back(m.normalizedRank))
    n *= d;
  double c = tc.coeff * bodyScale;
  if (!nearCoefficient(tg.coeff, 1.0) ||
      !nearCoefficient(c, -1.0 / static_cast<double>(n))) {
    why = "the coefficients are not those of RMSNorm's input gradient";
    return failure();
  }
  return m;
}

FailureOr<NormBackwardMatch> NormBackwardMatcher::match(std::string &why) {
  NormBackwardMatch m;
  Node *top = b.skip(b.root(root), &m.covered);
  if (top->kind == Node::Kind::Op && isa<arith::TruncFOp>(top->op))
    return failure(); // mixed precision: not yet
  // dx = scale * rstd * inner.
  Product p = flattenProduct(b, top, &m.covered, /*stopAtShared=*/true);
  if (p.factors.size() != 2 || !p.divisors.empty())
    return matchRms(top, why);
  Node *inner = nullptr;
  for (Node *f : p.factors) {
    Node *leaf = b.skip(stripExt(b, f, nullptr));
    // The row leaf with the most trailing zeros fixes the normalized rank.
    for (int64_t k = rootType.getRank(); k >= 1 && !m.rstd; --k)
      if (isRowLeaf(leaf, k)) {
        m.rstd = leaf;
        m.normalizedRank = k;
      }
    if (m.rstd != leaf)
      inner = f;
  }
  if (!m.rstd || !inner)
    return failure();
  Sum s = flattenSum(b, inner, &m.covered, /*stopAtShared=*/false);
  if (s.terms.size() != 3)
    return failure();
  double cG = 0, cSumG = 0, cXhat = 0;
  int found = 0;
  int64_t n = 1;
  for (int64_t d : rootType.getShape().take_back(m.normalizedRank))
    n *= d;
  for (auto [term, neg] : s.terms) {
    double scale;
    SmallVector<Node *> leaves, reductions;
    if (!leavesOf(term, scale, leaves, &reductions) || reductions.size() > 1)
      return failure();
    double sign = neg ? -1.0 : 1.0;
    if (reductions.empty()) { // g * c
      if (!isG(leaves, m))
        return failure();
      cG += sign * scale;
      found |= 1;
      continue;
    }
    Node *r = reductions.front();
    std::optional<double> init = getConstant(b, r->operands[1]);
    if (!isa<arith::AddFOp>(r->combiner) || !init || *init != 0.0 ||
        static_cast<int64_t>(r->reducedDims.size()) != m.normalizedRank) {
      why = "a row sum of the gradient is not a plain sum over the "
            "normalized dims";
      return failure();
    }
    double bodyScale;
    SmallVector<Node *> body;
    if (!leavesOf(r->operands[0], bodyScale, body))
      return failure();
    if (leaves.empty()) { // rowsum(g) * c
      if (!isG(body, m)) {
        why = "the row sum is not of dy * weight";
        return failure();
      }
      cSumG += sign * scale * bodyScale;
      found |= 2;
      continue;
    }
    // xhat * rowsum(g * xhat) * c
    if (!takeXhat(leaves, m) || !leaves.empty() || !takeXhat(body, m) ||
        !isG(body, m)) {
      why = "the correction term is not xhat * rowsum(dy * weight * xhat)";
      return failure();
    }
    cXhat += sign * scale * bodyScale;
    found |= 4;
  }
  if (found != 7 || !m.x) {
    why = "expected g, rowsum(g) and xhat * rowsum(g * xhat)";
    return failure();
  }
  // dx = rstd * (g - rowsum(g) / N - xhat * rowsum(g xhat) / N).
  double k = p.scale, invN = 1.0 / static_cast<double>(n);
  if (!nearCoefficient(k * cG, 1.0) || !nearCoefficient(k * cSumG, -invN) ||
      !nearCoefficient(k * cXhat, -invN)) {
    why = "the coefficients are not those of LayerNorm's input gradient";
    return failure();
  }
  return m;
}

/// `v` reshaped to `shape` (same elements; only unit dims differ): a
/// collapse to its non-unit dims, then an expand to `shape`. Null when the
/// non-unit dims differ.
static Value reshapeTo(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  auto nonUnit = [](ArrayRef<int64_t> s) {
    SmallVector<int64_t> r;
    for (int64_t d : s)
      if (d != 1)
        r.push_back(d);
    return r;
  };
  SmallVector<int64_t> core = nonUnit(type.getShape());
  if (core != nonUnit(shape) || core.empty())
    return Value();
  auto coreType = RankedTensorType::get(core, type.getElementType());
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (type != coreType) {
    auto re = getReassociationIndicesForReshape(type, coreType);
    if (!re)
      return Value();
    v = tensor::CollapseShapeOp::create(b, loc, coreType, v, *re);
  }
  if (coreType != target) {
    auto re = getReassociationIndicesForReshape(coreType, target);
    if (!re)
      return Value();
    v = tensor::ExpandShapeOp::create(b, loc, target, v, *re);
  }
  return v;
}

/// `v` in element type `to`: itself, or widened elementwise by arith.extf
/// when it holds a narrower float (the decomposition widens it where it
/// reads it, exactly). Null otherwise.
static Value widenTo(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
  if (!type || type.getElementType() == to)
    return v;
  auto from = dyn_cast<FloatType>(type.getElementType());
  auto wide = dyn_cast<FloatType>(to);
  if (!from || !wide || from.getWidth() >= wide.getWidth())
    return Value();
  return mapElements(b, loc, v, to, [&](OpBuilder &bb, Location l, Value x) {
    return arith::ExtFOp::create(bb, l, to, x).getResult();
  });
}

/// The narrow tensor `v` widens exactly (AOTAutograd's bf16 dy summed in
/// f32 for a bias gradient), else `v`.
static Value throughWidening(Value v) {
  Value narrow = widenedSource(v);
  return narrow ? narrow : v;
}

/// The tensor a column sum adds up, when `op` is one: a linalg.generic
/// that adds its one input over the `lead` leading dims, from zero, into a
/// tensor of the normalized shape (the weight or bias gradient of a norm).
static Value columnSumInput(Operation *op, int64_t lead) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1)
    return Value();
  unsigned rank = g.getNumLoops();
  auto iters = g.getIteratorTypesArray();
  for (unsigned i = 0; i < rank; ++i)
    if ((i < lead) != (iters[i] == utils::IteratorType::reduction))
      return Value();
  AffineMap in = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
  AffineMap out = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!in.isIdentity() || out.getNumResults() != rank - lead)
    return Value();
  for (unsigned i = 0; i < rank - lead; ++i) {
    auto d = dyn_cast<AffineDimExpr>(out.getResult(i));
    if (!d || d.getPosition() != lead + i)
      return Value();
  }
  Block *body = g.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != body ||
      !llvm::is_contained(add->getOperands(), body->getArgument(0)) ||
      !llvm::is_contained(add->getOperands(), body->getArgument(1)))
    return Value();
  auto fill = g.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  std::optional<double> zero;
  if (fill)
    if (auto c = fill.getInputs()[0].getDefiningOp<arith::ConstantFloatOp>())
      zero = c.value().convertToDouble();
  if (!zero || *zero != 0.0)
    return Value();
  return g.getDpsInputOperand(0)->get();
}

/// Whether `t` is dy * xhat with the leaves of `m` (read through a fresh
/// view of `t`).
static bool isDyTimesXhat(Value t, const NormBackwardMatch &m) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || !t.getDefiningOp<linalg::GenericOp>())
    return false;
  NormBackwardMatcher matcher(t);
  return matcher.isDyTimesXhat(m);
}

/// The weight and bias gradients of the gradient `m` among `candidates`:
/// column sums of dy * xhat and of dy whose users all come after `at`.
static std::pair<Operation *, Operation *>
findColumnSums(ArrayRef<Operation *> candidates,
               const llvm::DenseSet<Operation *> &erased,
               const NormBackwardMatch &m, int64_t lead, Operation *at) {
  Operation *dweight = nullptr, *dbias = nullptr;
  for (Operation *c : candidates) {
    if (erased.contains(c) || c->getBlock() != at->getBlock())
      continue;
    Value in = columnSumInput(c, lead);
    if (!in)
      continue;
    bool usersAfter = llvm::all_of(c->getUsers(), [&](Operation *u) {
      Operation *a = ancestorIn(at->getBlock(), u);
      return a && at->isBeforeInBlock(a);
    });
    if (!usersAfter)
      continue;
    if (!dbias && throughWidening(in) == throughWidening(m.dy->value))
      dbias = c;
    else if (!dweight && m.weight && isDyTimesXhat(in, m))
      dweight = c;
  }
  return {dweight, dbias};
}

int sinter::raiseNormBackwards(ArrayRef<Operation *> candidates,
                               llvm::DenseSet<Operation *> &erased) {
  int raised = 0;
  for (Operation *op : llvm::reverse(candidates)) {
    if (erased.contains(op) || op->getNumResults() != 1)
      continue;
    Value root = op->getResult(0);
    NormBackwardMatcher matcher(root);
    std::string why;
    FailureOr<NormBackwardMatch> m = matcher.match(why);
    if (failed(m)) {
      if (!why.empty())
        reportNearMiss(op, "norm_backward", why);
      continue;
    }
    StringRef pattern = m->rms ? "rms_norm_backward" : "layer_norm_backward";
    auto type = cast<RankedTensorType>(root.getType());
    int64_t lead = type.getRank() - m->normalizedRank;
    ArrayRef<int64_t> shape = type.getShape();
    OpBuilder builder(op);
    Location loc = op->getLoc();
    // The leaves in the op's shapes (views read unit dims at 0, so a leaf
    // may have them or not): x and dy of dx's shape, the statistics of the
    // leading shape, the weight of the normalized shape.
    // dy is read in its own float type (bf16 autocast leaves it in bf16;
    // the decomposition widens it, exactly, as the op's kernels do).
    Type element = type.getElementType();
    Value dy = reshapeTo(builder, loc, throughWidening(m->dy->value), shape);
    Value x = widenTo(builder, loc, reshapeTo(builder, loc, m->x->value, shape),
                      element);
    auto dyType =
        dyn_cast_or_null<RankedTensorType>(dy ? dy.getType() : Type());
    Value rstd =
        reshapeTo(builder, loc, m->rstd->value, shape.take_front(lead));
    Value mean = m->rms ? rstd
                        : reshapeTo(builder, loc, m->mean->value,
                                    shape.take_front(lead));
    if (!dy || !x || !mean || !rstd || !dyType ||
        dyType.getShape() != type.getShape() ||
        !isa<FloatType>(dyType.getElementType()) || x.getType() != type ||
        mean.getType() != rstd.getType() ||
        !cast<RankedTensorType>(rstd.getType()).getElementType().isF32()) {
      reportNearMiss(op, pattern,
                     "dy, x and dx differ in shape, x and dx in type, or "
                     "the statistics are not f32 rows");
      continue;
    }
    Value weight = m->weight ? reshapeTo(builder, loc, m->weight->value,
                                         shape.take_back(m->normalizedRank))
                             : Value();
    SmallVector<Operation *> ops(m->covered.begin(), m->covered.end());
    ops.push_back(op);
    Operation *bwd;
    if (m->rms) {
      // The weight gradient reads the forward's saved x * rstd, which this
      // graph cannot tell from another tensor: it stays a column sum.
      auto rmsBwd = RMSNormBackwardOp::create(builder, loc, type, Type(), dy, x,
                                              rstd, weight, m->normalizedRank);
      root.replaceAllUsesWith(rmsBwd.getGradInput());
      bwd = rmsBwd;
    } else {
      // The weight and bias gradients join the op when they are the plain
      // column sums (its kernel adds them in the same pass over the rows).
      auto [dwOp, dbOp] = findColumnSums(candidates, erased, *m, lead, op);
      auto lnBwd = LayerNormBackwardOp::create(
          builder, loc, type, dwOp ? dwOp->getResult(0).getType() : Type(),
          dbOp ? dbOp->getResult(0).getType() : Type(), dy, x, mean, rstd,
          weight, m->normalizedRank);
      root.replaceAllUsesWith(lnBwd.getGradInput());
      if (dwOp) {
        dwOp->getResult(0).replaceAllUsesWith(lnBwd.getGradWeight());
        ops.push_back(dwOp);
      }
      if (dbOp) {
        dbOp->getResult(0).replaceAllUsesWith(lnBwd.getGradBias());
        ops.push_back(dbOp);
      }
      bwd = lnBwd;
    }
    int64_t bytes = eraseMatched(ops, erased);
    reportFusion(bwd, pattern, bytes);
    ++raised;
  }
  return raised;
}
