//===- MaskAnalysis.cpp - Which keys an attention mask lets through -------===//
//
// Part of the Sinter project.
//
// The symbolic evaluator behind MaskAnalysis.h. Values are
//
//   Int     c + sum_k a_k * x_k       (x_k: loop variables with known extents)
//   Bool    false, or AND of constraints `e >= 0` (and maybe of opaque,
//           data-dependent conditions)
//   Float   a constant
//   Select  cond ? t : f
//   Unknown (with the reason)
//
// A constraint that holds (or fails) over the whole loop domain is decided
// on the spot, which is what turns `select(i < 0, i + n, i)` (torch's
// negative-index wrap) into `i` and the packed-sequence check into `true`.
//
//===----------------------------------------------------------------------===//

#include "MaskAnalysis.h"
#include "../MatchUtils.h"
#include "MaskSymbols.h"

#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>

using namespace mlir;
using namespace sinter::attention;
namespace tm_tensor = sinter::tm_tensor;
using namespace sinter::attention::mask;

bool sinter::attention::isHidingValue(double v) {
  return v <= -1.0e9 || (std::isinf(v) && v < 0);
}

namespace {

/// The evaluator: loop variables with extents, a step budget.
class Evaluator {
public:
  explicit Evaluator(ArrayRef<int64_t> loops)
      : extents(loops.begin(), loops.end()) {}

  SymRef at(Value tensor, ArrayRef<Affine> idx);
  SymRef inBody(Operation *linalgOp, Value v, ArrayRef<Affine> loopIdx);

  /// A Bool of one constraint `e >= 0`, decided over the domain.
  SymRef constraint(const Affine &e) const {
    auto [lo, hi] = range(e);
    if (lo >= 0)
      return boolSym(true);
    if (hi < 0)
      return boolSym(false);
    auto s = std::make_shared<Sym>();
    s->kind = Sym::Kind::Bool;
    s->constraints.push_back(e);
    return s;
  }

  unsigned newVariable(int64_t extent) {
    extents.push_back(extent);
    return extents.size() - 1;
  }

  std::pair<int64_t, int64_t> range(const Affine &e) const {
    int64_t lo = e.c, hi = e.c;
    for (size_t k = 0; k < e.a.size(); ++k) {
      int64_t span = e.a[k] * (k < extents.size() ? extents[k] - 1 : 0);
      lo += std::min<int64_t>(0, span);
      hi += std::max<int64_t>(0, span);
    }
    return {lo, hi};
  }

private:
  SymRef scalar(Value v, Operation *linalgOp, ArrayRef<Affine> loopIdx,
                DenseMap<Value, SymRef> &memo);
  SymRef op(Operation *op, ArrayRef<SymRef> args);
  SymRef reshapeAt(Operation *def, ArrayRef<Affine> idx);
  bool splitLinear(const Affine &e, ArrayRef<int64_t> group,
                   ArrayRef<int64_t> srcShape, SmallVector<Affine> &src) const;
  SymRef linalgAt(linalg::LinalgOp op, OpResult result, ArrayRef<Affine> idx);
  SymRef scanAt(tm_tensor::ScanOp scan, OpResult result, ArrayRef<Affine> idx);
  SymRef concatAt(tensor::ConcatOp concat, ArrayRef<Affine> idx);
  SymRef denseBand(DenseElementsAttr dense, ArrayRef<Affine> idx);
  SymRef denseAffine(DenseElementsAttr dense, ArrayRef<Affine> idx);

