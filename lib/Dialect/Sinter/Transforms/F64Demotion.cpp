//===- F64Demotion.cpp - f64 statistics of f32 data, recomputed in f32 ----===//
//
// Part of the Sinter project.
//
// torch's decomposition of `aten.native_layer_norm` computes the variance in
// f64 (torch-mlir 20261001, f32 and bf16 models alike):
//
//   %x64 = linalg.generic ins(%x : tensor<2x128x256xf32>) { arith.extf }
//   %s   = linalg.generic ins(%x64) outs(%zeros64) { arith.addf }   // sum
//   %m   = linalg.generic ins(%s) { arith.divf %in, %n64 }           // mean
//   %d   = linalg.generic ins(%x64, %m) { arith.subf }               // x - m
//   %q   = linalg.generic ins(%d, %d) { arith.mulf }
//   %v   = ... sum, divf ...                                         // var
//   %v32 = linalg.generic ins(%v : tensor<2x128x1xf64>) { arith.truncf }
//
// while the mean it normalises with is computed in f32 beside it. Such an
// island -- f64 generics, fills, empties and reshapes whose only tensor
// sources are lower-precision tensors extended to f64, and whose only use
// is the truncation back -- is cloned with f32 in place of f64 (constants
// rounded to nearest), so that the norm matchers see one precision and CSE
// merges the duplicated mean. This changes the rounding of the statistic
// (f32 instead of f64 accumulation), not the formula: the fused norms
// accumulate in f32 as torch's own GPU kernels do.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

bool isF64Tensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getElementType().isF64();
}

/// A generic whose body only casts its one input element (`extf` or
/// `truncf`), all maps the identity.
bool isCastGeneric(linalg::GenericOp g, bool ext) {
  if (g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  Block *body = g.getBlock();
  if (body->getOperations().size() != 2)
    return false;
  Operation &cast = body->front();
  bool kind = ext ? isa<arith::ExtFOp>(cast) : isa<arith::TruncFOp>(cast);
  return kind && cast.getOperand(0) == body->getArgument(0) &&
         body->getTerminator()->getOperand(0) == cast.getResult(0);
}

/// A body op the demotion can retype: f64 float arithmetic, constants,
/// casts, compares and selects.
bool isRetypableBodyOp(Operation &op) {
  if (isa<linalg::YieldOp, arith::ConstantOp, arith::ExtFOp, arith::TruncFOp,
          arith::CmpFOp, arith::SelectOp>(op))
    return true;
  Dialect *d = op.getDialect();
  return d && (isa<arith::ArithDialect, math::MathDialect>(d)) &&
         llvm::all_of(op.getResultTypes(), [](Type t) { return t.isF64(); });
}

/// The island feeding one truncation: its ops in block order and the f64
/// scalar constants they capture.
struct Island {
  SetVector<Operation *> ops;
  SetVector<Value> capturedConstants;
};

class IslandCollector {
public:
  IslandCollector(Block *block, Island &island)
      : block(block), island(island) {}

  bool collect(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return false;
    if (island.ops.contains(def))
      return true;
    if (++visited > 256)
      return false;
    if (!add(def))
      return false;
    island.ops.insert(def);
    return true;
  }

private:
  bool add(Operation *def) {
    if (isa<tensor::EmptyOp>(def))
      return true;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      return collect(def->getOperand(0));
    if (auto fill = dyn_cast<linalg::FillOp>(def))
      return captureConstant(fill.getInputs()[0]) &&
             collect(fill.getOutputs()[0]);
    // Generics, and TOSA's reductions as linalg.reduce.
    if (!isa<linalg::GenericOp, linalg::ReduceOp, linalg::MapOp>(def) ||
        !llvm::all_of(def->getResultTypes(), isF64Tensor))
      return false;
    auto g = dyn_cast<linalg::GenericOp>(def);
    if (g && isCastGeneric(g, /*ext=*/true)) // A leaf: a lower-precision
      return collect(g.getDpsInits()[0]);     // tensor extended to f64.
    auto dps = cast<DestinationStyleOpInterface>(def);
    for (OpOperand *in : dps.getDpsInputOperands())
      if (!isF64Tensor(in->get().getType()) || !collect(in->get()))
        return false;
    for (Value init : dps.getDpsInits())
      if (!collect(init))
        return false;
    Block *body = &def->getRegion(0).front();
    for (Operation &op : body->getOperations()) {
      if (!isRetypableBodyOp(op))
        return false;
      for (Value o : op.getOperands())
        if (o.getParentBlock() != body && !captureConstant(o))
          return false;
    }
    return true;
  }

  bool captureConstant(Value v) {
    FloatAttr c;
    if (!v.getType().isF64() || !matchPattern(v, m_Constant(&c)))
      return false;
    island.capturedConstants.insert(v);
    return true;
  }

  Block *block;
  Island &island;
  int visited = 0;
};

Type toF32(Type t, MLIRContext *ctx) {
  if (t.isF64())
    return Float32Type::get(ctx);
  if (auto rt = dyn_cast<RankedTensorType>(t); rt && rt.getElementType().isF64())
    return rt.clone(Float32Type::get(ctx));
  return t;
}

/// Retypes a cloned island op from f64 to f32 in place; casts that become
/// identities are removed.
void retype(Operation *op, OpBuilder &b) {
  MLIRContext *ctx = op->getContext();
  for (Value r : op->getResults())
    r.setType(toF32(r.getType(), ctx));
  // Generics and named ops (fill) alike carry a body.
  if (op->getNumRegions() != 1 || op->getRegion(0).empty())
    return;
  Block *body = &op->getRegion(0).front();
  for (BlockArgument a : body->getArguments())
    a.setType(toF32(a.getType(), ctx));
  for (Operation &inner : llvm::make_early_inc_range(*body)) {
    if (auto c = dyn_cast<arith::ConstantOp>(inner); c && c.getType().isF64()) {
      b.setInsertionPoint(c);
      double v = cast<FloatAttr>(c.getValue()).getValueAsDouble();
      Value f = arith::ConstantOp::create(b, c.getLoc(), b.getF32FloatAttr(v));
      c.getResult().replaceAllUsesWith(f);
      c.erase();
      continue;
    }
    for (Value r : inner.getResults())
      r.setType(toF32(r.getType(), ctx));
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner) &&
        inner.getOperand(0).getType() == inner.getResult(0).getType()) {
      inner.getResult(0).replaceAllUsesWith(inner.getOperand(0));
      inner.erase();
    }
  }
}

