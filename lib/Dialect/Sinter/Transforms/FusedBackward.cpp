//===- FusedBackward.cpp - The backward of a sinter.fused chain -----------===//
//
// Part of the Sinter project.
//
// A fused chain and its backward (FusedBackward.h):
//
//   %y = sinter.fused ins(%x, %b : tensor<16x64xbf16>, tensor<64xbf16>)
//       maps [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] {
//   ^bb0(%xv: bf16, %bv: bf16):
//     %s = arith.addf (extf %xv), (extf %bv) : f32
//     %t = math.tanh %s : f32
//     sinter.yield (truncf %t) : bf16
//   } -> tensor<16x64xbf16>
//   ->
//   %g:2 = sinter.fused ins(%x, %b, %dy : ..., tensor<16x64xbf16>)
//       maps [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
//   ^bb0(%xv: bf16, %bv: bf16, %dyv: bf16):
//     ... the forward chain, recomputed ...
//     %dt = extf %dyv                   (adjoint of %t: through the truncf)
//     %ds = %dt * (1 - %t * %t)         (tanh)
//     sinter.yield (truncf %ds), %ds : bf16, f32   (the add passes %ds on)
//   } -> tensor<16x64xbf16>, tensor<16x64xf32>
//   %db = linalg.generic sum over d0 of %g#1, rounded to bf16 ->
//   tensor<64xbf16>
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/FusedBackward.h"

#include "MatchUtils.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace sinter;

namespace {

/// The adjoint of each float value of the backward body: f64 for f64
/// values, f32 for the others (bf16/f16 values are differentiated in f32).
class Adjoints {
public:
  explicit Adjoints(OpBuilder &b) : b(b) {}

  static Type typeFor(Type t, MLIRContext *ctx) {
    return t.isF64() ? Type(Float64Type::get(ctx)) : Float32Type::get(ctx);
  }
  /// `v` converted to `type` (f32/f64 arithmetic on narrower values).
  Value convert(Location l, Value v, Type type) {
    unsigned from = v.getType().getIntOrFloatBitWidth(),
             to = type.getIntOrFloatBitWidth();
    if (v.getType() == type)
      return v;
    if (from < to)
      return arith::ExtFOp::create(b, l, type, v);
    return arith::TruncFOp::create(b, l, type, v);
  }
  /// Adds `contribution` to the adjoint of `v`.
  void add(Location l, Value v, Value contribution) {
    contribution =
        convert(l, contribution, typeFor(v.getType(), b.getContext()));
    Value &slot = adj[v];
    slot = slot ? arith::AddFOp::create(b, l, slot, contribution).getResult()
                : contribution;
  }
  Value get(Value v) const { return adj.lookup(v); }

private:
  OpBuilder &b;
  llvm::DenseMap<Value, Value> adj;
};

/// The derivative rules of one body op, given the adjoint `g` of its
/// result. Arithmetic is done in g's type (f32 or f64).
///
/// Every op a rule creates is built in a statement of its own or as the one
/// op-building argument of a call: C++ leaves the order in which a call's
/// arguments are evaluated to the compiler (g++ and clang differ), and the
/// order of creation is the order of the ops in the body.
struct Rule {
  OpBuilder &b;
  Location l;
  Value g;
  Adjoints &adj;

  Value wide(Value v) { return adj.convert(l, v, g.getType()); }
  Value c(double v) {
    return arith::ConstantOp::create(b, l, g.getType(),
                                     b.getFloatAttr(g.getType(), v));
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, l, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, l, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, l, x); }
  /// k / x (the constant built after x's ops).
  Value reciprocal(double k, Value x) {
    Value numerator = c(k);
    return div(numerator, x);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, l, cond, x, y);
  }
  void to(Value operand, Value contribution) {
    adj.add(l, operand, contribution);
  }

  LogicalResult arithRule(Operation *op, Value r);
  LogicalResult mathRule(Operation *op, Value r);
};

