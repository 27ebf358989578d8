//===- RaiseNorms.cpp - Raise decomposed LayerNorm/RMSNorm ----------------===//
//
// Part of the Sinter project.
//
// Recognises LayerNorm and RMSNorm as frontends decompose them (a sum
// reduction divided by the reduced size, a variance, `+ eps`, `rsqrt` or
// `1/sqrt`, the normalisation and the optional affine parameters) in
// linalg-on-tensors and rewrites each into one `sinter.layer_norm` or
// `sinter.rms_norm`. Matching works on element views (MatchUtils.h), so it
// does not depend on how the frontend split the computation into ops.
//
//===----------------------------------------------------------------------===//

#include "MatchUtils.h"
#include "NormBackwardMatch.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace sinter {
#define GEN_PASS_DEF_RAISENORMS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::match;

static std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

namespace {

/// A recognised normalization rooted at `root`.
struct NormMatch {
  bool rms = false;
  Value input, weight, bias;
  int64_t normalizedRank = 0;
  double epsilon = 0;
  SetVector<Operation *> covered;
  // The mean/rstd tensors of the decomposition, exposed as results of the
  // raised op when they have users outside the pattern.
  Value meanTensor, rstdTensor;
  bool exposeMean = false, exposeRstd = false;
};

/// Why a candidate failed; `significant` when it got far enough (a reduction
/// under a square root) to be worth a near-miss remark.
struct Failure {
  std::string reason;
  bool significant = false;
  Operation *reduction = nullptr;
};

class NormMatcher {
public:
  NormMatcher(Value root)
      : root(root), rootType(cast<RankedTensorType>(root.getType())),
        b(root.getContext(), rootType.getRank()) {}

  std::optional<NormMatch> match(Failure &why);

private:
  bool fail(Failure &why, const Twine &reason) {
    why.reason = reason.str();
    return false;
  }
  std::nullopt_t miss(Failure &why, const Twine &reason) {
    why.reason = reason.str();
    return std::nullopt;
  }
  /// The view of a leaf tensor read at `n`, through unit-dim reshapes.
  Node *leafView(Node *n);
  bool isTrailingIndex(Node *leaf, int64_t k);
  bool isIdentityIndex(Node *leaf);
  /// Matches `sum(body)/N` over the trailing dims; sets `reduce`.
  bool matchMeanOf(Node *n, Node *&body, Node *&reduce, Failure &why);
  /// Matches `rstd = 1/sqrt(var + eps)`'s argument `var + eps`.
  bool matchVarPlusEps(Node *arg, NormMatch &m, Sum &var, Failure &why);
  /// The base of `n` when `n` is base * base or pow(base, 2).
  Node *squareOf(Node *n);
  /// Matches the variance `vs` of the normalized value `centered`: the mean
  /// of (x - mean)^2 or E[x^2] - E[x]^2 (LayerNorm, sets `mean`) or the
  /// mean of x^2 (RMSNorm, sets m.rms); sets `x`.
  bool matchVariance(Node *centered, const Sum &vs, NormMatch &m, Node *&x,
                     Node *&mean, Failure &why);

  Value root;
  RankedTensorType rootType;
  ViewBuilder b;
  int64_t reducedRank = -1;
  SetVector<Operation *> *covered = nullptr;
};

} // namespace

Node *NormMatcher::leafView(Node *n) {
  while (n->kind == Node::Kind::View) {
    Node *s = b.skip(n);
    (void)s;
    if (!n->def || n->def->kind != Node::Kind::View)
      return n;
    n = n->def; // A unit-dim reshape.
  }
  return n;
}

bool NormMatcher::isIdentityIndex(Node *leaf) {
  return isIdentityView(b, leaf) &&
         cast<RankedTensorType>(leaf->value.getType()).getShape() ==
             rootType.getShape();
}

bool NormMatcher::isTrailingIndex(Node *leaf, int64_t k) {
  if (leaf->kind != Node::Kind::View || leaf->indices.getNumResults() < k)
    return false;
  int64_t r = rootType.getRank();
  int64_t lead = leaf->indices.getNumResults() - k;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(leaf->value.getType()).getShape();
  // Leading unit dims read at 0 (a [1, 1, C] weight), then the trailing dims.
  for (int64_t i = 0; i < lead; ++i) {
    auto c = dyn_cast<AffineConstantExpr>(leaf->indices.getResult(i));
    if (!c || c.getValue() != 0 || shape[i] != 1)
      return false;
  }
  for (int64_t i = 0; i < k; ++i) {
    auto d = dyn_cast<AffineDimExpr>(leaf->indices.getResult(lead + i));
    if (!d || d.getPosition() != r - k + i)
      return false;
  }
  return shape.drop_front(lead) == rootType.getShape().take_back(k);
}

