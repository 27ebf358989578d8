//===- GeluEpilogue.cpp - GELU and its gradient taken into matmuls --------===//
//
// Part of the Sinter project.
//
// A transformer MLP is matmul -> bias -> GELU -> matmul, and its backward
// multiplies the gradient of the second matmul's input by GELU's derivative
// at the saved pre-activation. Run apart, each GELU is an elementwise
// kernel over the M x 4C hidden tensor (GPT-2 at B8 T1024: 50 MB read and
// written, ~35 us on an H200, twice per layer). cuBLASLt computes both in
// its epilogue, where the product is still in registers:
//   GELU_AUX_BIAS  D = gelu(A x B + bias), aux = A x B + bias
//   DGELU          D = (A x B) * gelu'(aux)
// (cuBLASLt's GELU is the tanh approximation.) The fallback kernel applies
// the chain's own body to its product instead.
//
// torch-mlir writes GELU as arithmetic that varies with the dtype and the
// version (bf16 ops with bf16-rounded constants in the forward, an f32
// derivative after widening in the backward; x^3 as math.fpowi or as
// products). The chain is recognized by what its body computes: built only
// from the arithmetic listed in `evaluate` over its inputs, evaluated
// exactly (f64, narrow roundings left out) with its constants as written,
// it must agree with gelu_tanh (or dy * gelu_tanh'(x)) to 1e-3 relative at
// every probe point from -100 to 100. The bf16-rounded constants of the
// forward move the result by ~2e-4 of that scale; x * sigmoid(1.702 x)
// (another GELU) differs by 6e-3, the erf form needs math.erf, which the
// evaluator does not take. The tolerance is far below a bf16 unit, so the
// matmul computing the exact gelu_tanh changes no result by more than the
// rounding it already moves (one rounding of the product less, as the
// bias epilogue's roundBiasOnce).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "sinter/Artifact/Manifest.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

namespace {
/// GELU's tanh approximation: sqrt(2 / pi) and the cubic's coefficient.
constexpr double kGeluScale = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;
/// How far a body may be from the reference, relative to |ref| + |x| + 1.
constexpr double kGeluTolerance = 1e-3;

double geluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(kGeluScale * (x + kGeluCubic * x * x * x)));
}

