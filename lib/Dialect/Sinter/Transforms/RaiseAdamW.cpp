//===- RaiseAdamW.cpp - Raise decomposed AdamW steps into sinter.adamw ----===//
//
// Part of the Sinter project.
//
// Recognises the per-parameter update of a functional AdamW step (as
// `torch.optim._functional.adamw(..., foreach=False)` decomposes it, with
// the hyperparameters and the step folded into constants) and rewrites the
// updates of all parameters that share hyperparameters into one multi-tensor
// `sinter.adamw`.
//
// The hyperparameters are recovered from the constants: beta1/beta2 from the
// moment updates, eps from the denominator, the step t from the bias
// correction sqrt(1 - beta2^t), lr from the step size lr / (1 - beta1^t) and
// the weight decay from the decay factor 1 - lr * wd. Each recovered value is
// the shortest decimal that reproduces every constant of the IR in f32, so
// the raised op computes the same numbers up to f32 rounding.
//
//===----------------------------------------------------------------------===//

#include "MatchUtils.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>
#include <tuple>

namespace sinter {
#define GEN_PASS_DEF_RAISEADAMW
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::match;

/// `a` and `b` round to f32 values at most `ulps` apart.
static bool f32Near(double a, double b, int ulps = 2) {
  float fa = static_cast<float>(a), fb = static_cast<float>(b);
  if (fa == fb)
    return true;
  float lo = std::fmin(fa, fb), hi = std::fmax(fa, fb);
  for (int i = 0; i < ulps; ++i)
    lo = std::nextafter(lo, hi);
  return lo >= hi;
}

/// The shortest decimal near `x` that satisfies `ok`, or `x` itself.
static double snap(double x, function_ref<bool(double)> ok) {
  for (int digits = 1; digits <= 17; ++digits) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::format("%.*g", digits, x);
    double d = std::strtod(s.c_str(), nullptr);
    if (ok(d))
      return d;
  }
  return x;
}

namespace {

struct AdamMatch {
  Operation *root = nullptr;
  Value p, g, m, v;
  Value newP, newM, newV; // newM/newV null when not materialized
  double beta1 = 0, beta2 = 0, eps = 0, lr = 0, wd = 0, step = 0;
  // A step computed at run time: an f32 scalar or a 0-d f32 tensor (then
  // `step` is unused).
  Value runtimeStep;
  SetVector<Operation *> covered;
};

struct MatchFailure {
  std::string reason;
  bool significant = false;
};

class AdamMatcher {
public:
  explicit AdamMatcher(Value root)
      : root(root), type(cast<RankedTensorType>(root.getType())),
        b(root.getContext(), type.getRank()) {}
  std::optional<AdamMatch> match(MatchFailure &why);

private:
  using Covered = SetVector<Operation *>;
  /// What the match has found, part by part, in the order it matches them.
  struct Parts {
    // p_new = decay * p - stepSize * m_new / den
    Node *paramLeaf = nullptr, *mNew = nullptr, *den = nullptr;
    double decay = 0, stepSize = 0;
    // A run-time step: the bias corrections 1 - beta^step are computed.
    Node *step1 = nullptr, *step2 = nullptr;
    double bcBeta1 = 0, bcBeta2 = 0;
    // den = sqrt(v_new) / sqrt(bc2) + eps
    std::optional<double> eps;
    Node *vNew = nullptr;
    double vScale = 0, bc2Sqrt = 0;
    // v_new = beta2 * v + (1 - beta2) * g * g
    Node *vLeaf = nullptr, *gLeaf = nullptr;
    double beta2 = 0, gg = 0;
    // m_new = beta1 * m + (1 - beta1) * g, or m + w * (g - m)
    Node *mLeaf = nullptr;
    double cm = 0, cg = 0, beta1 = 0;
  };

