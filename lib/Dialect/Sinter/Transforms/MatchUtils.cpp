//===- MatchUtils.cpp - Element views for Sinter's raising passes ---------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "MatchUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::match;

Node *ViewBuilder::make(Node::Kind kind) {
  nodes.push_back(std::make_unique<Node>());
  nodes.back()->kind = kind;
  return nodes.back().get();
}

Node *ViewBuilder::makeConst(double c) {
  Node *n = make(Node::Kind::Const);
  n->constant = c;
  return n;
}

Node *ViewBuilder::root(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  assert(type.getRank() == rootRank && "root of another rank");
  rootShape.assign(type.getShape().begin(), type.getShape().end());
  return view(tensor, AffineMap::getMultiDimIdentityMap(rootRank, ctx));
}

Node *ViewBuilder::view(Value tensor, AffineMap indices) {
  // A unit dim is read at 0 whatever the expression: one spelling, so that
  // batch-1 views compare equal however a reshape wrote them.
  if (auto type = dyn_cast<RankedTensorType>(tensor.getType());
      type && type.getRank() == indices.getNumResults()) {
    SmallVector<AffineExpr> canon(indices.getResults());
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.getDimSize(i) == 1)
        canon[i] = getAffineConstantExpr(0, ctx);
    indices = AffineMap::get(indices.getNumDims(), 0, canon, ctx);
  }
  auto key = std::make_pair(tensor, indices);
  auto it = views.find(key);
  if (it != views.end())
    return it->second;
  Node *n = make(Node::Kind::View);
  n->value = tensor;
  n->indices = indices;
  views[key] = n;
  return n;
}

/// The float value of a constant scalar or splat, if any.
static std::optional<double> constantOf(Value v) {
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValueAsDouble();
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat() &&
      isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// Maps the indices of a unit-dim reshape between `from` (the reshaped side,
/// grouped by `reassociation`) and `to`: every group may hold at most one
/// non-unit dimension.
static std::optional<SmallVector<AffineExpr>>
reshapeIndices(ArrayRef<AffineExpr> fromIdx, ArrayRef<int64_t> fromShape,
               ArrayRef<int64_t> toShape,
               ArrayRef<ReassociationIndices> reassociation, bool expanding,
               MLIRContext *ctx) {
  // `expanding`: `from` is the expanded (higher-rank) side; each group of
  // `from` dims corresponds to one `to` dim. Otherwise `from` is the
  // collapsed side and each `from` dim corresponds to a group of `to` dims.
  SmallVector<AffineExpr> out;
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  for (auto [g, group] : llvm::enumerate(reassociation)) {
    if (expanding) {
      AffineExpr e = zero;
      int nonUnit = 0;
      for (int64_t d : group)
        if (fromShape[d] != 1) {
          ++nonUnit;
          e = fromIdx[d];
        }
      if (nonUnit > 1 || (ShapedType::isDynamic(toShape[g]) && nonUnit == 0))
        return std::nullopt;
      out.push_back(e);
    } else {
      int nonUnit = 0;
      for (int64_t d : group)
        nonUnit += toShape[d] != 1;
      if (nonUnit > 1)
        return std::nullopt;
      for (int64_t d : group)
        out.push_back(toShape[d] != 1 || group.size() == 1 ? fromIdx[g] : zero);
    }
  }
  return out;
}

bool match::hasValidReassociation(Operation *op) {
  SmallVector<ReassociationIndices> re;
  int64_t wide = 0;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    re = e.getReassociationIndices();
    wide = e.getResultType().getRank();
  } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    re = c.getReassociationIndices();
    wide = c.getSrcType().getRank();
  } else {
    return false;
  }
  // The groups list 0, 1, ..., wide - 1 in order (the upstream verifier
  // lets out-of-range indices through, which would index past the shape).
  int64_t next = 0;
  for (const ReassociationIndices &g : re)
    for (int64_t d : g)
      if (d != next++)
        return false;
  return next == wide;
}