LogicalResult Rule::arithRule(Operation *op, Value r) {
  auto x = [&](unsigned i) { return wide(op->getOperand(i)); };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::AddFOp) {
        to(op->getOperand(0), g);
        to(op->getOperand(1), g);
        return success();
      })
      .Case([&](arith::SubFOp) {
        to(op->getOperand(0), g);
        to(op->getOperand(1), neg(g));
        return success();
      })
      .Case([&](arith::MulFOp) {
        to(op->getOperand(0), mul(g, x(1)));
        to(op->getOperand(1), mul(g, x(0)));
        return success();
      })
      .Case([&](arith::DivFOp) {
        Value q = div(g, x(1));
        to(op->getOperand(0), q);
        to(op->getOperand(1), neg(mul(q, wide(r))));
        return success();
      })
      .Case([&](arith::NegFOp) {
        to(op->getOperand(0), neg(g));
        return success();
      })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
            arith::MinNumFOp>([&](Operation *) {
        // The operand that is the result takes the gradient (the first on
        // ties, as torch.maximum splits none).
        Value first = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                            op->getOperand(0), r);
        to(op->getOperand(0), select(first, g, c(0.0)));
        to(op->getOperand(1), select(first, c(0.0), g));
        return success();
      })
      .Case([&](arith::SelectOp s) {
        to(s.getTrueValue(), select(s.getCondition(), g, c(0.0)));
        to(s.getFalseValue(), select(s.getCondition(), c(0.0), g));
        return success();
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
        to(op->getOperand(0), g);
        return success();
      })
      .Case<arith::ConstantOp, arith::SIToFPOp, arith::UIToFPOp>(
          [&](Operation *) { return success(); }) // no float operand
      .Default([&](Operation *) { return failure(); });
}

LogicalResult Rule::mathRule(Operation *op, Value r) {
  auto x = [&](unsigned i) { return wide(op->getOperand(i)); };
  auto unary = [&](Value derivative) {
    to(op->getOperand(0), mul(g, derivative));
    return success();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](math::ExpOp) { return unary(wide(r)); })
      .Case([&](math::Exp2Op) {
        Value rr = wide(r);
        return unary(mul(rr, c(std::log(2.0))));
      })
      .Case([&](math::ExpM1Op) {
        Value rr = wide(r);
        return unary(arith::AddFOp::create(b, l, rr, c(1.0)));
      })
      .Case([&](math::LogOp) { return unary(reciprocal(1.0, x(0))); })
      .Case([&](math::Log2Op) {
        return unary(reciprocal(1.0 / std::log(2.0), x(0)));
      })
      .Case([&](math::Log10Op) {
        return unary(reciprocal(1.0 / std::log(10.0), x(0)));
      })
      .Case([&](math::Log1pOp) {
        Value xx = x(0);
        return unary(reciprocal(1.0, arith::AddFOp::create(b, l, xx, c(1.0))));
      })
      .Case([&](math::SqrtOp) { return unary(reciprocal(0.5, wide(r))); })
      .Case([&](math::RsqrtOp) {
        Value rr = wide(r);
        Value half = c(-0.5);
        return unary(mul(half, mul(rr, mul(rr, rr))));
      })
      .Case([&](math::TanhOp) {
        Value rr = wide(r);
        Value one = c(1.0);
        return unary(sub(one, mul(rr, rr)));
      })
      .Case([&](math::ErfOp) {
        Value xx = x(0);
        Value scale = c(2.0 / std::sqrt(M_PI));
        return unary(mul(scale, math::ExpOp::create(b, l, neg(mul(xx, xx)))));
      })
      .Case([&](math::SinOp) { return unary(math::CosOp::create(b, l, x(0))); })
      .Case([&](math::CosOp) {
        return unary(neg(math::SinOp::create(b, l, x(0))));
      })
      .Case([&](math::AbsFOp) {
        // sign(x), 0 at 0 (torch's abs backward).
        Value xx = x(0);
        Value pos =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, xx, c(0.0));
        Value negv =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, xx, c(0.0));
        Value one = c(1.0), minusOne = c(-1.0), zero = c(0.0);
        return unary(select(pos, one, select(negv, minusOne, zero)));
      })
      .Case([&](math::PowFOp) {
        Value base = x(0), e = x(1), rr = wide(r);
        to(op->getOperand(0),
           mul(g, mul(e, math::PowFOp::create(b, l, base, sub(e, c(1.0))))));
        to(op->getOperand(1), mul(g, mul(rr, math::LogOp::create(b, l, base))));
        return success();
      })
      .Case([&](math::FPowIOp p) {
        Value n = p.getRhs();
        Value nf = arith::SIToFPOp::create(b, l, g.getType(), n);
        Value one = arith::ConstantOp::create(b, l, n.getType(),
                                              b.getIntegerAttr(n.getType(), 1));
        Value base = x(0);
        Value lower = math::FPowIOp::create(
            b, l, base, arith::SubIOp::create(b, l, n, one));
        return unary(mul(nf, lower));
      })
      .Case([&](math::FmaOp) {
        to(op->getOperand(0), mul(g, x(1)));
        to(op->getOperand(1), mul(g, x(0)));
        to(op->getOperand(2), g);
        return success();
      })
      .Case([&](DropoutOp d) {
        // The same decision at the same offset: the gradient is dropped
        // where the element was and scaled where it was kept.
        to(d.getInput(),
           DropoutOp::create(b, l, g.getType(), g, d.getSeed(), d.getPAttr()));
        return success();
      })
      .Default([&](Operation *) { return failure(); });
}