  SmallVector<int64_t> extents;
  int budget = 4000;
};

//===----------------------------------------------------------------------===//
// Scalar ops
//===----------------------------------------------------------------------===//

SymRef Evaluator::op(Operation *o, ArrayRef<SymRef> args) {
  using P = arith::CmpIPredicate;
  auto ints = [&](auto fn) {
    return lift(args[0], args[1], [&](const SymRef &a, const SymRef &b) {
      if (a->kind != Sym::Kind::Int || b->kind != Sym::Kind::Int)
        return unknown("integer arithmetic on non-integers");
      return fn(a->aff, b->aff);
    });
  };
  if (isa<arith::AddIOp>(o))
    return ints([](const Affine &a, const Affine &b) {
      return intSym(combine(a, b, 1));
    });
  if (isa<arith::SubIOp>(o))
    return ints([](const Affine &a, const Affine &b) {
      return intSym(combine(a, b, -1));
    });
  if (isa<arith::MulIOp>(o))
    return ints([](const Affine &a, const Affine &b) -> SymRef {
      if (b.isConstant())
        return intSym(scaled(a, b.c));
      if (a.isConstant())
        return intSym(scaled(b, a.c));
      return unknown("a product of two indices");
    });
  // Integer casts keep the value only where it fits: a narrowing cast (or
  // an unsigned one of a possibly negative value) wraps, which the affine
  // form cannot follow.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::TruncIOp, arith::ExtUIOp>(o)) {
    const SymRef &a = args[0];
    if (isa<arith::ExtUIOp>(o) && a->kind == Sym::Kind::Bool)
      return selectSym(a, intSym(constant(1)), intSym(constant(0)));
    if (a->kind != Sym::Kind::Int)
      return a; // Unknowns (and data) stay what they are.
    auto [lo, hi] = range(a->aff);
    Type to = o->getResult(0).getType(), from = o->getOperand(0).getType();
    auto bits = [](Type t) -> unsigned {
      return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
    };
    unsigned w = std::min(bits(to), bits(from));
    bool isUnsigned = isa<arith::IndexCastUIOp, arith::ExtUIOp>(o);
    int64_t max = w >= 64 ? INT64_MAX : (int64_t(1) << (w - 1)) - 1;
    int64_t min = w >= 64 ? INT64_MIN : -(int64_t(1) << (w - 1));
    if (hi > max || lo < (isUnsigned ? 0 : min))
      return unknown("an integer cast that may wrap");
    return a;
  }
  auto isData = [](const SymRef &x) {
    return x->kind == Sym::Kind::Unknown && x->data;
  };
  if (isa<arith::CmpIOp, arith::CmpFOp>(o) &&
      (isData(args[0]) || isData(args[1])))
    return opaqueBool();
  if (auto cmp = dyn_cast<arith::CmpIOp>(o)) {
    P p = cmp.getPredicate();
    return ints([&](const Affine &a, const Affine &b) -> SymRef {
      bool isUnsigned =
          p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
      if (isUnsigned && (range(a).first < 0 || range(b).first < 0))
        return unknown("an unsigned compare of possibly negative values");
      Affine bMinusA = combine(b, a, -1), aMinusB = combine(a, b, -1);
      switch (p) {
      case P::sle:
      case P::ule:
        return constraint(bMinusA);
      case P::slt:
      case P::ult:
        return constraint(combine(bMinusA, constant(1), -1));
      case P::sge:
      case P::uge:
        return constraint(aMinusB);
      case P::sgt:
      case P::ugt:
        return constraint(combine(aMinusB, constant(1), -1));
      case P::eq:
        return andSym(constraint(aMinusB), constraint(bMinusA));
      case P::ne:
        return notSym(andSym(constraint(aMinusB), constraint(bMinusA)));
      }
      return unknown("an unsupported compare");
    });
  }
  if (isa<arith::AndIOp>(o))
    return lift(args[0], args[1], andSym);
  if (isa<arith::OrIOp>(o))
    return lift(args[0], args[1], orSym);
  if (isa<arith::XOrIOp>(o)) {
    if (isBool(args[1], true))
      return notSym(args[0]);
    if (isBool(args[0], true))
      return notSym(args[1]);
    if (isBool(args[1], false))
      return args[0];
    if (isBool(args[0], false))
      return args[1];
    return unknown("an exclusive or of conditions");
  }
  if (isa<arith::SelectOp>(o))
    return selectSym(args[0], args[1], args[2]);
  if (isa<arith::ExtFOp, arith::TruncFOp>(o))
    return args[0]; // Hiding values stay hiding, zero stays zero.
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(o)) {
    const SymRef &a = args[0];
    if (a->kind == Sym::Kind::Int && a->aff.isConstant())
      return floatSym(static_cast<double>(a->aff.c));
    if (isDataSym(a))
      return a;
    return unknown("an index converted to a float");
  }
  if (isa<arith::AddFOp>(o))
    return lift(args[0], args[1], [](const SymRef &a, const SymRef &b) {
      if (a->kind == Sym::Kind::Float && b->kind == Sym::Kind::Float)
        return floatSym(a->f + b->f);
      return unknown("a sum of non-constant floats");
    });
  if (isa<arith::MulFOp>(o))
    return lift(args[0], args[1], [](const SymRef &a, const SymRef &b) {
      if (a->kind == Sym::Kind::Float && b->kind == Sym::Kind::Float)
        return floatSym(a->f * b->f);
      return unknown("a product of non-constant floats");
    });
  return unknown("'" + o->getName().getStringRef() +
                 "' in the mask computation");
}