  std::nullopt_t miss(MatchFailure &why, const Twine &r) {
    why.reason = r.str();
    return std::nullopt;
  }
  /// As miss, for the parts' matchers.
  bool fail(MatchFailure &why, const Twine &r) {
    why.reason = r.str();
    return false;
  }
  bool matchUpdate(Node *rootView, Parts &u, MatchFailure &why, Covered *cov);
  bool matchStepTerm(const Product &p, bool neg, Parts &u, MatchFailure &why,
                     Covered *cov);
  bool matchDenominator(Parts &u, MatchFailure &why, Covered *cov);
  bool matchSecondMoment(Parts &u, MatchFailure &why, Covered *cov);
  bool matchFirstMoment(Parts &u, MatchFailure &why, Covered *cov);
  bool matchLerp(Node *f, double c, Parts &u, MatchFailure &why, Covered *cov);
  bool recoverBetas(Parts &u, MatchFailure &why);
  std::optional<AdamMatch> finish(AdamMatch &m, const Parts &u, double lr,
                                  MatchFailure &why);
  std::optional<AdamMatch> finishRuntimeStep(AdamMatch &m, const Parts &u,
                                             MatchFailure &why);
  std::optional<AdamMatch> finishConstantStep(AdamMatch &m, const Parts &u,
                                              MatchFailure &why);
  /// A leaf tensor of the root's type read at the same element.
  bool isLeaf(Node *n) {
    return isIdentityView(b, n) && n->value.getType() == type;
  }
  /// True when `n` has the same value at every element (constants, scalars,
  /// 0-d tensors and ops on them).
  bool isUniform(Node *n) {
    switch (n->kind) {
    case Node::Kind::Const:
    case Node::Kind::Scalar:
      return true;
    case Node::Kind::View:
      return llvm::all_of(
                 n->indices.getResults(),
                 [](AffineExpr e) { return isa<AffineConstantExpr>(e); }) ||
             (n->expanded && n->def && isUniform(n->def));
    case Node::Kind::Op:
      return llvm::all_of(n->operands, [&](Node *o) { return isUniform(o); });
    case Node::Kind::Reduce:
      return false;
    }
    return false;
  }
  /// Matches the bias correction `1 - beta^step` with a run-time step.
  bool matchBiasCorrection(Node *n, double &beta, Node *&step,
                           SetVector<Operation *> *cov) {
    Sum s = flattenSum(b, n, cov);
    if (s.terms.size() != 2)
      return false;
    bool one = false;
    Node *pw = nullptr;
    for (auto [t, neg] : s.terms) {
      if (!neg && getConstant(b, t) == 1.0)
        one = true;
      else if (neg && isOp(b, t, "math.powf"))
        pw = b.skip(t, cov);
    }
    if (!one || !pw)
      return false;
    std::optional<double> c = getConstant(b, pw->operands[0]);
    if (!c)
      return false;
    beta = *c;
    step = pw->operands[1];
    return true;
  }
  /// `sqrt(x)`, or `powf(x, 0.5)` as torch computes the bias correction.
  bool isSquareRoot(Node *n) {
    Node *s = b.skip(n);
    return isOp(b, s, "math.sqrt") ||
           (isOp(b, s, "math.powf") &&
            getConstant(b, s->operands[1]) == std::optional<double>(0.5));
  }
  /// Folds a uniform factor (`sign` 1) or divisor (-1) into `scale`:
  /// constants, negations, products and quotients of them; bias corrections
  /// `1 - beta^step` are collected with their exponent instead.
  bool foldUniform(Node *n, int sign, double &scale,
                   SmallVector<std::pair<Node *, int>> &corrections,
                   SetVector<Operation *> *cov) {
    double beta;
    Node *step;
    SetVector<Operation *> local;
    if (matchBiasCorrection(n, beta, step, &local)) {
      corrections.push_back({n, sign});
      return true;
    }
    Node *s = b.skip(n, cov);
    if (std::optional<double> c = getConstant(b, s)) {
      if (*c == 0.0)
        return false;
      scale = sign > 0 ? scale * *c : scale / *c;
      return true;
    }
    if (s->kind != Node::Kind::Op)
      return false;
    if (isa<arith::NegFOp>(s->op)) {
      scale = -scale;
      return foldUniform(s->operands[0], sign, scale, corrections, cov);
    }
    if (isa<arith::MulFOp>(s->op))
      return foldUniform(s->operands[0], sign, scale, corrections, cov) &&
             foldUniform(s->operands[1], sign, scale, corrections, cov);
    if (isa<arith::DivFOp>(s->op))
      return foldUniform(s->operands[0], sign, scale, corrections, cov) &&
             foldUniform(s->operands[1], -sign, scale, corrections, cov);
    return false;
  }

