//===- RaiseSoftmax.cpp - Raise softmax chains to sinter.softmax ----------===//
//
// Part of the Sinter project.
//
// Recognises `linalg.softmax` and the decomposed numerically stable softmax
// frontends emit (max reduction, subtraction of the broadcast row max, exp,
// sum reduction, division) and replaces each with one `sinter.softmax`.
// Matching works on element views (MatchUtils.h): the chain may be split
// into ops or merged into generics in any way, and the broadcasts back along
// the reduced axis may go through unit-dim reshapes.
//
//===----------------------------------------------------------------------===//

#include "MatchUtils.h"
#include "SoftmaxMatch.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace sinter {
#define GEN_PASS_DEF_RAISESOFTMAX
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::match;

/// True when `c` is -inf or the lowest finite value of `type`.
static bool isLowest(double c, Type type) {
  if (std::isinf(c) && c < 0)
    return true;
  auto ft = dyn_cast<FloatType>(type);
  if (!ft)
    return false;
  double lowest = llvm::APFloat::getLargest(ft.getFloatSemantics(),
                                            /*Negative=*/true)
                      .convertToDouble();
  return c == lowest || c == -3.4028234663852886e38;
}

/// A uniform scalar multiply (or divide) of one tensor: `scale * x`.
std::optional<double> sinter::matchUniformScale(Operation *op, Value &source) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.hasIndexSemantics() ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  // The body: constants, one multiply or divide, the yield.
  Block *body = generic.getBlock();
  Operation *arith = nullptr;
  for (Operation &op : body->without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (arith)
      return std::nullopt;
    arith = &op;
  }
  if (!isa_and_nonnull<arith::MulFOp, arith::DivFOp>(arith) ||
      body->getTerminator()->getOperand(0) != arith->getResult(0))
    return std::nullopt;
  Value in = body->getArgument(0);
  Value lhs = arith->getOperand(0), rhs = arith->getOperand(1);
  Value c = lhs == in ? rhs : (rhs == in ? lhs : Value());
  if (!c || (isa<arith::DivFOp>(arith) && lhs != in))
    return std::nullopt;
  FloatAttr attr;
  if (auto cst = c.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<FloatAttr>(cst.getValue());
  if (!attr)
    return std::nullopt;
  double v = attr.getValueAsDouble();
  if (!std::isfinite(v) || v == 0.0)
    return std::nullopt;
  source = generic.getDpsInputs()[0];
  if (source.getType() != generic.getResult(0).getType())
    return std::nullopt;
  return isa<arith::DivFOp>(arith) ? 1.0 / v : v;
}