/// Clones `island` before `at` in f32; returns the clone of `root`.
Value cloneInF32(Island &island, Value root, Operation *at) {
  OpBuilder b(at);
  IRMapping map;
  for (Value c : island.capturedConstants) {
    double v = cast<FloatAttr>(cast<arith::ConstantOp>(c.getDefiningOp())
                                   .getValue())
                   .getValueAsDouble();
    map.map(c, arith::ConstantOp::create(b, c.getLoc(), b.getF32FloatAttr(v))
                   .getResult());
  }
  // Block order is a topological order of the island.
  SmallVector<Operation *> ordered(island.ops.begin(), island.ops.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  for (Operation *op : ordered) {
    Operation *clone = b.clone(*op, map);
    OpBuilder inner(clone);
    retype(clone, inner);
  }
  return map.lookup(root);
}

bool onlyUsedWithin(const Island &island, Operation *trunc) {
  for (Operation *op : island.ops) {
    // Empties and fills carry no data of the island: cloning them is free,
    // and other users keep the originals.
    if (isa<tensor::EmptyOp, linalg::FillOp>(op))
      continue;
    for (Operation *user : op->getUsers())
      if (user != trunc && !island.ops.contains(user))
        return false;
  }
  return true;
}

} // namespace

unsigned sinter::demoteF64Statistics(Operation *root) {
  SmallVector<linalg::GenericOp> truncs;
  root->walk([&](linalg::GenericOp g) {
    if (isCastGeneric(g, /*ext=*/false) &&
        isF64Tensor(g.getDpsInputs()[0].getType()))
      truncs.push_back(g);
  });
  unsigned count = 0;
  for (linalg::GenericOp t : truncs) {
    Island island;
    IslandCollector collector(t->getBlock(), island);
    Value src = t.getDpsInputs()[0];
    if (!collector.collect(src) || !onlyUsedWithin(island, t))
      continue;
    Value demoted = cloneInF32(island, src, t);
    Type resultType = t->getResult(0).getType();
    if (demoted.getType() == resultType) {
      t->getResult(0).replaceAllUsesWith(demoted);
    } else {
      // A truncation to f16/bf16: keep it, now from f32.
      t->setOperand(0, demoted);
      t.getBlock()->getArgument(0).setType(
          cast<RankedTensorType>(demoted.getType()).getElementType());
    }
    ++count;
  }
  return count;
}