SymRef constantSym(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    if (i.getType().isInteger(1))
      return boolSym(i.getValue().getBoolValue());
    return intSym(constant(i.getValue().getSExtValue()));
  }
  if (auto f = dyn_cast<FloatAttr>(a))
    return floatSym(f.getValueAsDouble());
  if (auto b = dyn_cast<BoolAttr>(a))
    return boolSym(b.getValue());
  return unknown("a constant of an unsupported type");
}

SymRef Evaluator::scalar(Value v, Operation *linalgOp, ArrayRef<Affine> loopIdx,
                         DenseMap<Value, SymRef> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  if (--budget < 0)
    return unknown("the mask computation is too large to analyse");
  auto linalg = cast<linalg::LinalgOp>(linalgOp);
  Block *body = linalg.getBlock();
  SymRef r;
  Attribute c;
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
    OpOperand *operand = linalg.getMatchingOpOperand(arg);
    AffineMap map = linalg.getMatchingIndexingMap(operand);
    SmallVector<Affine> idx;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        idx.push_back(loopIdx[d.getPosition()]);
      else if (auto k = dyn_cast<AffineConstantExpr>(e))
        idx.push_back(constant(k.getValue()));
      else
        return memo[v] = unknown("an operand read through a non-trivial map");
    }
    r = at(operand->get(), idx);
  } else if (matchPattern(v, m_Constant(&c))) {
    r = constantSym(c);
  } else if (Operation *def = v.getDefiningOp();
             def && def->getBlock() == body) {
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      r = intSym(loopIdx[index.getDim()]);
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(def)) {
      SmallVector<Affine> idx;
      for (Value i : extract.getIndices()) {
        SymRef s = scalar(i, linalgOp, loopIdx, memo);
        if (s->kind != Sym::Kind::Int)
          return memo[v] = dataSym("a gather at a data-dependent index");
        idx.push_back(s->aff);
      }
      r = at(extract.getTensor(), idx);
    } else {
      SmallVector<SymRef> args;
      for (Value o : def->getOperands())
        args.push_back(scalar(o, linalgOp, loopIdx, memo));
      r = op(def, args);
    }
  } else {
    r = unknown("a value from outside the mask computation");
  }
  return memo[v] = r;
}

SymRef Evaluator::inBody(Operation *linalgOp, Value v,
                         ArrayRef<Affine> loopIdx) {
  DenseMap<Value, SymRef> memo;
  return scalar(v, linalgOp, loopIdx, memo);
}

//===----------------------------------------------------------------------===//
// Tensor elements
//===----------------------------------------------------------------------===//

SymRef Evaluator::linalgAt(linalg::LinalgOp op, OpResult result,
                           ArrayRef<Affine> idx) {
  if (!op.hasPureTensorSemantics())
    return unknown("a linalg op on buffers");
  if (op.getNumReductionLoops() != 0)
    return unknown("a reduction in the mask computation");
  AffineMap out = op.getIndexingMapMatchingResult(result);
  SmallVector<Affine> loops(op.getNumLoops());
  SmallVector<bool> bound(op.getNumLoops(), false);
  for (auto [j, e] : llvm::enumerate(out.getResults())) {
    if (isa<AffineConstantExpr>(e))
      continue;
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return unknown("a result written through a non-trivial map");
    loops[d.getPosition()] = idx[j];
    bound[d.getPosition()] = true;
  }
  if (!llvm::all_of(bound, [](bool b) { return b; }))
    return unknown("a loop the result does not index");
  Value yielded =
      op.getBlock()->getTerminator()->getOperand(result.getResultNumber());
  return inBody(op, yielded, loops);
}