  /// The SSA value of a run-time step node: an f32 scalar or 0-d tensor.
  Value stepValue(Node *n) {
    if (n->kind == Node::Kind::Scalar && n->value.getType().isF32())
      return n->value;
    if (n->kind == Node::Kind::View && n->indices.getNumResults() == 0 &&
        getElementTypeOrSelf(n->value.getType()).isF32())
      return n->value;
    return {};
  }

  /// `n` = c * leaf; returns the leaf.
  Node *scaledLeaf(Node *n, double &c, SetVector<Operation *> *cov) {
    Product p = flattenProduct(b, n, cov);
    if (p.factors.size() != 1 || !p.divisors.empty())
      return nullptr;
    c = p.scale;
    return p.factors[0];
  }

  Value root;
  RankedTensorType type;
  ViewBuilder b;
};

} // namespace

// p_new = c0 * p - ss * m_new / den: the parameter's terms add up to the
// decay factor c0, the one term with a divisor is the step.
bool AdamMatcher::matchUpdate(Node *rootView, Parts &u, MatchFailure &why,
                              Covered *cov) {
  Sum top = flattenSum(b, rootView, cov);
  for (auto [t, neg] : top.terms) {
    Product p = flattenProduct(b, t, cov);
    if (!p.divisors.empty()) {
      if (!matchStepTerm(p, neg, u, why, cov))
        return false;
      continue;
    }
    if (p.factors.size() != 1)
      return fail(why, "unrecognised parameter term");
    if (u.paramLeaf && !same(b, u.paramLeaf, p.factors[0]))
      return fail(why, "two different parameters");
    u.paramLeaf = p.factors[0];
    u.decay += neg ? -p.scale : p.scale;
  }
  if (!u.den || !u.paramLeaf || !isLeaf(u.paramLeaf))
    return fail(why, "not a parameter update p - s * m / d");
  return true;
}

// m_new * (uniform: -lr / bc1, as torch computes it on 0-d tensors) / den,
// or with the uniform part among the divisors.
bool AdamMatcher::matchStepTerm(const Product &p, bool neg, Parts &u,
                                MatchFailure &why, Covered *cov) {
  SmallVector<Node *> factors, divisors;
  SmallVector<std::pair<Node *, int>> corrections;
  double uniform = 1.0;
  for (Node *f : p.factors) {
    if (!isUniform(b.skip(f)))
      factors.push_back(f);
    else if (!foldUniform(f, 1, uniform, corrections, cov))
      return fail(why, "the step size is not a constant over bias "
                       "correction");
  }
  for (Node *d : p.divisors) {
    if (!isUniform(b.skip(d)))
      divisors.push_back(d);
    else if (!foldUniform(d, -1, uniform, corrections, cov))
      return fail(why, "the step size is not a constant over bias "
                       "correction");
  }
  if (u.den || divisors.size() != 1 || factors.size() != 1 ||
      corrections.size() > 1)
    return fail(why, "unrecognised update term");
  if (corrections.size() == 1 &&
      (corrections[0].second != -1 ||
       !matchBiasCorrection(corrections[0].first, u.bcBeta1, u.step1, cov)))
    return fail(why, "the step size is not lr / (1 - beta1^step)");
  u.den = divisors[0];
  u.mNew = factors[0];
  u.stepSize = (neg ? p.scale : -p.scale) * uniform;
  return true;
}