void ViewBuilder::expand(Node *n) {
  n->expanded = true;
  Value v = n->value;
  Operation *def = v.getDefiningOp();
  if (!def)
    return;
  if (std::optional<double> c = constantOf(v)) {
    n->def = makeConst(*c);
    n->defOp = def;
    return;
  }
  if (auto fill = dyn_cast<linalg::FillOp>(def)) {
    Value s = fill.getInputs()[0];
    if (std::optional<double> c = constantOf(s)) {
      n->def = makeConst(*c);
    } else {
      n->def = make(Node::Kind::Scalar);
      n->def->value = s;
    }
    n->defOp = def;
    return;
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) &&
      !hasValidReassociation(def))
    return; // Opaque.
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    auto idx = reshapeIndices(n->indices.getResults(),
                              expand.getResultType().getShape(),
                              expand.getSrcType().getShape(),
                              expand.getReassociationIndices(), true, ctx);
    if (!idx)
      return;
    n->def = view(expand.getSrc(), AffineMap::get(rootRank, 0, *idx, ctx));
    n->defOp = def;
    return;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    auto idx = reshapeIndices(n->indices.getResults(),
                              collapse.getResultType().getShape(),
                              collapse.getSrcType().getShape(),
                              collapse.getReassociationIndices(), false, ctx);
    if (!idx)
      return;
    n->def = view(collapse.getSrc(), AffineMap::get(rootRank, 0, *idx, ctx));
    n->defOp = def;
    return;
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def)) {
    if (!linalgOp.hasPureTensorSemantics() || linalgOp.hasIndexSemantics() ||
        !llvm::all_of(linalgOp.getIndexingMapsArray(), [](AffineMap m) {
          return m.isProjectedPermutation(/*allowZeroInResults=*/true);
        }))
      return;
    auto result = cast<OpResult>(v);
    AffineMap outMap = linalgOp.getIndexingMapMatchingResult(result);
    unsigned numLoops = linalgOp.getNumLoops();
    SmallVector<AffineExpr> loopIdx(numLoops);
    for (auto [j, e] : llvm::enumerate(outMap.getResults())) {
      if (isa<AffineConstantExpr>(e))
        continue;
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      if (loopIdx[d] && loopIdx[d] != n->indices.getResult(j))
        return;
      loopIdx[d] = n->indices.getResult(j);
    }
    SmallVector<utils::IteratorType> iters = linalgOp.getIteratorTypesArray();
    // Bind reduced loops to the root dims the parallel ones leave unused.
    SmallVector<bool> used(rootRank, false);
    for (AffineExpr e : loopIdx) {
      if (!e)
        continue;
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        used[dim.getPosition()] = true;
      else if (!isa<AffineConstantExpr>(e))
        return;
    }
    // A unit root dim read at constant 0 (batch 1) is unused too, but a
    // reduced loop of another extent cannot be it: skip such dims.
    SmallVector<int64_t> extents = linalgOp.getStaticLoopRanges();
    auto fits = [&](unsigned rootDim, unsigned loop) {
      return rootShape.empty() || rootShape[rootDim] != 1 || extents[loop] == 1;
    };
    SmallVector<unsigned> reduced;
    unsigned nextFree = 0;
    for (unsigned l = 0; l < numLoops; ++l) {
      if (loopIdx[l])
        continue;
      if (iters[l] != utils::IteratorType::reduction)
        return; // A parallel loop the result does not index.
      while (nextFree < rootRank && (used[nextFree] || !fits(nextFree, l)))
        ++nextFree;
      if (nextFree == rootRank)
        return;
      loopIdx[l] = getAffineDimExpr(nextFree, ctx);
      reduced.push_back(nextFree++);
    }
    Block *body = linalgOp.getBlock();
    Value yielded = body->getTerminator()->getOperand(result.getResultNumber());
    DenseMap<Value, Node *> memo;
    if (reduced.empty()) {
      n->def = scalar(yielded, loopIdx, def, memo);
      n->defOp = def;
      return;
    }
    // A reduction: the yielded value must combine the accumulator with a
    // value computed from the inputs.
    BlockArgument acc =
        linalgOp.getRegionOutputArgs()[result.getResultNumber()];
    Operation *comb = yielded.getDefiningOp();
    if (!comb || comb->getBlock() != body || comb->getNumOperands() != 2 ||
        comb->getNumResults() != 1)
      return;
    Value other;
    if (comb->getOperand(0) == acc)
      other = comb->getOperand(1);
    else if (comb->getOperand(1) == acc)
      other = comb->getOperand(0);
    else
      return;
    // The accumulator may be used only by the combiner.
    if (!acc.hasOneUse())
      return;
    Node *r = make(Node::Kind::Reduce);
    r->op = def;
    r->combiner = comb;
    r->reducedDims = reduced;
    r->operands.push_back(scalar(other, loopIdx, def, memo));
    Value init = linalgOp.getDpsInits()[result.getResultNumber()];
    r->operands.push_back(view(init, n->indices));
    n->def = r;
    n->defOp = def;
    return;
  }
  // arith/math ops applied to tensors.
  if (def->hasTrait<OpTrait::Elementwise>() && def->getNumResults() == 1 &&
      isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
          def->getDialect())) {
    auto type = cast<RankedTensorType>(v.getType());
    for (Value o : def->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(o.getType());
      if (!t || t.getShape() != type.getShape())
        return;
    }
    Node *op = make(Node::Kind::Op);
    op->op = def;
    for (Value o : def->getOperands())
      op->operands.push_back(view(o, n->indices));
    n->def = op;
    n->defOp = def;
  }
}