/// Splits `e`, a linear index into the source dims `group` (row-major), into
/// one index per dim: each variable term must be its dim's stride times a
/// variable whose range fits the dim; no constant offset.
bool Evaluator::splitLinear(const Affine &e, ArrayRef<int64_t> group,
                            ArrayRef<int64_t> srcShape,
                            SmallVector<Affine> &src) const {
  SmallVector<int64_t> strides(group.size(), 1);
  for (int i = (int)group.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * srcShape[group[i + 1]];
  for (int64_t s : group)
    src[s] = constant(0);
  if (e.c != 0) {
    // A constant index (no variable terms): decompose it.
    if (!e.isConstant())
      return false;
    int64_t rest = e.c;
    for (size_t i = 0; i < group.size(); ++i) {
      src[group[i]] = constant(rest / strides[i]);
      rest %= strides[i];
    }
    return true;
  }
  SmallVector<bool> used(group.size(), false);
  for (size_t k = 0; k < e.a.size(); ++k) {
    if (e.a[k] == 0)
      continue;
    bool placed = false;
    for (size_t i = 0; i < group.size() && !placed; ++i) {
      int64_t extent = k < extents.size() ? extents[k] : 0;
      if (!used[i] && e.a[k] == strides[i] && extent <= srcShape[group[i]]) {
        src[group[i]] = variable(k);
        used[i] = placed = true;
      }
    }
    if (!placed)
      return false;
  }
  return true;
}

SymRef Evaluator::reshapeAt(Operation *def, ArrayRef<Affine> idx) {
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<Affine> src;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      Affine s;
      int64_t stride = 1;
      for (int64_t r : llvm::reverse(group)) {
        s = combine(s, scaled(idx[r], stride), 1);
        stride *= shape[r];
      }
      src.push_back(s);
    }
    return at(expand.getSrc(), src);
  }
  auto collapse = cast<tensor::CollapseShapeOp>(def);
  ArrayRef<int64_t> srcShape = collapse.getSrcType().getShape();
  SmallVector<Affine> src(srcShape.size());
  for (auto [r, group] : llvm::enumerate(collapse.getReassociationIndices())) {
    if (!splitLinear(idx[r], group, srcShape, src))
      return unknown("a mask collapsed over several dimensions");
  }
  return at(collapse.getSrc(), src);
}

SymRef Evaluator::concatAt(tensor::ConcatOp concat, ArrayRef<Affine> idx) {
  int64_t dim = concat.getDim();
  auto [lo, hi] = range(idx[dim]);
  int64_t start = 0;
  SymRef result;
  // Pieces from the last: result = (x < end_k) ? piece_k : (later pieces).
  SmallVector<std::pair<int64_t, Value>> pieces;
  for (Value in : concat.getInputs()) {
    pieces.push_back({start, in});
    start += cast<RankedTensorType>(in.getType()).getDimSize(dim);
  }
  // From the last piece: result = (x < offset + size) ? piece : (later),
  // so that each piece is read exactly where x falls inside it.
  for (auto [offset, in] : llvm::reverse(pieces)) {
    int64_t size = cast<RankedTensorType>(in.getType()).getDimSize(dim);
    if (hi < offset || lo >= offset + size)
      continue;
    SmallVector<Affine> local(idx.begin(), idx.end());
    local[dim] = combine(idx[dim], constant(offset), -1);
    SymRef piece = at(in, local);
    // x < offset + size  <=>  offset + size - 1 - x >= 0
    SymRef inside =
        constraint(combine(constant(offset + size - 1), idx[dim], -1));
    result = result ? selectSym(inside, piece, result) : piece;
  }
  return result ? result : unknown("a concat read out of range");
}

SymRef Evaluator::scanAt(tm_tensor::ScanOp scan, OpResult result,
                         ArrayRef<Affine> idx) {
  if (result.getResultNumber() != 0)
    return unknown("a scan's accumulator");
  Block &body = scan.getRegion().front();
  Operation *comb = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp>(comb) || !scan.getInclusive())
    return unknown("a scan other than an inclusive integer sum");
  int64_t dim = scan.getDimension();
  // The input along the scanned dimension, at a position of its own.
  auto inType = cast<RankedTensorType>(scan.getInputs()[0].getType());
  unsigned t = newVariable(inType.getDimSize(dim));
  SmallVector<Affine> local(idx.begin(), idx.end());
  local[dim] = variable(t);
  SymRef x = at(scan.getInputs()[0], local);
  if (x->kind != Sym::Kind::Int || !x->aff.isConstant())
    return unknown("a scan of a non-constant sequence");
  // Inclusive (torch-mlir's cumsum): out[i] = x * (i + 1); the accumulator
  // operand is written, not read.
  return intSym(combine(constant(x->aff.c), scaled(idx[dim], x->aff.c), 1));
}