/// A leaf that is not read like the normalized input (the identity over the
/// root's dims): a weight or bias candidate.
static bool isParamLike(ViewBuilder &b, Node *leaf, int64_t rootRank) {
  return leaf->kind == Node::Kind::View &&
         !(isIdentityView(b, leaf) &&
           leaf->indices.getNumResults() == rootRank);
}

/// `param` (a weight or bias, possibly with leading unit dims) reshaped to
/// the normalized shape of rank `k`.
static Value normalizedParam(OpBuilder &b, Value param, int64_t k) {
  auto t = cast<RankedTensorType>(param.getType());
  if (t.getRank() == k)
    return param;
  SmallVector<ReassociationIndices> reassoc(k);
  int64_t lead = t.getRank() - k;
  for (int64_t i = 0; i <= lead; ++i)
    reassoc[0].push_back(i);
  for (int64_t i = 1; i < k; ++i)
    reassoc[i].push_back(lead + i);
  return tensor::CollapseShapeOp::create(b, param.getLoc(), param, reassoc);
}

bool NormMatcher::matchMeanOf(Node *n, Node *&body, Node *&reduce,
                              Failure &why) {
  SetVector<Operation *> local;
  Product p = flattenProduct(b, n, &local);
  if (p.factors.size() != 1 || !p.divisors.empty())
    return fail(why, "expected a mean: a sum divided by the reduced size");
  Node *r = b.skip(p.factors[0], &local);
  if (r->kind != Node::Kind::Reduce || !isa<arith::AddFOp>(r->combiner))
    return fail(why, "expected a mean: a sum divided by the reduced size");
  why.reduction = r->op;
  std::optional<double> init = getConstant(b, r->operands[1]);
  if (!init || *init != 0.0)
    return fail(why, "the sum does not start from zero");
  int64_t rank = rootType.getRank();
  int64_t k = r->reducedDims.size();
  for (int64_t i = 0; i < k; ++i)
    if (r->reducedDims[i] != rank - k + i)
      return fail(why, "the reduction is over a non-trailing axis");
  if (reducedRank >= 0 && reducedRank != k)
    return fail(why, "the mean and the variance reduce different axes");
  reducedRank = k;
  int64_t count = 1;
  for (int64_t d : rootType.getShape().take_back(k)) {
    if (ShapedType::isDynamic(d))
      return fail(why, "the reduced size is dynamic");
    count *= d;
  }
  if (std::fabs(p.scale * static_cast<double>(count) - 1.0) > 1e-6)
    return fail(
        why, "the sum is divided by " +
                 llvm::formatv("{0}", llvm::format("%g", 1.0 / p.scale)).str() +
                 ", not by the reduced size " + Twine(count));
  body = r->operands[0];
  reduce = r;
  for (Operation *op : local)
    covered->insert(op);
  return true;
}

bool NormMatcher::matchVarPlusEps(Node *arg, NormMatch &m, Sum &var,
                                  Failure &why) {
  Sum s = flattenSum(b, arg, covered);
  std::optional<double> eps;
  for (auto [t, neg] : s.terms) {
    std::optional<double> c = getConstant(b, t);
    if (c && !neg && !eps)
      eps = *c;
    else
      var.terms.push_back({t, neg});
  }
  if (!eps || !(*eps > 0.0))
    return fail(why, "no positive epsilon is added to the variance");
  m.epsilon = *eps;
  if (var.terms.empty())
    return fail(why, "the square root's argument is not variance + epsilon");
  return true;
}

Node *NormMatcher::squareOf(Node *n) {
  SetVector<Operation *> local;
  Node *s = b.skip(n, &local);
  if (s->kind != Node::Kind::Op)
    return nullptr;
  Node *base = nullptr;
  if (isa<arith::MulFOp>(s->op) && same(b, s->operands[0], s->operands[1]))
    base = s->operands[0];
  else if (isa<math::PowFOp>(s->op) && getConstant(b, s->operands[1]) == 2.0)
    base = s->operands[0];
  if (base)
    covered->insert(local.begin(), local.end());
  return base;
}