// den = sqrt(v_new) / sqrt(bc2) + eps, or sqrt(v_new / bc2) + eps with a
// run-time step.
bool AdamMatcher::matchDenominator(Parts &u, MatchFailure &why, Covered *cov) {
  Sum ds = flattenSum(b, u.den, cov);
  Node *root2 = nullptr;
  for (auto [t, neg] : ds.terms) {
    if (std::optional<double> c = getConstant(b, t); c && !neg && !u.eps) {
      u.eps = *c;
      continue;
    }
    if (root2 || neg)
      return fail(why, "unrecognised denominator");
    root2 = t;
  }
  if (!root2)
    return fail(why, "unrecognised denominator");
  Product rp = flattenProduct(b, root2, cov);
  if (u.step1 && rp.divisors.size() == 1 && isSquareRoot(rp.divisors[0])) {
    // sqrt(v) / sqrt(1 - beta2^step)
    Node *sq = b.skip(rp.divisors[0], cov);
    if (!matchBiasCorrection(sq->operands[0], u.bcBeta2, u.step2, cov))
      return fail(why, "the denominator is not sqrt(v) / sqrt(bc2) + eps");
    rp.divisors.clear();
  }
  if (rp.factors.size() != 1 || !rp.divisors.empty() ||
      !isOp(b, rp.factors[0], "math.sqrt"))
    return fail(why, "the denominator is not sqrt(v) / sqrt(bc2) + eps");
  Node *sqrtNode = b.skip(rp.factors[0], cov);
  why.significant = true;
  Sum inner = flattenSum(b, sqrtNode->operands[0], nullptr);
  if (inner.terms.size() > 1 && llvm::any_of(inner.terms, [&](auto t) {
        return getConstant(b, t.first).has_value();
      }))
    return fail(why, "eps is added inside the square root");
  if (!u.eps || !(*u.eps > 0.0))
    return fail(why, "no positive eps is added to the denominator");
  if (u.step1 && !u.step2) {
    // sqrt(v / (1 - beta2^step))
    Product vp = flattenProduct(b, sqrtNode->operands[0], cov);
    if (vp.factors.size() == 1 && vp.divisors.size() == 1 &&
        matchBiasCorrection(vp.divisors[0], u.bcBeta2, u.step2, cov)) {
      u.vNew = vp.factors[0];
      u.vScale = vp.scale;
    }
  } else {
    u.vNew = scaledLeaf(sqrtNode->operands[0], u.vScale, cov);
  }
  if (!u.vNew || !(u.vScale > 0.0))
    return fail(why, "the square root is not of the second moment");
  u.bc2Sqrt = 1.0 / (rp.scale * std::sqrt(u.vScale));
  return true;
}

// v_new = beta2 * v + (1 - beta2) * g * g (or powf(g, 2)).
bool AdamMatcher::matchSecondMoment(Parts &u, MatchFailure &why, Covered *cov) {
  Sum vs = flattenSum(b, u.vNew, cov);
  if (vs.terms.size() != 2 || vs.terms[0].second || vs.terms[1].second)
    return fail(why, "the second moment is not beta2 * v + (1 - beta2) * g^2");
  for (auto [t, neg] : vs.terms) {
    Product p = flattenProduct(b, t, cov);
    if (!p.divisors.empty())
      return fail(why, "the second moment divides");
    if (p.factors.size() == 2 && same(b, p.factors[0], p.factors[1])) {
      u.gLeaf = p.factors[0];
      u.gg = p.scale;
    } else if (p.factors.size() == 1 && isOp(b, p.factors[0], "math.powf") &&
               getConstant(b, b.skip(p.factors[0])->operands[1]) == 2.0) {
      u.gLeaf = b.skip(p.factors[0], cov)->operands[0];
      u.gg = p.scale;
    } else if (p.factors.size() == 1) {
      u.vLeaf = p.factors[0];
      u.beta2 = p.scale;
    }
  }
  if (!u.vLeaf || !u.gLeaf || !isLeaf(u.vLeaf) || !isLeaf(u.gLeaf))
    return fail(why, "the second moment is not beta2 * v + (1 - beta2) * g^2");
  return true;
}