/// An integer constant that is affine in its own indices (TOSA's `arange`
/// as a literal): `c0 + sum_k a_k * i_k`, read at `idx`. Null otherwise.
SymRef Evaluator::denseAffine(DenseElementsAttr dense, ArrayRef<Affine> idx) {
  auto type = cast<RankedTensorType>(dense.getType());
  if (!type.getElementType().isSignlessInteger() ||
      type.getElementType().isInteger(1) || dense.getNumElements() > (1 << 22))
    return nullptr;
  SmallVector<APInt> vals(dense.getValues<APInt>());
  int64_t r = type.getRank();
  SmallVector<int64_t> strides(r, 1), coeff(r, 0);
  for (int64_t k = r - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * type.getDimSize(k + 1);
  int64_t c0 = vals[0].getSExtValue();
  for (int64_t k = 0; k < r; ++k)
    if (type.getDimSize(k) > 1)
      coeff[k] = vals[strides[k]].getSExtValue() - c0;
  for (int64_t e = 0, n = vals.size(); e < n; ++e) {
    int64_t expect = c0, rest = e;
    for (int64_t k = 0; k < r; ++k) {
      expect += coeff[k] * (rest / strides[k]);
      rest %= strides[k];
    }
    if (vals[e].getSExtValue() != expect)
      return nullptr;
  }
  Affine result = constant(c0);
  for (int64_t k = 0; k < r; ++k)
    result = combine(result, scaled(idx[k], coeff[k]), 1);
  return intSym(result);
}

/// A constant mask tensor (a `triu` folded by the frontend): its values must
/// depend only on the two trailing dims and be a band `j - i <= c` of one
/// value (zero, or true) against another. Returns the select that reads it.
SymRef Evaluator::denseBand(DenseElementsAttr dense, ArrayRef<Affine> idx) {
  auto type = cast<RankedTensorType>(dense.getType());
  int64_t r = type.getRank();
  if (r < 2 || dense.getNumElements() > (1 << 22))
    return unknown("a non-uniform constant tensor");
  int64_t rows = type.getDimSize(r - 2), cols = type.getDimSize(r - 1);
  SmallVector<Attribute> vals(dense.getValues<Attribute>());
  // Every leading slice equals the first.
  for (size_t e = rows * cols; e < vals.size(); ++e)
    if (vals[e] != vals[e % (rows * cols)])
      return unknown("a constant mask that varies along its batch dims");
  // Row i holds `in` at j in [0, last[i]] and `out` after it.
  Attribute in = vals[0], out;
  SmallVector<int64_t> last(rows, -1);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      Attribute v = vals[i * cols + j];
      if (v == in) {
        if (last[i] != j - 1)
          return unknown("a constant mask that is not a causal band");
        last[i] = j;
      } else if (!out || v == out) {
        out = v;
      } else {
        return unknown("a constant mask with more than two values");
      }
    }
  }
  if (!out)
    return constantSym(in);
  // c from a row the band cuts; every row must then end at i + c.
  std::optional<int64_t> c;
  for (int64_t i = 0; i < rows && !c; ++i)
    if (last[i] >= 0 && last[i] < cols - 1)
      c = last[i] - i;
  if (!c)
    return unknown("a constant mask that is not a causal band");
  for (int64_t i = 0; i < rows; ++i)
    if (last[i] != std::clamp<int64_t>(i + *c, -1, cols - 1))
      return unknown("a constant mask that is not a causal band");
  // j <= i + c  <=>  idx_i - idx_j + c >= 0
  SymRef band =
      constraint(combine(combine(idx[r - 2], idx[r - 1], -1), constant(*c), 1));
  return selectSym(band, constantSym(in), constantSym(out));
}