Node *ViewBuilder::scalar(Value v, ArrayRef<AffineExpr> loopIdx,
                          Operation *owner, DenseMap<Value, Node *> &memo) {
  if (Node *m = memo.lookup(v))
    return m;
  auto linalgOp = cast<linalg::LinalgOp>(owner);
  Block *body = linalgOp.getBlock();
  Node *result = nullptr;
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
    OpOperand *operand = linalgOp.getMatchingOpOperand(arg);
    Value src = operand->get();
    if (!isa<ShapedType>(src.getType())) {
      if (std::optional<double> c = constantOf(src)) {
        result = makeConst(*c);
      } else {
        result = make(Node::Kind::Scalar);
        result->value = src;
      }
    } else {
      AffineMap map = linalgOp.getMatchingIndexingMap(operand);
      SmallVector<AffineExpr> idx;
      for (AffineExpr e : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          idx.push_back(loopIdx[dim.getPosition()]);
        else
          idx.push_back(e);
      }
      result = view(src, AffineMap::get(rootRank, 0, idx, ctx));
    }
  } else if (Operation *def = v.getDefiningOp();
             def && def->getBlock() == body) {
    if (std::optional<double> c = constantOf(v)) {
      result = makeConst(*c);
    } else {
      result = make(Node::Kind::Op);
      result->op = def;
      for (Value o : def->getOperands())
        result->operands.push_back(scalar(o, loopIdx, owner, memo));
    }
  } else {
    // Defined above the op.
    auto extract = v.getDefiningOp<tensor::ExtractOp>();
    if (std::optional<double> c = constantOf(v)) {
      result = makeConst(*c);
    } else if (extract && extract.getIndices().empty()) {
      // An element of a 0-d tensor (torch-mlir's scalars): its computation.
      result = view(extract.getTensor(), AffineMap::get(rootRank, 0, {}, ctx));
    } else {
      result = make(Node::Kind::Scalar);
      result->value = v;
    }
  }
  memo[v] = result;
  return result;
}

Node *ViewBuilder::skip(Node *n, SetVector<Operation *> *covered) {
  while (n->kind == Node::Kind::View) {
    if (!n->expanded)
      expand(n);
    if (!n->def)
      return n;
    // Constants and fills are shared freely; they are not part of a match.
    if (covered && n->defOp &&
        !isa<linalg::FillOp, arith::ConstantOp>(n->defOp))
      covered->insert(n->defOp);
    n = n->def;
  }
  return n;
}

std::optional<double> match::getConstant(ViewBuilder &b, Node *n) {
  n = b.skip(n);
  if (n->kind == Node::Kind::Const)
    return n->constant;
  return std::nullopt;
}

bool match::isOp(ViewBuilder &b, Node *n, StringRef name) {
  n = b.skip(n);
  return n->kind == Node::Kind::Op && n->op->getName().getStringRef() == name;
}

static bool isCommutative(Operation *op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(op);
}