/// Walks the recomputed forward ops backwards, propagating adjoints.
LogicalResult propagate(OpBuilder &b, ArrayRef<Operation *> ops,
                        Adjoints &adj) {
  for (Operation *op : llvm::reverse(ops)) {
    if (op->getNumResults() != 1 || !isa<FloatType>(op->getResult(0).getType()))
      continue; // comparisons, index and integer arithmetic: no gradient
    Value r = op->getResult(0);
    Value g = adj.get(r);
    if (!g)
      continue;
    Rule rule{b, op->getLoc(), g, adj};
    if (succeeded(rule.arithRule(op, r)) || succeeded(rule.mathRule(op, r)))
      continue;
    return op->emitOpError("has no derivative rule (sinter.fused backward "
                           "differentiates arith and math ops and "
                           "sinter.dropout)");
  }
  return success();
}

/// Whether input `i` gets a gradient: a ranked tensor of floats.
bool isDifferentiable(Value input) {
  auto t = dyn_cast<RankedTensorType>(input.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// The per-element gradient `full` (iteration shape) of an input read
/// through `map`, summed over the dimensions the map drops and rounded to
/// the input's type.
FailureOr<Value> reduceToInput(OpBuilder &b, Location loc, Value full,
                               AffineMap map, RankedTensorType inputType) {
  auto fullType = cast<RankedTensorType>(full.getType());
  unsigned rank = fullType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> kept;
  SmallVector<int64_t> keptShape;
  llvm::SmallBitVector used(rank);
  for (auto [k, e] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      kept.push_back(e);
      keptShape.push_back(inputType.getDimSize(k));
      used.set(d.getPosition());
    }
  SmallVector<utils::IteratorType> iters;
  for (unsigned d = 0; d < rank; ++d)
    iters.push_back(used.test(d) ? utils::IteratorType::parallel
                                 : utils::IteratorType::reduction);
  Type acc = fullType.getElementType(), elt = inputType.getElementType();
  Value init = tensor::EmptyOp::create(b, loc, keptShape, acc);
  Value zero = arith::ConstantOp::create(b, loc, acc, b.getFloatAttr(acc, 0));
  init = linalg::FillOp::create(b, loc, zero, init).getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, kept, ctx)};
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{full}, ValueRange{init},
          maps, iters,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            linalg::YieldOp::create(
                bb, l, ValueRange{arith::AddFOp::create(bb, l, a[1], a[0])});
          })
          .getResult(0);
  if (elt != acc)
    sum = match::mapElements(
        b, loc, sum, elt, [&](OpBuilder &bb, Location l, Value x) {
          return arith::TruncFOp::create(bb, l, elt, x).getResult();
        });
  if (keptShape == inputType.getShape())
    return sum;
  std::optional<SmallVector<ReassociationIndices>> re =
      getReassociationIndicesForReshape(cast<RankedTensorType>(sum.getType()),
                                        inputType);
  if (!re)
    return failure();
  return tensor::ExpandShapeOp::create(b, loc, inputType, sum, *re).getResult();
}

} // namespace

