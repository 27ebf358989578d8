//===- Products.cpp - The two matrix products of attention ----------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Products.h"
#include "../MatchUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace sinter {
namespace attention {

bool isZeroInit(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
    FloatAttr c;
    return matchPattern(fill.getInputs()[0], m_Constant(&c)) &&
           c.getValue().isZero();
  }
  DenseFPElementsAttr splat;
  return matchPattern(v, m_Constant(&splat)) && splat.isSplat() &&
         splat.getSplatValue<APFloat>().isZero();
}

/// A `linalg.generic` whose body is `acc + a * b` over its two inputs
/// (possibly widened with `extf`), with the loops of a (batched) matmul:
/// parallel [batch,] m, n, reduction k.
static bool isContractionGeneric(linalg::GenericOp g) {
  if (g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g.hasIndexSemantics() || g.getNumReductionLoops() != 1)
    return false;
  SmallVector<utils::IteratorType> iters = g.getIteratorTypesArray();
  if (iters.size() != 3 && iters.size() != 4)
    return false;
  for (unsigned i = 0; i + 1 < iters.size(); ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return false;
  Block *body = g.getBlock();
  auto add = dyn_cast_or_null<arith::AddFOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value prod = add.getLhs() == acc
                   ? add.getRhs()
                   : (add.getRhs() == acc ? add.getLhs() : Value());
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto strip = [](Value v) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      return ext.getIn();
    return v;
  };
  Value a = body->getArgument(0), b = body->getArgument(1);
  Value l = strip(mul.getLhs()), r = strip(mul.getRhs());
  unsigned expected = 3 + (l != mul.getLhs()) + (r != mul.getRhs());
  return body->getOperations().size() == expected &&
         ((l == a && r == b) || (l == b && r == a));
}

bool isProductOp(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  return isa<linalg::BatchMatmulOp, linalg::MatmulOp>(op) ||
         (g && isContractionGeneric(g));
}

std::optional<Product> matchProduct(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !isProductOp(op) || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumDpsInputs() != 2 ||
      !isZeroInit(linalgOp.getDpsInits()[0]))
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  auto generic = dyn_cast<linalg::GenericOp>(op);
  bool batched =
      isa<linalg::BatchMatmulOp>(op) || (generic && generic.getNumLoops() == 4);
  unsigned n = batched ? 4 : 3;
  unsigned m = batched ? 1 : 0;
  // Loops: [batch,] m, p, k.
  auto with = [&](unsigned x, unsigned y) {
    SmallVector<AffineExpr> r;
    if (batched)
      r.push_back(getAffineDimExpr(0, ctx));
    r.push_back(getAffineDimExpr(x, ctx));
    r.push_back(getAffineDimExpr(y, ctx));
    return AffineMap::get(n, 0, r, ctx);
  };
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  if (maps[0] != with(m, m + 2) || maps[2] != with(m, m + 1))
    return std::nullopt;
  Product p;
  p.op = op;
  p.lhs = linalgOp.getDpsInputs()[0];
  p.rhs = linalgOp.getDpsInputs()[1];
  if (maps[1] == with(m + 2, m + 1))
    p.transposedB = false;
  else if (maps[1] == with(m + 1, m + 2))
    p.transposedB = true;
  else
    return std::nullopt;
  return p;
}

Value matchPermutation(Value v, SmallVector<int64_t> &perm) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>()) {
    perm.assign(t.getPermutation().begin(), t.getPermutation().end());
    return t.getInput();
  }
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 || g.hasIndexSemantics())
    return {};
  Block *body = g.getBlock();
  if (body->getOperations().size() != 1 ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isPermutation())
    return {};
  // out[d] = in[map(d)]: source dim j is read by loop map[j], so result dim
  // i comes from the source dim j with map[j] = i.
  AffineMap inv = inversePermutation(maps[0]);
  perm.clear();
  for (AffineExpr e : inv.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return g.getDpsInputs()[0];
}

bool keepsTrailingDims(Operation *op) {
  if (!match::hasValidReassociation(op))
    return false;
  SmallVector<ReassociationIndices> re;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    re = e.getReassociationIndices();
  else if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    re = c.getReassociationIndices();
  else
    return false;
  return re.size() >= 2 && re[re.size() - 1].size() == 1 &&
         re[re.size() - 2].size() == 1;
}

/// The single non-constant, non-terminator op of an identity-mapped,
/// one-input elementwise generic, or null.
static Operation *soleBodyOp(linalg::GenericOp g) {
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.hasIndexSemantics() || g.getNumReductionLoops() != 0 ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return nullptr;
  Operation *only = nullptr;
  for (Operation &op : g.getBlock()->without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (only)
      return nullptr;
    only = &op;
  }
  if (!only || g.getBlock()->getTerminator()->getOperand(0) !=
                   only->getResult(0))
    return nullptr;
  return only;
}

std::optional<double> matchScalarScale(Operation *op, Value &source) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(op);
  Operation *arith = soleBodyOp(g);
  if (!isa_and_nonnull<arith::MulFOp, arith::DivFOp>(arith))
    return std::nullopt;
  Value in = g.getBlock()->getArgument(0);
  Value lhs = arith->getOperand(0), rhs = arith->getOperand(1);
  Value c = lhs == in ? rhs : (rhs == in ? lhs : Value());
  FloatAttr attr;
  if (!c || (isa<arith::DivFOp>(arith) && lhs != in) ||
      !matchPattern(c, m_Constant(&attr)))
    return std::nullopt;
  double v = attr.getValueAsDouble();
  if (!std::isfinite(v) || v == 0.0)
    return std::nullopt;
  source = g.getDpsInputs()[0];
  if (source.getType() != g.getResult(0).getType())
    return std::nullopt;
  return isa<arith::DivFOp>(arith) ? 1.0 / v : v;
}

Value matchCast(Value v, bool widen) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  Operation *cast = soleBodyOp(g);
  if (!cast || !(widen ? isa<arith::ExtFOp>(cast) : isa<arith::TruncFOp>(cast)) ||
      cast->getOperand(0) != g.getBlock()->getArgument(0))
    return {};
  return g.getDpsInputs()[0];
}

Value to4D(OpBuilder &b, Location loc, Value v, int64_t batch, int64_t heads) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t r = type.getRank();
  if (r == 4)
    return v;
  SmallVector<int64_t> shape{batch, heads, type.getDimSize(r - 2),
                             type.getDimSize(r - 1)};
  SmallVector<ReassociationIndices> reassoc =
      r == 3 ? SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}
             : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}};
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc);
}

} // namespace attention
} // namespace sinter