double geluTanhDerivative(double x) {
  double t = std::tanh(kGeluScale * (x + kGeluCubic * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kGeluScale *
                               (1.0 + 3.0 * kGeluCubic * x * x);
}

/// The probe points: a dense grid over [-6, 6] and the tails.
SmallVector<double> probePoints() {
  SmallVector<double> xs;
  for (int i = -96; i <= 96; ++i)
    xs.push_back(i / 16.0 + 1.0 / 64.0);
  for (double x : {0.0, 8.0, 12.0, 30.0, 100.0}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  return xs;
}

/// The value of a float or integer constant `v` (defined in the body or
/// hoisted above it), if it is one.
std::optional<double> constantValue(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

/// Evaluates `ops` exactly (f64, widenings and roundings as the identity)
/// from the values `at` holds, and returns `out`'s; nullopt at an op outside
/// the arithmetic GELU is written in.
std::optional<double> evaluate(ArrayRef<Operation *> ops,
                               llvm::DenseMap<Value, double> at, Value out) {
  auto value = [&](Value v) -> std::optional<double> {
    if (auto it = at.find(v); it != at.end())
      return it->second;
    return constantValue(v);
  };
  for (Operation *op : ops) {
    if (op->getNumResults() != 1)
      return std::nullopt;
    if (isa<arith::ConstantOp>(op))
      continue; // read through constantValue
    SmallVector<double, 2> in;
    for (Value operand : op->getOperands()) {
      std::optional<double> x = value(operand);
      if (!x)
        return std::nullopt;
      in.push_back(*x);
    }
    double r;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      r = in[0];
    else if (isa<arith::AddFOp>(op))
      r = in[0] + in[1];
    else if (isa<arith::SubFOp>(op))
      r = in[0] - in[1];
    else if (isa<arith::MulFOp>(op))
      r = in[0] * in[1];
    else if (isa<arith::DivFOp>(op))
      r = in[0] / in[1];
    else if (isa<arith::NegFOp>(op))
      r = -in[0];
    else if (isa<math::TanhOp>(op))
      r = std::tanh(in[0]);
    else if (isa<math::ExpOp>(op))
      r = std::exp(in[0]);
    else if (isa<math::FPowIOp, math::PowFOp>(op))
      r = std::pow(in[0], in[1]);
    else
      return std::nullopt;
    at[op->getResult(0)] = r;
  }
  return value(out);
}

/// `evaluate` over a whole body at `args`.
std::optional<double> evaluate(Block &body, ArrayRef<double> args) {
  llvm::DenseMap<Value, double> at;
  for (auto [arg, x] : llvm::zip(body.getArguments(), args))
    at[arg] = x;
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return evaluate(ops, std::move(at), body.getTerminator()->getOperand(0));
}

/// Whether `v` is within the tolerance of `ref` at scale `scale`.
bool close(std::optional<double> v, double ref, double scale) {
  return v && std::isfinite(*v) && std::abs(*v - ref) <= kGeluTolerance * scale;
}

/// Whether every probe of `ops`, from `in` to `out`, is gelu_tanh(x).
bool computesGeluTanh(ArrayRef<Operation *> ops, Value in, Value out) {
  for (double x : probePoints()) {
    double ref = geluTanh(x);
    if (!close(evaluate(ops, {{in, x}}, out), ref,
               std::abs(ref) + std::abs(x) + 1.0))
      return false;
  }
  return true;
}

/// Whether every probe of the one-input `body` is gelu_tanh(x).
bool computesGeluTanh(Block &body) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return computesGeluTanh(ops, body.getArgument(0),
                          body.getTerminator()->getOperand(0));
}

/// Whether every probe of the two-input `body` is dy * gelu_tanh'(x), dy
/// its argument `dyArg`, x the other.
bool computesGeluTanhGrad(Block &body, unsigned dyArg) {
  for (double x : probePoints())
    for (double dy : {1.0, -0.375, 5.0}) {
      double d = geluTanhDerivative(x);
      SmallVector<double, 2> args(2, x);
      args[dyArg] = dy;
      if (!close(evaluate(body, args), dy * d,
                 std::abs(dy) * (std::abs(d) + 1)))
        return false;
    }
  return true;
}

/// Whether every indexing map of `chain` is the identity (its inputs and
/// result have one shape, element by element).
bool identityMaps(FusedOp chain) {
  return llvm::all_of(chain.getIndexingMaps(), [](Attribute a) {
    return cast<AffineMapAttr>(a).getValue().isIdentity();
  });
}

/// The chains that read a value element by element, directly or through
/// reshapes (which keep the row-major order of elements), and whether
/// anything else reads it.
struct Readers {
  SmallVector<std::pair<FusedOp, unsigned>> chains; // chain, input number
  bool others = false;
};
void collectReaders(Value v, Readers &r) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
      collectReaders(user->getResult(0), r);
      continue;
    }
    auto chain = dyn_cast<FusedOp>(user);
    if (chain && !chain->getParentOfType<FusedOp>() &&
        chain->getNumResults() == 1 && identityMaps(chain) &&
        use.getOperandNumber() < chain.getInputs().size())
      r.chains.push_back({chain, use.getOperandNumber()});
    else
      r.others = true;
  }
}

Type elementType(Value v) { return getElementTypeOrSelf(v.getType()); }

/// A chain's body cut in two at `v`: `prefix` computes `v` from the
/// arguments, `suffix` the rest from `v` alone (constants aside).
struct Cut {
  Value v;
  SmallVector<Operation *> prefix, suffix;
};

/// The first value of `body` at which it cuts in two, if any.
std::optional<Cut> cutBody(Block &body) {
  for (Operation &candidate : body.without_terminator()) {
    if (candidate.getNumResults() != 1 || isa<arith::ConstantOp>(candidate))
      continue;
    Cut cut;
    cut.v = candidate.getResult(0);
    llvm::SmallPtrSet<Operation *, 16> before;
    for (Operation &op : body.without_terminator()) {
      if (isa<arith::ConstantOp>(op))
        continue;
      if (op.isBeforeInBlock(&candidate) || &op == &candidate) {
        before.insert(&op);
        cut.prefix.push_back(&op);
        continue;
      }
      cut.suffix.push_back(&op);
    }
    auto readsOnlyV = [&](Operation *op) {
      return llvm::all_of(op->getOperands(), [&](Value x) {
        Operation *def = x.getDefiningOp();
        return x == cut.v || (def && isa<arith::ConstantOp>(def)) ||
               (def && !before.contains(def) && !isa<BlockArgument>(x));
      });
    };
    if (!cut.suffix.empty() && llvm::all_of(cut.suffix, readsOnlyV))
      return cut;
  }
  return std::nullopt;
}