bool NormMatcher::matchVariance(Node *centered, const Sum &vs, NormMatch &m,
                                Node *&x, Node *&mean, Failure &why) {
  Node *varBody, *varReduce, *meanReduce = nullptr;
  SetVector<Operation *> centeredOps;
  Node *centeredStripped = b.skip(centered, &centeredOps);
  // LayerNorm when the normalized value is x minus a reduction-based term.
  bool layerNorm = false;
  if (centeredStripped->kind == Node::Kind::Op &&
      isa<arith::SubFOp>(centeredStripped->op)) {
    Product mp = flattenProduct(b, centeredStripped->operands[1], nullptr);
    layerNorm = llvm::any_of(mp.factors, [&](Node *f) {
      return b.skip(f)->kind == Node::Kind::Reduce;
    });
  }
  if (layerNorm) {
    covered->insert(centeredOps.begin(), centeredOps.end());
    x = stripExt(b, centeredStripped->operands[0], nullptr);
    mean = centeredStripped->operands[1];
    Node *meanBody;
    why.significant = true;
    if (!matchMeanOf(mean, meanBody, meanReduce, why))
      return false;
    if (!same(b, stripExt(b, meanBody, nullptr), x))
      return fail(why, "the mean is not taken over the normalized input");
    if (vs.terms.size() == 1 && !vs.terms[0].second) {
      // var = mean((x - mean)^2)
      if (!matchMeanOf(vs.terms[0].first, varBody, varReduce, why))
        return false;
      Node *dev = squareOf(varBody);
      if (!dev || !same(b, dev, centeredStripped))
        return fail(why, "the variance is not the mean of (x - mean)^2");
    } else if (vs.terms.size() == 2 &&
               vs.terms[0].second != vs.terms[1].second) {
      // var = mean(x^2) - mean^2
      Node *pos = vs.terms[0].second ? vs.terms[1].first : vs.terms[0].first;
      Node *neg = vs.terms[0].second ? vs.terms[0].first : vs.terms[1].first;
      if (!matchMeanOf(pos, varBody, varReduce, why))
        return false;
      Node *sq = squareOf(varBody);
      Node *msq = squareOf(neg);
      if (!sq || !same(b, stripExt(b, sq, nullptr), x) || !msq ||
          !same(b, msq, mean))
        return fail(why, "the variance is not E[x^2] - E[x]^2");
    } else {
      return fail(why, "unrecognised variance");
    }
  } else {
    // RMSNorm: x * rsqrt(mean(x^2) + eps)
    x = stripExt(b, centered, nullptr);
    if (vs.terms.size() != 1 || vs.terms[0].second)
      return fail(why, "unrecognised mean of squares");
    why.significant = true;
    if (!matchMeanOf(vs.terms[0].first, varBody, varReduce, why))
      return false;
    Node *sq = squareOf(varBody);
    if (!sq || !same(b, stripExt(b, sq, nullptr), x))
      return fail(why, "the reduction is not the mean of x^2");
    m.rms = true;
  }

  return true;
}