// m_new = beta1 * m + (1 - beta1) * g, or m + w * (g - m) (lerp).
bool AdamMatcher::matchFirstMoment(Parts &u, MatchFailure &why, Covered *cov) {
  Sum ms = flattenSum(b, u.mNew, cov);
  if (ms.terms.size() != 2 || ms.terms[0].second || ms.terms[1].second)
    return fail(why, "the first moment is not beta1 * m + (1 - beta1) * g");
  for (auto [t, neg] : ms.terms) {
    double c;
    Node *f = scaledLeaf(t, c, cov);
    if (!f)
      return fail(why, "the first moment is not beta1 * m + (1 - beta1) * g");
    if (isLeaf(f) && same(b, f, u.gLeaf)) {
      u.cg += c;
      continue;
    }
    // A difference (g - m) is the lerp's, even when it is a tensor of the
    // root's shape (torch computes it in a generic of its own).
    if (isLeaf(f) && !isOp(b, f, "arith.subf")) {
      if (u.mLeaf && !same(b, u.mLeaf, f))
        return fail(why, "the first moment mixes three tensors");
      u.mLeaf = f;
      u.cm += c;
      continue;
    }
    if (!matchLerp(f, c, u, why, cov))
      return false;
  }
  if (!u.mLeaf || !isLeaf(u.mLeaf))
    return fail(why, "the first moment is not beta1 * m + (1 - beta1) * g");
  if (same(b, u.mLeaf, u.vLeaf) || same(b, u.mLeaf, u.paramLeaf) ||
      same(b, u.vLeaf, u.paramLeaf))
    return fail(why, "the moments and the parameter are not distinct tensors");
  return true;
}

// The lerp's term c * (g - m).
bool AdamMatcher::matchLerp(Node *f, double c, Parts &u, MatchFailure &why,
                            Covered *cov) {
  Sum diff = flattenSum(b, f, cov);
  if (diff.terms.size() != 2)
    return fail(why, "the first moment is not beta1 * m + (1 - beta1) * g");
  for (auto [dt, dneg] : diff.terms) {
    if (!isLeaf(dt))
      return fail(why, "the first moment is not a lerp of m towards g");
    if (same(b, dt, u.gLeaf)) {
      u.cg += dneg ? -c : c;
    } else {
      if (u.mLeaf && !same(b, u.mLeaf, dt))
        return fail(why, "the first moment mixes three tensors");
      u.mLeaf = dt;
      u.cm += dneg ? -c : c;
    }
  }
  return true;
}

// beta1 and beta2 from the moments' coefficients, each the shortest decimal
// whose coefficients the IR's constants are.
bool AdamMatcher::recoverBetas(Parts &u, MatchFailure &why) {
  double cm = u.cm, cg = u.cg, gg = u.gg;
  u.beta1 = snap(
      cm, [&](double d) { return f32Near(d, cm) && f32Near(1.0 - d, cg); });
  if (!f32Near(u.beta1, cm) || !f32Near(1.0 - u.beta1, cg))
    return fail(why, "the first moment's coefficients do not sum to 1");
  u.beta2 = snap(u.beta2, [&, b2 = u.beta2](double d) {
    return f32Near(d, b2) && f32Near(1.0 - d, gg);
  });
  if (!f32Near(1.0 - u.beta2, gg))
    return fail(why, "the second moment's coefficients do not sum to 1");
  if (!(u.beta1 >= 0 && u.beta1 < 1 && u.beta2 >= 0 && u.beta2 < 1))
    return fail(why, "betas outside [0, 1)");
  return true;
}