std::optional<SoftmaxMatch> sinter::matchSoftmax(Value result,
                                                 SoftmaxMiss &why) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !isa<FloatType>(type.getElementType()) || type.getRank() == 0)
    return std::nullopt;
  SoftmaxMatch m;
  m.result = result;

  if (auto sm = result.getDefiningOp<linalg::SoftmaxOp>()) {
    if (sm.getInput().getType() != type)
      return std::nullopt;
    m.input = sm.getInput();
    m.dim = sm.getDimension();
    m.covered.insert(sm);
    return m;
  }

  Operation *rootOp = result.getDefiningOp();
  if (!rootOp)
    return std::nullopt;
  ViewBuilder b(result.getContext(), type.getRank());
  SetVector<Operation *> &covered = m.covered;
  Node *top = b.skip(b.root(result), &covered);
  if (top->kind != Node::Kind::Op ||
      !isa<arith::DivFOp, arith::MulFOp>(top->op))
    return std::nullopt;

  // exp(...) / sum(exp(...)), also as exp(...) * (1 / sum(...)).
  Product p = flattenProduct(b, top, &covered);
  if (p.factors.size() != 1 || p.divisors.size() != 1 || p.scale != 1.0)
    return std::nullopt;
  Node *num = b.skip(p.factors[0], &covered);
  Node *den = b.skip(p.divisors[0], &covered);
  if (num->kind != Node::Kind::Op || !isa<math::ExpOp>(num->op) ||
      den->kind != Node::Kind::Reduce || !isa<arith::AddFOp>(den->combiner))
    return std::nullopt;
  // From here on it looks like a softmax: rejections are near misses.
  why.significant = true;
  auto miss = [&](const Twine &r) {
    why.reason = r.str();
    return std::nullopt;
  };
  std::optional<double> sumInit = getConstant(b, den->operands[1]);
  if (!sumInit || *sumInit != 0.0)
    return miss("the sum of exponentials does not start from zero");
  if (den->reducedDims.size() != 1)
    return miss("the sum reduces more than one axis");
  if (!same(b, den->operands[0], p.factors[0]))
    return miss("the sum does not add up the exponentials it divides "
                "(different tensor or axis)");
  int64_t dim = den->reducedDims[0];

  // exp(x - max(x)): the subtraction itself (flattening further would look
  // into the producer of x).
  Node *shifted = b.skip(num->operands[0], &covered);
  if (shifted->kind != Node::Kind::Op || !isa<arith::SubFOp>(shifted->op))
    return miss("the exponent is not the input minus its row maximum");
  Node *x = shifted->operands[0];
  Node *mxView = shifted->operands[1];
  Node *mx = b.skip(mxView, &covered);
  if (mx->kind != Node::Kind::Reduce ||
      !isa<arith::MaximumFOp, arith::MaxNumFOp>(mx->combiner))
    return miss("the value subtracted before exp is not a row maximum");
  if (mx->reducedDims.size() != 1 || mx->reducedDims[0] != dim)
    return miss("the maximum and the sum reduce different axes");
  std::optional<double> maxInit = getConstant(b, mx->operands[1]);
  if (!maxInit || !isLowest(*maxInit, type.getElementType()))
    return miss("the row maximum does not start from -inf or the lowest "
                "value");
  if (!same(b, mx->operands[0], x))
    return miss("the row maximum is not taken over the tensor it is "
                "subtracted from");
  // The input: the tensor the maximum reads, element for element.
  Node *in = mx->operands[0];
  if (!isIdentityView(b, in) ||
      in->value.getType() != type)
    return miss("the softmax input is read through a broadcast, transpose "
                "or type change");
  m.input = in->value;
  m.dim = dim;
  // Only the ops between the input and the result belong to the match.
  if (Operation *def = m.input.getDefiningOp())
    covered.remove(def);
  covered.insert(rootOp);
  // An optional uniform scale of the input becomes the `scale` attribute.
  if (Operation *def = m.input.getDefiningOp()) {
    Value source;
    if (std::optional<double> c = matchUniformScale(def, source)) {
      bool onlyChain = llvm::all_of(
          def->getUsers(), [&](Operation *u) { return covered.contains(u); });
      if (onlyChain) {
        m.input = source;
        m.scale = *c;
        covered.insert(def);
      }
    }
  }
  // No intermediate may be used outside the chain.
  if (Operation *esc = findEscapingOp(covered.getArrayRef(),
                                      [&](Value v) { return v == result; }))
    return miss("the intermediate computed by '" +
                esc->getName().getStringRef() + "' has another user");
  for (Operation *op : covered)
    if (op != rootOp &&
        !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      for (Value r : op->getResults())
        m.intermediateBytes += tensorBytes(r.getType());
  return m;
}

namespace {
struct SinterRaiseSoftmaxPass
    : public sinter::impl::RaiseSoftmaxBase<SinterRaiseSoftmaxPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void SinterRaiseSoftmaxPass::runOnOperation() {
  SmallVector<Operation *> candidates;
  getOperation()->walk([&](Operation *op) {
    // Only tensor-valued ops: scalar ops in bodies go with their parent.
    if (op != getOperation() && op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()) &&
        (isa<linalg::LinalgOp, linalg::SoftmaxOp>(op) ||
         op->hasTrait<OpTrait::Elementwise>()))
      candidates.push_back(op);
  });
  llvm::DenseSet<Operation *> erased;
  for (Operation *op : llvm::reverse(candidates)) {
    if (erased.contains(op))
      continue;
    SoftmaxMiss why;
    std::optional<SoftmaxMatch> m = matchSoftmax(op->getResult(0), why);
    if (!m) {
      if (why.significant)
        reportNearMiss(op, "softmax", why.reason);
      continue;
    }
    OpBuilder builder(op);
    FloatAttr scale;
    if (m->scale != 1.0)
      scale = builder.getF32FloatAttr(static_cast<float>(m->scale));
    auto sm = SoftmaxOp::create(builder, op->getLoc(), m->result.getType(),
                                m->input, /*mask=*/Value(),
                                builder.getI64IntegerAttr(m->dim), scale);
    m->result.replaceAllUsesWith(sm.getResult());
    eraseWithDeadProducers(op, &erased);
    reportFusion(sm, "softmax", m->intermediateBytes);
  }
}