std::optional<NormMatch> NormMatcher::match(Failure &why) {
  NormMatch m;
  covered = &m.covered;
  Node *top = b.skip(b.root(root), covered);
  Type f32 = Float32Type::get(root.getContext());
  // Mixed precision: the decomposition runs in f32 between extf and truncf,
  // or entirely in the input's f16/bf16 (F.rms_norm on bf16 tensors): the op
  // then computes in f32, rounding once, which is more accurate.
  Node *core = top;
  Type computeType = rootType.getElementType();
  if (top->kind == Node::Kind::Op && isa<arith::TruncFOp>(top->op)) {
    core = top->operands[0];
    computeType = f32;
  } else if (!isa<Float32Type, Float16Type, BFloat16Type>(computeType)) {
    return miss(why, "computed in " + typeStr(computeType) +
                         "; sinter norms take f16, bf16 or f32");
  }

  // Optional bias: core = normalized + bias.
  Node *biasLeaf = nullptr;
  Node *product = core;
  {
    SetVector<Operation *> local;
    Sum s = flattenSum(b, core, &local, /*stopAtShared=*/true);
    if (s.terms.size() == 2 && !s.terms[0].second && !s.terms[1].second) {
      // The bias is the term that is not a product containing the rstd.
      for (int i = 0; i < 2; ++i) {
        Node *leaf = leafView(stripExt(b, s.terms[i].first, nullptr));
        if (leaf->kind == Node::Kind::View &&
            isParamLike(b, leaf, rootType.getRank())) {
          biasLeaf = leaf;
          product = s.terms[1 - i].first;
          covered->insert(local.begin(), local.end());
          break;
        }
      }
    }
  }

  Product p = flattenProduct(b, product, covered, /*stopAtShared=*/true);
  if (std::fabs(p.scale - 1.0) > 1e-7)
    return miss(why, "the normalized value is scaled by a constant");

  // Find 1/sqrt(var + eps): a rsqrt factor or a sqrt divisor.
  Node *rstdArg = nullptr;
  Node *rstdNode = nullptr;
  SmallVector<Node *> others;
  for (Node *f : p.factors) {
    SetVector<Operation *> local;
    Node *s = b.skip(f, &local);
    if (!rstdArg && s->kind == Node::Kind::Op && isa<math::RsqrtOp>(s->op)) {
      rstdArg = s->operands[0];
      rstdNode = f;
      covered->insert(local.begin(), local.end());
      continue;
    }
    others.push_back(f);
  }
  for (Node *d : p.divisors) {
    SetVector<Operation *> local;
    Node *s = b.skip(d, &local);
    if (!rstdArg && s->kind == Node::Kind::Op && isa<math::SqrtOp>(s->op)) {
      rstdArg = s->operands[0];
      rstdNode = d;
      covered->insert(local.begin(), local.end());
      continue;
    }
    // `x / (sqrt(var) + eps)`: epsilon in the wrong place.
    Sum s2 = flattenSum(b, d, nullptr);
    for (auto [t, neg] : s2.terms)
      if (isOp(b, t, "math.sqrt") && s2.terms.size() == 2) {
        why.significant = true;
        SetVector<Operation *> local;
        b.skip(d, &local);
        why.reduction = local.empty() ? nullptr : local.front();
        return miss(why, "epsilon is added after the square root, not to "
                         "the variance");
      }
    return miss(why, "the normalized value is divided by something other "
                     "than sqrt(variance + epsilon)");
  }
  if (!rstdArg)
    return miss(why, "no rsqrt(variance + epsilon) factor");

  Sum vs;
  if (!matchVarPlusEps(rstdArg, m, vs, why))
    return std::nullopt;

  // Split the other factors into the normalized input and the weight.
  Node *centered = nullptr;
  Node *weightLeaf = nullptr;
  // A factor that is neither reported once the rest is known to be a norm.
  bool badFactor = false;
  for (Node *f : others) {
    Node *stripped = stripExt(b, f, nullptr);
    Node *leaf = leafView(stripped);
    if (!centered &&
        (isOp(b, stripped, "arith.subf") || isIdentityIndex(stripped))) {
      centered = f;
      continue;
    }
    if (!weightLeaf && isParamLike(b, leaf, rootType.getRank())) {
      weightLeaf = leaf;
      continue;
    }
    badFactor = true;
  }
  if (!centered)
    return miss(why, "no normalized input among the factors");

  Node *x = nullptr, *mean = nullptr;
  if (!matchVariance(centered, vs, m, x, mean, why))
    return std::nullopt;

  if (badFactor)
    return miss(why, "the normalized value is multiplied by a tensor that is "
                     "not a weight of the normalized shape");
  // The input: a tensor of the root's shape read at the same element.
  Node *xLeaf = x->kind == Node::Kind::View ? x : nullptr;
  if (!xLeaf || !isIdentityIndex(xLeaf))
    return miss(why, "the normalized input is not a tensor of the output's "
                     "shape");
  // The output may round to another float type than the input's (an f32
  // residual normalized into the bf16 a matmul reads): the op takes it.
  auto xType = cast<RankedTensorType>(xLeaf->value.getType());
  if (xType.getShape() != rootType.getShape() ||
      !isa<FloatType>(rootType.getElementType()))
    return miss(why, "the output is not a float tensor of the input's "
                     "shape " +
                         typeStr(xType));
  // The arithmetic must be f32 (the ops' contract).
  Node *coreOp = b.skip(core);
  if (coreOp->kind != Node::Kind::Op ||
      getElementTypeOrSelf(coreOp->op->getResult(0).getType()) != computeType)
    return miss(why,
                "the decomposition is not computed in " + typeStr(computeType));
  m.input = xLeaf->value;
  m.normalizedRank = reducedRank;
  if (weightLeaf) {
    if (!isTrailingIndex(weightLeaf, reducedRank))
      return miss(why, "the weight does not have the normalized shape");
    m.weight = weightLeaf->value;
  }
  if (biasLeaf) {
    if (m.rms)
      return miss(why, "RMSNorm has no bias");
    if (!isTrailingIndex(biasLeaf, reducedRank))
      return miss(why, "the bias does not have the normalized shape");
    m.bias = biasLeaf->value;
  }
  if (!m.rms && mean->kind == Node::Kind::View)
    m.meanTensor = mean->value;
  if (rstdNode->kind == Node::Kind::View &&
      b.skip(rstdNode)->kind == Node::Kind::Op &&
      isa<math::RsqrtOp>(b.skip(rstdNode)->op))
    m.rstdTensor = rstdNode->value;
  return m;
}