// Completes the match once lr is known; the run-time-step and the
// constant-step forms differ only in how lr (and the step) are found.
std::optional<AdamMatch> AdamMatcher::finish(AdamMatch &m, const Parts &u,
                                             double lr, MatchFailure &why) {
  double wd = 0;
  double decay = u.decay;
  if (decay != 1.0) {
    wd = snap((1.0 - decay) / lr,
              [&](double d) { return f32Near(1.0 - lr * d, decay); });
    if (!(wd >= 0) || !f32Near(1.0 - lr * wd, decay))
      return miss(why, "the decay factor is not 1 - lr * weight_decay");
  }
  double eps = *u.eps;
  m.eps = snap(eps, [&](double d) { return f32Near(d, eps); });
  m.beta1 = u.beta1;
  m.beta2 = u.beta2;
  m.lr = lr;
  m.wd = wd;
  m.root = root.getDefiningOp();
  m.p = u.paramLeaf->value;
  m.g = u.gLeaf->value;
  m.m = u.mLeaf->value;
  m.v = u.vLeaf->value;
  m.newP = root;
  if (u.mNew->kind == Node::Kind::View && u.mNew->value.getType() == type)
    m.newM = u.mNew->value;
  if (u.vNew->kind == Node::Kind::View && u.vNew->value.getType() == type)
    m.newV = u.vNew->value;
  return m;
}

// Run-time step: the bias corrections are computed by the IR.
std::optional<AdamMatch> AdamMatcher::finishRuntimeStep(AdamMatch &m,
                                                        const Parts &u,
                                                        MatchFailure &why) {
  if (!u.step2 || !same(b, u.step1, u.step2))
    return miss(why, "the bias corrections use different steps");
  if (!f32Near(u.bcBeta1, u.beta1) || !f32Near(u.bcBeta2, u.beta2))
    return miss(why, "the bias corrections use other betas than the "
                     "moments");
  if (!f32Near(u.bc2Sqrt, 1.0))
    return miss(why, "the denominator has an extra constant factor");
  m.runtimeStep = stepValue(u.step1);
  // The step computations are shared by all parameters: not part of one
  // update (they are erased once no update uses them).
  m.covered.remove_if([](Operation *op) {
    return llvm::all_of(op->getResultTypes(), [](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      return !rt || rt.getRank() == 0;
    });
  });
  if (!m.runtimeStep)
    return miss(why, "the step is not an f32 scalar or 0-d tensor");
  double stepSize = u.stepSize;
  if (!(stepSize > 0))
    return miss(why, "the update does not move against the moment");
  return finish(m, u,
                snap(stepSize, [&](double d) { return f32Near(d, stepSize); }),
                why);
}

// A constant step t, recovered from the bias correction sqrt(1 - beta2^t).
std::optional<AdamMatch> AdamMatcher::finishConstantStep(AdamMatch &m,
                                                         const Parts &u,
                                                         MatchFailure &why) {
  double tReal = std::log(1.0 - u.bc2Sqrt * u.bc2Sqrt) / std::log(u.beta2);
  if (!std::isfinite(tReal) || tReal < 0.5 || tReal > 1e9)
    return miss(why, "no bias correction sqrt(1 - beta2^t) in the "
                     "denominator");
  double t = std::round(tReal);
  if (!f32Near(std::sqrt(1.0 - std::pow(u.beta2, t)), u.bc2Sqrt, 4))
    return miss(why, "the bias corrections do not come from an integer step");
  double bc1 = 1.0 - std::pow(u.beta1, t);
  double stepSize = u.stepSize;
  if (!(stepSize > 0))
    return miss(why, "the update does not move against the moment");
  m.step = t;
  return finish(m, u,
                snap(stepSize * bc1,
                     [&](double d) { return f32Near(d / bc1, stepSize); }),
                why);
}