bool match::same(ViewBuilder &b, Node *x, Node *y) {
  if (x == y)
    return true;
  if (x->kind == Node::Kind::View && y->kind == Node::Kind::View &&
      x->value == y->value && x->indices == y->indices)
    return true;
  x = b.skip(x);
  y = b.skip(y);
  if (x == y)
    return true;
  if (x->kind != y->kind)
    return false;
  switch (x->kind) {
  case Node::Kind::View:
    return false; // Opaque and distinct.
  case Node::Kind::Const:
    return x->constant == y->constant;
  case Node::Kind::Scalar:
    return x->value == y->value;
  case Node::Kind::Reduce:
    return x->combiner->getName() == y->combiner->getName() &&
           x->reducedDims == y->reducedDims &&
           same(b, x->operands[0], y->operands[0]) &&
           same(b, x->operands[1], y->operands[1]);
  case Node::Kind::Op: {
    if (x->op->getName() != y->op->getName() ||
        x->operands.size() != y->operands.size() ||
        x->op->getResultTypes() != y->op->getResultTypes())
      return false;
    // Compare the op's own attributes (predicates, ...) but not fastmath.
    for (NamedAttribute a : x->op->getAttrs())
      if (a.getName() != "fastmath" &&
          y->op->getAttr(a.getName()) != a.getValue())
        return false;
    bool inOrder =
        llvm::all_of(llvm::zip(x->operands, y->operands), [&](auto p) {
          return same(b, std::get<0>(p), std::get<1>(p));
        });
    if (inOrder)
      return true;
    return isCommutative(x->op) && x->operands.size() == 2 &&
           same(b, x->operands[0], y->operands[1]) &&
           same(b, x->operands[1], y->operands[0]);
  }
  }
  return false;
}

Node *match::stripExt(ViewBuilder &b, Node *n,
                      SetVector<Operation *> *covered) {
  while (true) {
    SetVector<Operation *> local;
    Node *s = b.skip(n, &local);
    if (s->kind != Node::Kind::Op || !isa<arith::ExtFOp>(s->op))
      return n;
    if (covered)
      covered->insert(local.begin(), local.end());
    n = s->operands[0];
  }
}

/// `n` reads a tensor that several ops use.
static bool isShared(Node *n) {
  if (n->kind != Node::Kind::View)
    return false;
  llvm::SmallPtrSet<Operation *, 4> users(n->value.getUsers().begin(),
                                          n->value.getUsers().end());
  return users.size() > 1;
}

static void flattenProductInto(ViewBuilder &b, Node *n, bool divide, Product &p,
                               SetVector<Operation *> *covered, bool stop) {
  if (stop && isShared(n)) {
    (divide ? p.divisors : p.factors).push_back(n);
    return;
  }
  SetVector<Operation *> local;
  Node *s = b.skip(n, &local);
  auto take = [&] {
    if (covered)
      covered->insert(local.begin(), local.end());
  };
  if (s->kind == Node::Kind::Const) {
    take();
    if (divide)
      p.scale /= s->constant;
    else
      p.scale *= s->constant;
    return;
  }
  if (s->kind == Node::Kind::Op) {
    if (isa<arith::MulFOp>(s->op)) {
      take();
      flattenProductInto(b, s->operands[0], divide, p, covered, stop);
      flattenProductInto(b, s->operands[1], divide, p, covered, stop);
      return;
    }
    if (isa<arith::DivFOp>(s->op)) {
      take();
      flattenProductInto(b, s->operands[0], divide, p, covered, stop);
      flattenProductInto(b, s->operands[1], !divide, p, covered, stop);
      return;
    }
    if (isa<arith::NegFOp>(s->op)) {
      take();
      p.scale = -p.scale;
      flattenProductInto(b, s->operands[0], divide, p, covered, stop);
      return;
    }
  }
  (divide ? p.divisors : p.factors).push_back(n);
}

Product match::flattenProduct(ViewBuilder &b, Node *n,
                              SetVector<Operation *> *covered,
                              bool stopAtShared) {
  Product p;
  flattenProductInto(b, n, false, p, covered, stopAtShared);
  return p;
}

static void flattenSumInto(ViewBuilder &b, Node *n, bool neg, Sum &s,
                           SetVector<Operation *> *covered, bool stop) {
  if (stop && isShared(n)) {
    s.terms.push_back({n, neg});
    return;
  }
  SetVector<Operation *> local;
  Node *k = b.skip(n, &local);
  if (k->kind == Node::Kind::Op && isa<arith::AddFOp, arith::SubFOp>(k->op)) {
    if (covered)
      covered->insert(local.begin(), local.end());
    flattenSumInto(b, k->operands[0], neg, s, covered, stop);
    flattenSumInto(b, k->operands[1], isa<arith::SubFOp>(k->op) ? !neg : neg, s,
                   covered, stop);
    return;
  }
  s.terms.push_back({n, neg});
}