FailureOr<SmallVector<Value>>
sinter::buildFusedBackward(OpBuilder &b, FusedOp op, ValueRange resultGrads) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  unsigned rank = op.getIterationShape().size();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs = op.getInputs();
  SmallVector<Attribute> maps = llvm::to_vector(op.getIndexingMaps());
  SmallVector<unsigned> gradSlots; // result k -> input position of its grad
  // Gradients of results that are not floats (masks, indices) carry
  // nothing: they are dropped like null ones.
  SmallVector<Value> seeds(resultGrads);
  for (auto [k, g] : llvm::enumerate(seeds)) {
    gradSlots.push_back(inputs.size());
    if (g &&
        !isa<FloatType>(
            cast<RankedTensorType>(op.getResult(k).getType()).getElementType()))
      g = Value();
    if (!g)
      continue;
    inputs.push_back(g);
    maps.push_back(AffineMapAttr::get(id));
  }
  // One result per differentiable input: its element type under an
  // identity map, else the f32/f64 per-element gradient to be reduced.
  Block &fwd = op.getBody().front();
  SmallVector<unsigned> diffInputs;
  SmallVector<Type> resultTypes;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    if (!isDifferentiable(input))
      continue;
    diffInputs.push_back(i);
    Type elt = cast<RankedTensorType>(input.getType()).getElementType();
    AffineMap map = cast<AffineMapAttr>(maps[i]).getValue();
    resultTypes.push_back(RankedTensorType::get(
        op.getIterationShape(),
        map.isIdentity() ? elt : Adjoints::typeFor(elt, ctx)));
  }
  if (diffInputs.empty())
    return SmallVector<Value>(op.getInputs().size(), Value());

  auto bwd = FusedOp::create(b, loc, resultTypes, inputs, b.getArrayAttr(maps));
  Block *body = new Block();
  bwd.getBody().push_back(body);
  for (Value in : inputs) {
    Type t = in.getType();
    if (auto rt = dyn_cast<RankedTensorType>(t))
      t = rt.getElementType();
    body->addArgument(t, loc);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    IRMapping mapping;
    mapping.map(fwd.getArguments(),
                body->getArguments().take_front(fwd.getNumArguments()));
    SmallVector<Operation *> cloned;
    for (Operation &o : fwd.without_terminator())
      cloned.push_back(b.clone(o, mapping));
    Adjoints adj(b);
    auto yield = cast<YieldOp>(fwd.getTerminator());
    for (auto [k, g] : llvm::enumerate(seeds))
      if (g)
        adj.add(loc, mapping.lookupOrDefault(yield.getValues()[k]),
                body->getArgument(gradSlots[k]));
    if (failed(propagate(b, cloned, adj))) {
      bwd.erase(); // leave the IR as it was
      return failure();
    }
    SmallVector<Value> yields;
    for (auto [n, i] : llvm::enumerate(diffInputs)) {
      Type want = cast<RankedTensorType>(resultTypes[n]).getElementType();
      Value g = adj.get(body->getArgument(i));
      if (!g)
        g = arith::ConstantOp::create(b, loc, want, b.getFloatAttr(want, 0));
      yields.push_back(adj.convert(loc, g, want));
    }
    YieldOp::create(b, loc, yields);
  }

  SmallVector<Value> grads(op.getInputs().size(), Value());
  for (auto [n, i] : llvm::enumerate(diffInputs)) {
    AffineMap map = cast<AffineMapAttr>(maps[i]).getValue();
    auto inputType = cast<RankedTensorType>(op.getInputs()[i].getType());
    if (map.isIdentity()) {
      grads[i] = bwd.getResult(n);
      continue;
    }
    FailureOr<Value> g =
        reduceToInput(b, loc, bwd.getResult(n), map, inputType);
    if (failed(g))
      return op.emitOpError("cannot reshape the gradient of input #")
             << i << " to " << inputType;
    grads[i] = *g;
  }
  return grads;
}