std::optional<AdamMatch> AdamMatcher::match(MatchFailure &why) {
  AdamMatch m;
  Covered *cov = &m.covered;
  if (!type.getElementType().isF32())
    return miss(why, "not f32");
  Node *rootView = b.root(root);
  b.skip(rootView, cov);
  Parts u;
  if (!matchUpdate(rootView, u, why, cov) || !matchDenominator(u, why, cov) ||
      !matchSecondMoment(u, why, cov) || !matchFirstMoment(u, why, cov) ||
      !recoverBetas(u, why))
    return std::nullopt;
  return u.step1 ? finishRuntimeStep(m, u, why) : finishConstantStep(m, u, why);
}

namespace {
struct SinterRaiseAdamWPass
    : public sinter::impl::RaiseAdamWBase<SinterRaiseAdamWPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Position of `op` in its block, for ordering.
static bool before(Operation *a, Operation *b) { return a->isBeforeInBlock(b); }

/// Creates one sinter.adamw for `group` before `insertBefore`'s successor;
/// returns false when an outside user of a replaced value precedes it.
static bool emitGroup(ArrayRef<AdamMatch *> group,
                      DenseSet<Operation *> &erased,
                      DenseMap<Value, Value> &replaced) {
  // The op goes after the last matched op of the group.
  Operation *last = group.front()->root;
  for (AdamMatch *m : group)
    for (Operation *op : m->covered)
      if (before(last, op))
        last = op;
  Block *block = last->getBlock();
  llvm::SmallPtrSet<Operation *, 32> all;
  for (AdamMatch *m : group)
    all.insert(m->covered.begin(), m->covered.end());
  for (AdamMatch *m : group)
    for (Value v : {m->newP, m->newM, m->newV}) {
      if (!v)
        continue;
      for (Operation *user : v.getUsers()) {
        if (all.contains(user))
          continue;
        Operation *a = ancestorIn(block, user);
        if (!a || !before(last, a))
          return false;
      }
    }
  OpBuilder builder(block, std::next(Block::iterator(last)));
  Location loc = group.front()->root->getLoc();
  AdamMatch &h = *group.front();
  SmallVector<Value> params, grads, ms, vs;
  // A leaf may be the result of an update raised earlier (two steps).
  auto current = [&](Value v) { return replaced.lookup(v) ? replaced[v] : v; };
  for (AdamMatch *m : group) {
    params.push_back(current(m->p));
    grads.push_back(current(m->g));
    ms.push_back(current(m->m));
    vs.push_back(current(m->v));
  }
  Value lr = arith::ConstantOp::create(
      builder, loc, builder.getF32FloatAttr(static_cast<float>(h.lr)));
  Value step = h.runtimeStep;
  if (!step)
    step = arith::ConstantOp::create(
        builder, loc, builder.getF32FloatAttr(static_cast<float>(h.step)));
  else if (isa<RankedTensorType>(step.getType()))
    step = tensor::ExtractOp::create(builder, loc, step, ValueRange{});
  auto op = AdamWOp::create(
      builder, loc, params, grads, ms, vs, lr, step,
      builder.getF64FloatAttr(h.beta1), builder.getF64FloatAttr(h.beta2),
      builder.getF64FloatAttr(h.eps), builder.getF64FloatAttr(h.wd));
  // The new parameters and moments are still written.
  int64_t written = 0;
  for (AdamMatch *m : group)
    for (Value v : {m->newP, m->newM, m->newV})
      if (v)
        written += sinter::tensorBytes(v.getType());
  for (auto [i, m] : llvm::enumerate(group)) {
    auto outside = [&](OpOperand &u) { return !all.contains(u.getOwner()); };
    m->newP.replaceUsesWithIf(op.getNewParams()[i], outside);
    replaced[m->newP] = op.getNewParams()[i];
    if (m->newM) {
      m->newM.replaceUsesWithIf(op.getNewExpAvgs()[i], outside);
      replaced[m->newM] = op.getNewExpAvgs()[i];
    }
    if (m->newV) {
      m->newV.replaceUsesWithIf(op.getNewExpAvgSqs()[i], outside);
      replaced[m->newV] = op.getNewExpAvgSqs()[i];
    }
  }
  SmallVector<Operation *> ops;
  for (AdamMatch *m : group)
    llvm::append_range(ops, m->covered);
  reportFusion(op, "adamw", eraseMatched(ops, erased) - written);
  return true;
}

void SinterRaiseAdamWPass::runOnOperation() {
  SmallVector<Operation *> candidates;
  getOperation()->walk([&](Operation *op) {
    if (op->getNumResults() != 1 || op == getOperation())
      return;
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !t.getElementType().isF32())
      return;
    if (isa<linalg::LinalgOp>(op) || op->hasTrait<OpTrait::Elementwise>())
      candidates.push_back(op);
  });
  // Match every parameter update; claimed ops cannot be shared.
  std::vector<std::unique_ptr<AdamMatch>> matches;
  llvm::DenseSet<Operation *> claimed;
  for (Operation *op : llvm::reverse(candidates)) {
    if (claimed.contains(op))
      continue;
    AdamMatcher matcher(op->getResult(0));
    MatchFailure why;
    std::optional<AdamMatch> m = matcher.match(why);
    if (!m) {
      if (why.significant)
        reportNearMiss(op, "adamw", why.reason);
      continue;
    }
    // Every op of the update is in the root's block, claimed by no other
    // update, and only the new p, m and v leave it.
    SmallVector<Operation *> ops(m->covered.begin(), m->covered.end());
    bool ok = llvm::all_of(ops, [&](Operation *c) {
      return c->getBlock() == op->getBlock() && !claimed.contains(c);
    });
    if (!ok) {
      reportNearMiss(op, "adamw", "the update shares ops with another update");
      continue;
    }
    Operation *escaping = findEscapingOp(ops, [&](Value v) {
      return v == m->newP || (v && (v == m->newM || v == m->newV));
    });
    if (escaping) {
      reportNearMiss(op, "adamw",
                     "an intermediate of the update (a moment or the "
                     "denominator) has a user sinter.adamw cannot express");
      continue;
    }
    claimed.insert(ops.begin(), ops.end());
    matches.push_back(std::make_unique<AdamMatch>(std::move(*m)));
  }
  // Group by block and hyperparameters, in program order.
  using Key = std::tuple<Block *, uint64_t, uint64_t, uint64_t, uint64_t,
                         uint64_t, uint64_t>;
  llvm::MapVector<Key, SmallVector<AdamMatch *>> groups;
  auto bits = [](double d) { return llvm::bit_cast<uint64_t>(d); };
  for (auto &m : llvm::reverse(matches))
    groups[Key{m->root->getBlock(), bits(m->beta1), bits(m->beta2),
               bits(m->eps), bits(m->wd), bits(m->lr),
               m->runtimeStep ? reinterpret_cast<uintptr_t>(
                                    m->runtimeStep.getAsOpaquePointer())
                              : bits(m->step)}]
        .push_back(m.get());
  DenseSet<Operation *> erased;
  DenseMap<Value, Value> replaced;
  for (auto &[key, group] : groups) {
    llvm::sort(group, [](AdamMatch *a, AdamMatch *b) {
      return before(a->root, b->root);
    });
    if (emitGroup(group, erased, replaced))
      continue;
    // An outside user sits between the updates: one op per parameter.
    for (AdamMatch *m : group)
      if (!emitGroup({m}, erased, replaced))
        reportNearMiss(m->root, "adamw",
                       "a user of the new moments precedes the parameter "
                       "update");
  }
}
