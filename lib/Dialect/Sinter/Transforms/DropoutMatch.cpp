//===- DropoutMatch.cpp - Recognising frontend dropout --------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "DropoutMatch.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace sinter;

static std::optional<APFloat> evalConstant(Value v, int depth) {
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValue();
  DenseFPElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APFloat>();
  Operation *op = v.getDefiningOp();
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(v.getType()));
  if (depth == 0 || !op || op->getNumResults() != 1 || !type)
    return std::nullopt;
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  auto round = [&](APFloat x) {
    bool losesInfo;
    x.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
    return x;
  };
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    std::optional<APFloat> a = evalConstant(op->getOperand(0), depth - 1);
    if (!a)
      return std::nullopt;
    return round(*a);
  }
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  std::optional<APFloat> a = evalConstant(op->getOperand(0), depth - 1);
  std::optional<APFloat> b = evalConstant(op->getOperand(1), depth - 1);
  if (!a || !b)
    return std::nullopt;
  APFloat r = *a;
  constexpr auto rm = APFloat::rmNearestTiesToEven;
  if (isa<arith::AddFOp>(op))
    r.add(*b, rm);
  else if (isa<arith::SubFOp>(op))
    r.subtract(*b, rm);
  else if (isa<arith::MulFOp>(op))
    r.multiply(*b, rm);
  else
    r.divide(*b, rm);
  return r;
}

std::optional<double> sinter::evalFloatConstant(Value v) {
  if (std::optional<APFloat> c = evalConstant(v, /*depth=*/8))
    return c->convertToDouble();
  return std::nullopt;
}

/// An integer scalar (or 0-d integer tensor) of at most 64 bits, usable as
/// a seed.
static bool isSeedType(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    if (tensor.getRank() != 0)
      return false;
    t = tensor.getElementType();
  }
  if (isa<IndexType>(t))
    return true;
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() <= 64;
}

RandomGenerator sinter::matchRandomGenerator(Value v) {
  RandomGenerator gen;
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || !g.hasIndexSemantics() || !g.hasPureTensorSemantics() ||
      g->getNumResults() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return gen;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()) ||
      static_cast<int64_t>(g.getNumLoops()) != type.getRank())
    return gen;
  OpOperand *init = g.getDpsInitOperand(0);
  if (!g.getMatchingIndexingMap(init).isIdentity() ||
      !g.getMatchingBlockArgument(init).use_empty())
    return gen;
  // No tensor data comes in: only scalars and 0-d tensors (the key).
  for (OpOperand *in : g.getDpsInputOperands()) {
    auto t = dyn_cast<ShapedType>(in->get().getType());
    if (t && (!isa<RankedTensorType>(t) || t.getRank() != 0))
      return gen;
  }
  Block *body = g.getBlock();

  // The float part, from the yield down to the conversion of the bits `w`:
  // yielded = scale * w + offset.
  Value y = body->getTerminator()->getOperand(0);
  double scale = 1.0, offset = 0.0;
  Operation *conv = nullptr;
  for (int guard = 0; guard < 16 && !conv; ++guard) {
    Operation *d = y.getDefiningOp();
    if (!d || d->getBlock() != body)
      return gen;
    if (isa<arith::UIToFPOp, arith::SIToFPOp>(d)) {
      conv = d;
      break;
    }
    if (isa<arith::ExtFOp, arith::TruncFOp>(d)) {
      y = d->getOperand(0);
      continue;
    }
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(d))
      return gen;
    Value l = d->getOperand(0), r = d->getOperand(1);
    std::optional<double> cl = evalFloatConstant(l);
    std::optional<double> cr = evalFloatConstant(r);
    if (cl.has_value() == cr.has_value())
      return gen;
    double c = cl ? *cl : *cr;
    if (isa<arith::AddFOp>(d)) {
      offset += scale * c;
    } else if (isa<arith::SubFOp>(d)) {
      offset += cr ? -scale * c : scale * c;
      if (cl)
        scale = -scale;
    } else if (isa<arith::MulFOp>(d)) {
      scale *= c;
    } else {
      if (cl)
        return gen; // c / w is not uniform.
      scale /= c;
    }
    y = cl ? r : l;
  }
  if (!conv)
    return gen;
  Value w = conv->getOperand(0);
  auto intType = dyn_cast<IntegerType>(w.getType());
  if (!intType)
    return gen;
  // The range of the converted integer: all its bits, or fewer after a
  // logical shift right or a low-bits mask.
  unsigned n = intType.getWidth(), bits = n;
  bool nonNegative = isa<arith::UIToFPOp>(conv);
  APInt k;
  if (auto sh = w.getDefiningOp<arith::ShRUIOp>();
      sh && matchPattern(sh.getRhs(), m_ConstantInt(&k)) && k.ult(n) &&
      !k.isZero()) {
    bits = n - static_cast<unsigned>(k.getZExtValue());
    nonNegative = true;
  } else if (auto andOp = w.getDefiningOp<arith::AndIOp>()) {
    if ((matchPattern(andOp.getRhs(), m_ConstantInt(&k)) ||
         matchPattern(andOp.getLhs(), m_ConstantInt(&k))) &&
        !k.isAllOnes() && (k + 1).isPowerOf2()) {
      bits = (k + 1).logBase2();
      nonNegative = true;
    }
  }
  // A few bits are an index computation (a mask from a comparison), not
  // random bits.
  if (bits < 16)
    return gen;
  double lo = nonNegative ? 0.0 : -std::ldexp(1.0, bits - 1);
  double hi = nonNegative ? std::ldexp(1.0, bits) : std::ldexp(1.0, bits - 1);
  double a = scale * lo + offset, b = scale * hi + offset;
  if (a > b)
    std::swap(a, b);
  if (!(std::abs(a) <= 1e-6 && std::abs(b - 1.0) <= 1e-6))
    return gen;

  // The integer part: every value the bits are computed from, inside the
  // body, is an integer computed by arith ops from linalg.index and values
  // read from outside the body.
  unsigned rank = g.getNumLoops();
  SmallVector<bool> usesDim(rank, false);
  llvm::SetVector<Value> runtime, constants;
  SmallVector<Value> work{w};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (!isa<IntegerType, IndexType>(x.getType()))
      return gen;
    auto record = [&](Value outer) {
      (matchPattern(outer, m_Constant()) ? constants : runtime).insert(outer);
    };
    if (auto arg = dyn_cast<BlockArgument>(x); arg && arg.getOwner() == body) {
      record(g->getOperand(arg.getArgNumber()));
      continue;
    }
    Operation *d = x.getDefiningOp();
    if (!d || !g->isAncestor(d)) {
      record(x);
      continue;
    }
    if (auto idx = dyn_cast<linalg::IndexOp>(d)) {
      usesDim[idx.getDim()] = true;
      continue;
    }
    if (d->getBlock() != body || d->getNumRegions() != 0 ||
        !isa<arith::ArithDialect>(d->getDialect()))
      return gen;
    if (matchPattern(x, m_Constant()))
      continue;
    for (Value o : d->getOperands())
      work.push_back(o);
  }

  // From here on it is a random generator.
  gen.op = g;
  auto unusable = [&](const Twine &reason) {
    gen.kind = RandomGenerator::Kind::Unusable;
    gen.reason = reason.str();
    return gen;
  };
  for (unsigned d = 0; d < rank; ++d)
    if (type.getDimSize(d) != 1 && !usesDim[d])
      return unusable("its random values do not depend on dimension " +
                      Twine(d) + " (elements along it share one draw)");
  if (runtime.size() > 1)
    return unusable("its generator reads " + Twine(runtime.size()) +
                    " run-time values, so which one is the seed is "
                    "ambiguous");
  if (runtime.size() == 1)
    gen.seed = runtime.front();
  else if (constants.size() == 1)
    gen.seed = constants.front();
  else
    return unusable("its generator's key is a constant that cannot be told "
                    "apart from the hash's own constants (give the seed as a "
                    "run-time value)");
  if (!isSeedType(gen.seed.getType()))
    return unusable("its generator's seed is not an integer of at most 64 "
                    "bits");
  gen.kind = RandomGenerator::Kind::Usable;
  return gen;
}