/// Clones `ops` (and the constants they read) into a new chain over
/// `inputs` (mapped from `args`) that yields `yielded`, before `at`.
FusedOp cloneAsChain(OpBuilder &b, FusedOp at, ValueRange inputs,
                     ArrayRef<Attribute> maps, ArrayRef<Value> args,
                     ArrayRef<Operation *> ops, ArrayRef<Value> yielded) {
  Location loc = at.getLoc();
  auto shape = cast<RankedTensorType>(at->getResult(0).getType());
  SmallVector<Type> types;
  for (Value y : yielded)
    types.push_back(shape.clone(y.getType()));
  auto chain = FusedOp::create(b, loc, types, inputs, b.getArrayAttr(maps));
  SmallVector<Type> argTypes;
  SmallVector<Location> locs;
  for (Value a : args) {
    argTypes.push_back(a.getType());
    locs.push_back(loc);
  }
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&chain.getBody(), {}, argTypes, locs);
  IRMapping mapping;
  for (auto [from, to] : llvm::zip(args, body->getArguments()))
    mapping.map(from, to);
  for (Operation *op : ops) {
    for (Value x : op->getOperands())
      if (auto c = x.getDefiningOp<arith::ConstantOp>();
          c && !mapping.contains(x))
        mapping.map(x, b.clone(*c)->getResult(0));
    b.clone(*op, mapping);
  }
  SmallVector<Value> results;
  for (Value y : yielded)
    results.push_back(mapping.lookup(y));
  YieldOp::create(b, loc, results);
  return chain;
}
} // namespace

/// Whether `chain`'s `prefix` computes what matchMatmulEpilogue takes
/// (after roundBiasOnce): the product's rounding alone, or a bias (a vector
/// over the columns, of the epilogue's type `v`) added and rounded.
static bool isBiasAndRounding(FusedOp chain, ArrayRef<Operation *> prefix,
                              Value v) {
  unsigned inputs = chain.getInputs().size();
  if (inputs == 2 ? !readsRowsAndBias(chain) ||
                        elementType(chain.getInputs()[1]) != v.getType()
                  : inputs != 1 || !identityMaps(chain))
    return false;
  unsigned adds = 0;
  for (Operation *op : prefix) {
    if (isa<arith::AddFOp>(op))
      ++adds;
    else if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return false;
  }
  return adds == inputs - 1;
}

// A matmul's bias (or rounding) and its GELU in one chain, as fusion leaves
// them where no reshape stands between (an MLP over 2-D activations):
//
//   %hg:2 = sinter.fused ins(%acc, %bias) {
//     %h = (bias add and rounding of %acc)
//     %g = (gelu_tanh of %h)
//     sinter.yield %h, %g      (or %g alone)
//   }
//
// becomes the epilogue's chain (yielding %h) and the activation's (reading
// it), which matchMatmulEpilogue and matchMatmulActivation take.
void gpu_kernels::splitMatmulActivationChains(ModuleOp module) {
  SmallVector<std::pair<FusedOp, Cut>> splits;
  module.walk([&](FusedOp chain) {
    Value acc = chain.getInputs().empty() ? Value() : chain.getInputs()[0];
    auto mm = acc ? acc.getDefiningOp<linalg::LinalgOp>() : nullptr;
    if (!mm || !isPlainMatmul(mm) || !mm->hasOneUse() ||
        chain->getParentOfType<FusedOp>())
      return;
    std::optional<Cut> cut = cutBody(chain.getBody().front());
    if (!cut || !isBiasAndRounding(chain, cut->prefix, cut->v) ||
        !computesGeluTanh(cut->suffix, cut->v,
                          cut->suffix.back()->getResult(0)))
      return;
    // It yields the GELU, and maybe the epilogue's value.
    Value g = cut->suffix.back()->getResult(0);
    for (Value y : chain.getBody().front().getTerminator()->getOperands())
      if (y != g && y != cut->v)
        return;
    splits.push_back({chain, *cut});
  });
  for (auto &[chain, cut] : splits) {
    Block &body = chain.getBody().front();
    Value g = cut.suffix.back()->getResult(0);
    OpBuilder b(chain);
    SmallVector<Value> args(body.getArguments());
    FusedOp epilogue = cloneAsChain(b, chain, chain.getInputs(),
                                    chain.getIndexingMaps().getValue(), args,
                                    cut.prefix, {cut.v});
    Value h = epilogue->getResult(0);
    auto rank = cast<RankedTensorType>(h.getType()).getRank();
    FusedOp activation = cloneAsChain(
        b, chain, {h}, {AffineMapAttr::get(b.getMultiDimIdentityMap(rank))},
        {cut.v}, cut.suffix, {g});
    for (auto [i, y] : llvm::enumerate(body.getTerminator()->getOperands()))
      chain->getResult(i).replaceAllUsesWith(y == g ? activation->getResult(0)
                                                    : h);
    chain->erase();
  }
}

