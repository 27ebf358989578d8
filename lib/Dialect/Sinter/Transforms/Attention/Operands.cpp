//===- Operands.cpp - Q, K and V behind the products ----------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Operands.h"
#include "../MatchUtils.h"
#include "Products.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace sinter {
namespace attention {

namespace {

using Reassoc = SmallVector<ReassociationIndices>;

/// GQA's repeat: a copy generic from [B, Hkv, S, D] (or from
/// [B, Hkv, 1, S, D], the expand_shape of it) to [B, Hkv, R, S, D]. Returns
/// the 4-D source.
Value matchHeadRepeat(Value v, SetVector<Operation *> &ops) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 || g.hasIndexSemantics() ||
      g.getNumLoops() != 5)
    return {};
  Block *body = g.getBlock();
  if (body->getOperations().size() != 1 ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity())
    return {};
  Value src = g.getDpsInputs()[0];
  if (maps[0] == AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx)) {
    ops.insert(g);
    return src;
  }
  auto expand = src.getDefiningOp<tensor::ExpandShapeOp>();
  if (maps[0] == AffineMap::get(
                     5, 0,
                     {d(0), d(1), getAffineConstantExpr(0, ctx), d(3), d(4)},
                     ctx) &&
      expand && expand.getSrcType().getRank() == 4 &&
      expand.getReassociationIndices() == Reassoc{{0}, {1, 2}, {3}, {4}}) {
    ops.insert(g);
    ops.insert(expand);
    return expand.getSrc();
  }
  return {};
}

bool isTrailingSwap(ArrayRef<int64_t> perm) {
  size_t n = perm.size();
  if (n < 2 || perm[n - 1] != (int64_t)n - 2 || perm[n - 2] != (int64_t)n - 1)
    return false;
  for (size_t i = 0; i + 2 < n; ++i)
    if (perm[i] != (int64_t)i)
      return false;
  return true;
}

/// One step back through a head merge; updates `rank`.
Value stepCollapse(tensor::CollapseShapeOp c, int64_t &rank) {
  if (!match::hasValidReassociation(c))
    return {};
  int64_t srcRank = c.getSrcType().getRank();
  Reassoc re = c.getReassociationIndices();
  if ((rank == 3 && srcRank == 4 && re == Reassoc{{0, 1}, {2}, {3}}) ||
      (rank == 3 && srcRank == 5 && re == Reassoc{{0, 1, 2}, {3}, {4}}) ||
      (rank == 4 && srcRank == 5 && re == Reassoc{{0}, {1, 2}, {3}, {4}})) {
    rank = srcRank;
    return c.getSrc();
  }
  return {};
}

} // namespace

std::optional<Operand> resolveOperand(Value v, bool transposed, bool allowScale,
                                      std::string &why) {
  Operand op;
  bool swapped = transposed;
  Value cur = v;
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  for (int step = 0; step < 16; ++step) {
    Operation *def = cur.getDefiningOp();
    if (rank == 5) {
      Value src = def ? matchHeadRepeat(cur, op.ops) : Value();
      if (!src) {
        why = "a 5-D operand that is not a head repeat (repeat_kv)";
        return std::nullopt;
      }
      op.repeat *= cast<RankedTensorType>(cur.getType()).getDimSize(2);
      cur = src;
      rank = 4;
      continue;
    }
    if (!def)
      break;
    if (auto c = dyn_cast<tensor::CollapseShapeOp>(def)) {
      if (Value src = stepCollapse(c, rank)) {
        op.ops.insert(c);
        cur = src;
        continue;
      }
      break;
    }
    // The math SDPA upcasts f16/bf16 operands: the fused op computes in f32
    // from the narrow tensor.
    if (Value narrow = matchCast(cur, /*widen=*/true)) {
      op.ops.insert(def);
      cur = narrow;
      continue;
    }
    Value src;
    std::optional<double> f;
    if (allowScale && (f = matchScalarScale(def, src))) {
      if (!(*f > 0.0)) {
        why = "an operand is scaled by a non-positive constant";
        return std::nullopt;
      }
      op.scale *= *f;
      op.ops.insert(def);
      cur = src;
      continue;
    }
    SmallVector<int64_t> perm;
    if (Value psrc = matchPermutation(cur, perm)) {
      if (isTrailingSwap(perm)) {
        swapped = !swapped;
        op.ops.insert(def);
        cur = psrc;
        continue;
      }
      if (swapped && rank == 4) {
        // K^T = perm(src): K = perm with its last two entries swapped.
        std::swap(perm[2], perm[3]);
        op.perm = perm;
        op.ops.insert(def);
        cur = psrc;
        swapped = false;
      }
      break;
    }
    break;
  }
  if (swapped) {
    why = transposed ? "the second operand of Q K^T is not a transposed K"
                     : "an operand of the products is read transposed";
    return std::nullopt;
  }
  if (rank > 4) {
    why = "an operand of rank " + std::to_string(rank) +
          " that is not a head repeat";
    return std::nullopt;
  }
  op.source = cur;
  op.is4D = rank == 4;
  return op;
}

SmallVector<int64_t> operandShape(const Operand &op) {
  auto type = cast<RankedTensorType>(op.source.getType());
  if (op.perm.empty())
    return llvm::to_vector(type.getShape());
  SmallVector<int64_t> shape;
  for (int64_t p : op.perm)
    shape.push_back(type.getDimSize(p));
  return shape;
}

Value materialize(OpBuilder &b, Location loc, const Operand &op, int64_t batch,
                  int64_t heads) {
  Value v = op.source;
  if (!op.perm.empty()) {
    auto type = cast<RankedTensorType>(v.getType());
    Value init = tensor::EmptyOp::create(b, loc, operandShape(op),
                                         type.getElementType());
    v = linalg::TransposeOp::create(b, loc, v, init, op.perm).getResult()[0];
  }
  return op.is4D ? v : to4D(b, loc, v, batch, heads);
}

} // namespace attention
} // namespace sinter