std::optional<double> sinter::keepProbability(arith::CmpFPredicate pred,
                                              bool randomOnLeft,
                                              double threshold,
                                              bool &keepBelow) {
  using P = arith::CmpFPredicate;
  bool below;
  switch (pred) {
  case P::OLT:
  case P::OLE:
  case P::ULT:
  case P::ULE:
    below = true;
    break;
  case P::OGT:
  case P::OGE:
  case P::UGT:
  case P::UGE:
    below = false;
    break;
  default:
    return std::nullopt;
  }
  keepBelow = randomOnLeft ? below : !below;
  return keepBelow ? threshold : 1.0 - threshold;
}

double sinter::snapDropoutProbability(double keep, double threshold,
                                      bool keepBelow, Type thresholdType) {
  double p = 1.0 - keep;
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(thresholdType));
  if (!ft)
    return p;
  auto inType = [&](double x) {
    APFloat a(x);
    bool losesInfo;
    a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return a;
  };
  APFloat target = inType(threshold);
  for (int digits = 1; digits <= 17; ++digits) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::format("%.*g", digits, p);
    double d = std::strtod(s.c_str(), nullptr);
    if (d >= 0.0 && d < 1.0 &&
        inType(keepBelow ? 1.0 - d : d).bitwiseIsEqual(target))
      return d;
  }
  return p;
}

bool sinter::isDropoutScale(double scale, double keep, Type type) {
  double tolerance = 1e-6;
  if (auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(type)))
    tolerance =
        std::max(tolerance, std::ldexp(1.0, 1 - ft.getFPMantissaWidth()));
  return std::abs(scale * keep - 1.0) <= tolerance;
}

std::string sinter::formatNumber(double x) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%g", x);
  return s;
}

Value sinter::buildSeedI64(OpBuilder &b, Location loc, Value seed) {
  Value s = seed;
  if (isa<RankedTensorType>(s.getType()))
    s = tensor::ExtractOp::create(b, loc, s, ValueRange{});
  Type i64 = b.getI64Type();
  if (isa<IndexType>(s.getType()))
    return arith::IndexCastOp::create(b, loc, i64, s);
  if (cast<IntegerType>(s.getType()).getWidth() < 64)
    return arith::ExtUIOp::create(b, loc, i64, s);
  return s;
}