/// `v`'s type is the statistics type of a norm of `input`: f32 with the
/// leading shape, possibly followed by `k` unit dims (keepdim).
static bool isStatsType(Value v, RankedTensorType input, int64_t k) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.getElementType().isF32())
    return false;
  ArrayRef<int64_t> lead = input.getShape().drop_back(k);
  if (t.getShape() == lead)
    return true;
  return t.getRank() == input.getRank() &&
         t.getShape().take_front(lead.size()) == lead &&
         llvm::all_of(t.getShape().take_back(k),
                      [](int64_t d) { return d == 1; });
}

/// Whether `op` is a generic that yields its one input unchanged (a
/// broadcast or a copy).
static bool isBroadcastCopy(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g->getNumResults() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == g.getBody()->getArgument(0);
}

/// The statistic `v` is a form of: reshapes (keepdim `lead x 1` and
/// collapsed `lead`) and broadcasts peeled, so that all forms of one
/// statistic have the same base.
static Value statBase(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def) &&
        !isBroadcastCopy(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Rewrites `stat` (an exposed statistic of shape `lead` or `lead x 1..1`)
/// to `replacement` (of shape `lead`).
static void replaceStat(OpBuilder &builder, Value stat, Value replacement) {
  Value v = replacement;
  auto want = cast<RankedTensorType>(stat.getType());
  auto have = cast<RankedTensorType>(replacement.getType());
  if (want != have) {
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t i = 0; i < have.getRank(); ++i)
      reassoc.push_back({i});
    if (!reassoc.empty())
      for (int64_t i = have.getRank(); i < want.getRank(); ++i)
        reassoc.back().push_back(i);
    v = tensor::ExpandShapeOp::create(builder, replacement.getLoc(), want,
                                      replacement, reassoc);
  }
  stat.replaceAllUsesWith(v);
}

/// Replaces the decomposition rooted at `op` (result `root`) by the norm op
/// `m` describes, its statistics results standing for `meanForms` and
/// `rstdForms` (the forms used outside the pattern); returns the op.
static Operation *buildRaisedNorm(Operation *op, Value root, const NormMatch &m,
                                  ArrayRef<Value> meanForms,
                                  ArrayRef<Value> rstdForms) {
  auto inputType = cast<RankedTensorType>(m.input.getType());
  // The output's type: the input's, or the float type the root rounds to.
  auto outputType = cast<RankedTensorType>(root.getType());
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto statType = RankedTensorType::get(
      inputType.getShape().drop_back(m.normalizedRank), builder.getF32Type());
  Value weight =
      m.weight ? normalizedParam(builder, m.weight, m.normalizedRank) : Value();
  Value bias =
      m.bias ? normalizedParam(builder, m.bias, m.normalizedRank) : Value();
  if (m.rms) {
    auto norm = RMSNormOp::create(
        builder, loc, outputType, m.exposeRstd ? statType : Type(), m.input,
        weight, m.normalizedRank, APFloat(static_cast<float>(m.epsilon)));
    for (Value form : rstdForms)
      replaceStat(builder, form, norm.getRstd());
    root.replaceAllUsesWith(norm.getOutput());
    return norm;
  }
  auto norm = LayerNormOp::create(
      builder, loc, outputType, m.exposeMean ? statType : Type(),
      m.exposeRstd ? statType : Type(), m.input, weight, bias, m.normalizedRank,
      APFloat(static_cast<float>(m.epsilon)));
  for (Value form : meanForms)
    replaceStat(builder, form, norm.getMean());
  for (Value form : rstdForms)
    replaceStat(builder, form, norm.getRstd());
  root.replaceAllUsesWith(norm.getOutput());
  return norm;
}