SymRef Evaluator::at(Value tensor, ArrayRef<Affine> idx) {
  if (--budget < 0)
    return unknown("the mask computation is too large to analyse");
  Operation *def = tensor.getDefiningOp();
  if (!def) {
    if (getElementTypeOrSelf(tensor.getType()).isInteger(1))
      return opaqueBool(); // A boolean mask passed in.
    return dataSym("a mask read from a function argument");
  }
  DenseElementsAttr dense;
  if (matchPattern(tensor, m_Constant(&dense))) {
    if (dense.isSplat())
      return constantSym(dense.getSplatValue<Attribute>());
    if (!llvm::all_of(idx, [](const Affine &a) { return a.isConstant(); })) {
      if (SymRef a = denseAffine(dense, idx))
        return a;
      return denseBand(dense, idx);
    }
    auto type = cast<RankedTensorType>(tensor.getType());
    uint64_t flat = 0;
    for (auto [k, a] : llvm::enumerate(idx))
      flat = flat * type.getDimSize(k) + a.c;
    return constantSym(dense.getValues<Attribute>()[flat]);
  }
  if (auto fill = dyn_cast<linalg::FillOp>(def)) {
    Attribute c;
    if (matchPattern(fill.getInputs()[0], m_Constant(&c)))
      return constantSym(c);
    return unknown("a fill with a non-constant value");
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return sinter::match::hasValidReassociation(def)
               ? reshapeAt(def, idx)
               : unknown("a reshape with a malformed reassociation");
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
    if (!slice.hasUnitStride() && slice.getStaticStrides().empty())
      return unknown("a strided slice");
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<Affine> src;
    unsigned r = 0;
    for (auto [k, off] : llvm::enumerate(slice.getStaticOffsets())) {
      int64_t stride = slice.getStaticStrides()[k];
      if (ShapedType::isDynamic(off) || ShapedType::isDynamic(stride))
        return unknown("a slice with dynamic offsets");
      Affine pos = dropped.test(k) ? constant(0) : scaled(idx[r++], stride);
      src.push_back(combine(pos, constant(off), 1));
    }
    return at(slice.getSource(), src);
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(def))
    return concatAt(concat, idx);
  if (auto scan = dyn_cast<tm_tensor::ScanOp>(def))
    return scanAt(scan, cast<OpResult>(tensor), idx);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def))
    return linalgAt(linalgOp, cast<OpResult>(tensor), idx);
  return unknown("'" + def->getName().getStringRef() +
                 "' in the mask computation");
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

/// The visible set `cond` (a Bool over loops of rank `r`, query loop r-2,
/// key loop r-1) as causal/window structure.
KeyVisibility classifyVisible(const Sym &cond, unsigned r) {
  KeyVisibility v;
  if (cond.kind != Sym::Kind::Bool) {
    v.why = cond.kind == Sym::Kind::Unknown ? cond.why
                                            : "the mask is not a condition";
    return v;
  }
  if (cond.falsy) {
    v.why = "the mask hides every key";
    return v;
  }
  std::optional<int64_t> upper, lower; // j <= i + upper; j >= i + lower
  for (const Affine &e : cond.constraints) {
    for (unsigned k = 0; k < e.a.size(); ++k)
      if (k + 2 != r && k + 1 != r && e.a[k] != 0) {
        v.why = "the mask depends on the batch or head index";
        return v;
      }
    int64_t ai = e.coeff(r - 2), aj = e.coeff(r - 1);
    if (ai == 1 && aj == -1) { // i - j + c >= 0  <=>  j <= i + c
      upper = upper ? std::min(*upper, e.c) : e.c;
    } else if (ai == -1 && aj == 1) { // j - i + c >= 0  <=>  j >= i - c
      lower = lower ? std::max(*lower, -e.c) : -e.c;
    } else {
      v.why = "the mask compares the query and key indices in a way that is "
              "not a causal or sliding-window band";
      return v;
    }
  }
  if (!upper && !lower) {
    v.kind =
        cond.opaque ? KeyVisibility::Kind::Unknown : KeyVisibility::Kind::All;
    if (cond.opaque)
      v.why = "the mask depends on data";
    return v;
  }
  if (!upper) {
    v.why = "the mask hides keys before the query, not after it";
    return v;
  }
  v.offset = *upper;
  if (cond.opaque) {
    v.kind = KeyVisibility::Kind::CausalAndData;
  } else if (lower) {
    v.kind = KeyVisibility::Kind::SlidingWindow;
    v.window = *upper - *lower + 1;
  } else {
    v.kind = KeyVisibility::Kind::Causal;
  }
  return v;
}