Sum match::flattenSum(ViewBuilder &b, Node *n, SetVector<Operation *> *covered,
                      bool stopAtShared) {
  Sum s;
  flattenSumInto(b, n, false, s, covered, stopAtShared);
  return s;
}

Operation *match::findEscapingOp(ArrayRef<Operation *> ops,
                                 function_ref<bool(Value)> allowed) {
  llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Value r : op->getResults()) {
      if (allowed(r))
        continue;
      for (Operation *user : r.getUsers())
        if (!set.contains(user))
          return op;
    }
  return nullptr;
}

void match::eraseWithDeadProducers(Operation *op,
                                   llvm::DenseSet<Operation *> *erased,
                                   function_ref<void(Operation *)> beforeErase,
                                   RewriterBase *rewriter) {
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    Operation *cur = worklist.pop_back_val();
    if (!cur->use_empty())
      continue;
    // Producers of the operands and of values captured by nested regions.
    SmallVector<Operation *> producers;
    cur->walk([&](Operation *inner) {
      for (Value o : inner->getOperands())
        if (Operation *p = o.getDefiningOp())
          if (!cur->isAncestor(p) && !llvm::is_contained(producers, p))
            producers.push_back(p);
    });
    if (erased)
      erased->insert(cur);
    if (beforeErase)
      beforeErase(cur);
    if (rewriter)
      rewriter->eraseOp(cur);
    else
      cur->erase();
    for (Operation *p : producers)
      if (!llvm::is_contained(worklist, p) && isOpTriviallyDead(p))
        worklist.push_back(p);
  }
}

int64_t match::eraseMatched(ArrayRef<Operation *> ops,
                            llvm::DenseSet<Operation *> &erased) {
  int64_t bytes = 0;
  auto count = [&](Operation *op) {
    if (isa<linalg::LinalgOp>(op) ||
        (op->getNumRegions() == 0 &&
         isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
             op->getDialect()) &&
         !isa<arith::ConstantOp>(op)))
      for (Value r : op->getResults())
        bytes += sinter::tensorBytes(r.getType());
  };
  // Users first, then whatever is left.
  for (Operation *op : llvm::reverse(ops))
    if (!erased.contains(op) && op->use_empty())
      eraseWithDeadProducers(op, &erased, count);
  for (Operation *op : ops)
    if (!erased.contains(op) && op->use_empty())
      eraseWithDeadProducers(op, &erased, count);
  return bytes;
}

Operation *match::ancestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

bool match::isIdentityView(ViewBuilder &b, const Node *n) {
  if (n->kind != Node::Kind::View)
    return false;
  ArrayRef<int64_t> root = b.getRootShape();
  auto type = dyn_cast<RankedTensorType>(n->value.getType());
  AffineMap m = n->indices;
  if (!type || type.getRank() != m.getNumResults() ||
      m.getNumDims() != m.getNumResults())
    return false;
  for (unsigned i = 0; i < m.getNumResults(); ++i) {
    AffineExpr e = m.getResult(i);
    auto d = dyn_cast<AffineDimExpr>(e);
    auto c = dyn_cast<AffineConstantExpr>(e);
    // A unit dim read at 0 is the identity only where the root's dim is a
    // unit dim too (else it is a broadcast).
    if (!(d && d.getPosition() == i) &&
        !(c && c.getValue() == 0 && type.getDimSize(i) == 1 &&
          i < root.size() && root[i] == 1))
      return false;
  }
  return true;
}

Value sinter::match::mapElements(
    OpBuilder &b, Location loc, Value input, Type elt,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(input.getType());
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elt);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input},
             ValueRange{init}, ArrayRef<AffineMap>{id, id}, parallel,
             [&](OpBuilder &bb, Location l, ValueRange args) {
               linalg::YieldOp::create(bb, l, fn(bb, l, args[0]));
             })
      .getResult(0);
}

Value sinter::match::widenedSource(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block *body = g.getBody();
  if (body->getOperations().size() != 2)
    return {};
  auto ext = dyn_cast<arith::ExtFOp>(body->front());
  if (!ext || ext.getIn() != body->getArgument(0) ||
      body->getTerminator()->getOperand(0) != ext.getResult())
    return {};
  return g.getDpsInputs()[0];
}