namespace {
struct SinterRaiseNormsPass
    : public sinter::impl::RaiseNormsBase<SinterRaiseNormsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void SinterRaiseNormsPass::runOnOperation() {
  SmallVector<Operation *> candidates;
  getOperation()->walk([&](Operation *op) {
    if (op->getNumResults() != 1 || op == getOperation())
      return;
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !isa<FloatType>(t.getElementType()))
      return;
    if (isa<linalg::LinalgOp>(op) || op->hasTrait<OpTrait::Elementwise>())
      candidates.push_back(op);
  });
  llvm::DenseSet<Operation *> erased;
  llvm::DenseSet<Operation *> reported;
  for (Operation *op : llvm::reverse(candidates)) {
    if (erased.contains(op))
      continue;
    Value root = op->getResult(0);
    NormMatcher matcher(root);
    Failure why;
    std::optional<NormMatch> m = matcher.match(why);
    StringRef pattern = m && m->rms ? "rms_norm" : "layer_norm";
    if (m) {
      // Intermediates may not escape, except the mean and rstd tensors (in
      // their keepdim or collapsed form: AOTAutograd's forward graphs
      // return the keepdim ones, saved for the backward), which become
      // results of the raised op.
      SmallVector<Operation *> ops(m->covered.begin(), m->covered.end());
      auto inputType = cast<RankedTensorType>(m->input.getType());
      auto isStat = [&](Value v, Value stat) {
        return stat && statBase(v) == statBase(stat) &&
               isStatsType(v, inputType, m->normalizedRank);
      };
      Operation *escaping = findEscapingOp(ops, [&](Value v) {
        return v == root || isStat(v, m->meanTensor) ||
               isStat(v, m->rstdTensor);
      });

      llvm::SmallPtrSet<Operation *, 16> coveredSet(ops.begin(), ops.end());
      auto usedOutside = [&](Value v) {
        return v && llvm::any_of(v.getUsers(), [&](Operation *u) {
                 return !coveredSet.contains(u);
               });
      };
      // Every form of each statistic that is used outside the pattern.
      SmallVector<Value> meanForms, rstdForms;
      for (Operation *c : ops)
        for (Value r : c->getResults()) {
          if (!usedOutside(r))
            continue;
          if (!m->rms && isStat(r, m->meanTensor))
            meanForms.push_back(r);
          else if (isStat(r, m->rstdTensor))
            rstdForms.push_back(r);
        }
      m->exposeMean = !meanForms.empty();
      m->exposeRstd = !rstdForms.empty();
      // The raised op replaces the statistics where the root is: their
      // other users must come after it.
      auto usersAfterRoot = [&](Value v) {
        return llvm::all_of(v.getUsers(), [&](Operation *u) {
          if (coveredSet.contains(u))
            return true;
          Operation *a = ancestorIn(op->getBlock(), u);
          return a && op->isBeforeInBlock(a);
        });
      };
      if (!llvm::all_of(meanForms, usersAfterRoot) ||
          !llvm::all_of(rstdForms, usersAfterRoot)) {
        why.reason = "a user of the mean or rstd comes before the "
                     "normalized output";
        if (!reported.contains(op)) {
          reported.insert(op);
          reportNearMiss(op, pattern, why.reason);
        }
        continue;
      }
      if (escaping) {
        why.reason = "an intermediate of the decomposition has a user "
                     "outside it";
        why.significant = true;
        why.reduction = nullptr;
        if (!reported.contains(escaping)) {
          reported.insert(escaping);
          reportNearMiss(op, pattern, why.reason);
        }
        continue;
      }
      Operation *fused = buildRaisedNorm(op, root, *m, meanForms, rstdForms);
      // The output and the exposed statistics are still written.
      int64_t written = sinter::tensorBytes(root.getType());
      for (Value form : llvm::concat<Value>(meanForms, rstdForms))
        written += sinter::tensorBytes(form.getType());
      int64_t bytes = eraseMatched(ops, erased) - written;
      reportFusion(fused, pattern, bytes);
      continue;
    }
    Operation *key = why.reduction ? why.reduction : op;
    if (why.significant && !reported.contains(key)) {
      reported.insert(key);
      reportNearMiss(op, "norm", why.reason);
    }
  }
  // Then the input gradients of LayerNorms (AOTAutograd's backward graphs).
  SmallVector<Operation *> left;
  for (Operation *op : candidates)
    if (!erased.contains(op))
      left.push_back(op);
  sinter::raiseNormBackwards(left, erased);
}