/// Classifies a float mask value: zero, or select between zero and hiding.
KeyVisibility classifyValue(const SymRef &s, unsigned r) {
  if (s->kind == Sym::Kind::Float) {
    KeyVisibility v;
    if (s->f == 0.0)
      v.kind = KeyVisibility::Kind::All;
    else
      v.why = "the mask is a non-zero constant";
    return v;
  }
  if (s->kind == Sym::Kind::Select && s->tv->kind == Sym::Kind::Float &&
      s->fv->kind == Sym::Kind::Float) {
    double t = s->tv->f, f = s->fv->f;
    SymRef visible;
    double hide = 0;
    if (t == 0.0 && isHidingValue(f)) {
      visible = s->cond;
      hide = f;
    } else if (f == 0.0 && isHidingValue(t)) {
      visible = notSym(s->cond);
      hide = t;
    }
    if (visible) {
      KeyVisibility v = classifyVisible(*visible, r);
      v.finiteFill = !std::isinf(hide);
      return v;
    }
  }
  KeyVisibility v;
  v.why = s->kind == Sym::Kind::Unknown
              ? s->why
              : "the mask is not a select between zero and a hiding value";
  return v;
}

} // namespace

/// `map`'s results as Affines over its dims (sums and constant multiples).
static bool toAffine(AffineMap map, SmallVector<Affine> &out) {
  std::function<std::optional<Affine>(AffineExpr)> conv =
      [&](AffineExpr e) -> std::optional<Affine> {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return variable(d.getPosition());
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return constant(c.getValue());
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return std::nullopt;
    std::optional<Affine> l = conv(bin.getLHS()), r = conv(bin.getRHS());
    if (!l || !r)
      return std::nullopt;
    if (e.getKind() == AffineExprKind::Add)
      return combine(*l, *r, 1);
    if (e.getKind() == AffineExprKind::Mul) {
      if (r->isConstant())
        return scaled(*l, r->c);
      if (l->isConstant())
        return scaled(*r, l->c);
    }
    return std::nullopt;
  };
  for (AffineExpr e : map.getResults()) {
    std::optional<Affine> a = conv(e);
    if (!a)
      return false;
    out.push_back(*a);
  }
  return true;
}

KeyVisibility sinter::attention::classifyAdditiveMask(Value mask,
                                                      AffineMap indices,
                                                      ArrayRef<int64_t> loops) {
  Evaluator ev(loops);
  SmallVector<Affine> idx;
  if (!toAffine(indices, idx)) {
    KeyVisibility v;
    v.why = "the mask is read through a non-affine map";
    return v;
  }
  return classifyValue(ev.at(mask, idx), loops.size());
}

KeyVisibility sinter::attention::classifyBooleanMask(Value mask,
                                                     AffineMap indices,
                                                     ArrayRef<int64_t> loops) {
  Evaluator ev(loops);
  SmallVector<Affine> idx;
  KeyVisibility v;
  if (!toAffine(indices, idx)) {
    v.why = "the mask is read through a non-affine map";
    return v;
  }
  SymRef visible = ev.at(mask, idx);
  if (visible->kind == Sym::Kind::Unknown &&
      visible->why.find("argument") != std::string::npos) {
    // A mask passed in: data, nothing known.
    v.why = visible->why;
    return v;
  }
  return classifyVisible(*visible, loops.size());
}

KeyVisibility sinter::attention::classifyHidingCondition(
    Value hiddenWhen, linalg::GenericOp body, ArrayRef<int64_t> loops,
    bool negate) {
  Evaluator ev(loops);
  SmallVector<Affine> loopIdx;
  for (unsigned k = 0; k < loops.size(); ++k)
    loopIdx.push_back(variable(k));
  SymRef hidden = ev.inBody(body, hiddenWhen, loopIdx);
  SymRef visible = negate ? hidden : notSym(hidden);
  return classifyVisible(*visible, loops.size());
}