// The forward (torch-mlir's GPT-2 MLP in bf16, after roundBiasOnce):
//
//   %acc = linalg.matmul ins(%x, %w) outs(%zero_fill : tensor<MxNxf32>)
//   %h = sinter.fused ins(%acc, %bias) { extf; addf; truncf }  -> MxNxbf16
//   %h3 = tensor.expand_shape %h ...                           (optional)
//   %g = sinter.fused ins(%h3) { gelu_tanh in bf16 ops }       -> bf16
//
// `%g` becomes the matmul's result, `%h` its aux output when anything else
// reads it (the backward's saved pre-activation). The backward:
//
//   %acc = linalg.matmul ins(%dy, %w2) outs(%zero_fill)
//   %d = sinter.fused ins(%acc) { truncf }                     -> MxNxbf16
//   %dh = sinter.fused ins(%h, %d3) { dy * gelu_tanh'(x) }     -> bf16
//
// with `%d` read by `%dh` alone: `%dh` becomes the result, `%h` the aux
// input.
std::optional<MatmulActivation>
gpu_kernels::matchMatmulActivation(const MatmulEpilogue &e) {
  Readers r;
  collectReaders(e.result, r);
  if (r.chains.size() != 1)
    return std::nullopt;
  auto [chain, input] = r.chains.front();
  Type cType = elementType(e.result);
  Value out = chain->getResult(0);
  auto outType = cast<RankedTensorType>(out.getType());
  auto resultType = cast<RankedTensorType>(e.result.getType());
  if (elementType(out) != cType || !outType.hasStaticShape() ||
      outType.getNumElements() != resultType.getNumElements() ||
      chain.getInputs().size() > 2)
    return std::nullopt;
  Block &body = chain.getBody().front();
  MatmulActivation a;
  a.chain = chain;
  a.result = out;
  a.productArg = input;
  if (chain.getInputs().size() == 1) {
    if (!computesGeluTanh(body))
      return std::nullopt;
    a.kind = MatmulActivation::Kind::GeluTanh;
    if (r.others)
      a.aux = e.result;
    return a;
  }
  // The gradient: the product is read by this chain alone, which reads the
  // pre-activation (of the product's type) beside it.
  Value x = chain.getInputs()[1 - input];
  if (r.others || e.bias || elementType(x) != cType ||
      !computesGeluTanhGrad(body, input))
    return std::nullopt;
  a.kind = MatmulActivation::Kind::GeluTanhGrad;
  a.aux = x;
  return a;
}

bool gpu_kernels::isMatmulActivation(Operation *chain) {
  auto fused = dyn_cast_or_null<FusedOp>(chain);
  if (!fused)
    return false;
  for (Value in : fused.getInputs()) {
    while (Operation *def = in.getDefiningOp()) {
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        break;
      in = def->getOperand(0);
    }
    auto producer = in.getDefiningOp<FusedOp>();
    Value product = producer && !producer.getInputs().empty()
                        ? producer.getInputs()[0]
                        : Value();
    auto mm = product ? product.getDefiningOp<linalg::LinalgOp>() : nullptr;
    if (!mm || !isPlainMatmul(mm))
      continue;
    if (std::optional<MatmulEpilogue> e = matchMatmulEpilogue(mm))
      if (std::optional<MatmulActivation> a = matchMatmulActivation(*e);
          a && a->chain == fused)
        return true;
  }
  return false;
}

StringRef gpu_kernels::activationName(MatmulActivation::Kind kind) {
  return kind == MatmulActivation::Kind::GeluTanh
             ? manifest::value::kGeluTanh
             : manifest::value::kGeluTanhGrad;
}
