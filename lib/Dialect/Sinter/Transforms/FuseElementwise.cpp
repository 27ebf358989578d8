//===- FuseElementwise.cpp - Fuse elementwise chains into sinter.fused ----===//
//
// Part of the Sinter project.
//
// Groups producer-consumer chains of elementwise ops (all-parallel
// `linalg.generic` and named linalg ops with scalar arith/math bodies, and
// `arith`/`math` ops on tensors) into one `sinter.fused` per group. Rules:
//
// * Members of a group share one iteration space (their result shape); an
//   edge between two members must read the producer at the same element
//   (identity map). Broadcasts and transposes of group inputs are kept as
//   the inputs' indexing maps.
// * Groups are convex: no path leaves the group through another op and comes
//   back, so reductions, matmuls and every other non-elementwise op stay
//   outside and are never fused across.
// * An intermediate with users outside the group becomes an additional
//   result of the fused op, provided every such user comes after the group's
//   last op; otherwise the consumer is not added (near-miss remark).
// * Splat constants and `linalg.fill`s of constants become `arith.constant`
//   in the body; `linalg.fill` itself is never a member (it initialises
//   accumulators).
// * Groups made only of data movement (copies, transposes, broadcasts) are
//   left alone; a single elementwise op with arithmetic becomes a
//   `sinter.fused` unless `fuse-single-ops=false`.
//
//===----------------------------------------------------------------------===//

#include "DropoutMatch.h"
#include "MatchUtils.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;

/// Elementwise ops on tensors whose scalar body the fused op can hold.
static bool isScalarComputeOp(Operation &op) {
  if (op.getNumRegions() != 0 ||
      !isa_and_nonnull<arith::ArithDialect, math::MathDialect>(op.getDialect()))
    return false;
  return llvm::none_of(op.getOperandTypes(),
                       [](Type t) { return isa<ShapedType>(t); }) &&
         llvm::none_of(op.getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); });
}

/// True for an op this pass can put into a `sinter.fused`.
static bool isElementwise(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics() || linalgOp.hasIndexSemantics() ||
        linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
        op->getNumResults() == 0)
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || linalgOp.getNumLoops() != type.getRank())
      return false;
    for (OpOperand &o : op->getOpOperands()) {
      AffineMap map = linalgOp.getMatchingIndexingMap(&o);
      if (linalgOp.isDpsInit(&o)) {
        if (!map.isIdentity() ||
            cast<RankedTensorType>(o.get().getType()).getShape() !=
                type.getShape())
          return false;
      } else if (!map.isProjectedPermutation(/*allowZeroInResults=*/true)) {
        return false;
      }
      if (auto t = dyn_cast<ShapedType>(o.get().getType());
          t && !isa<RankedTensorType>(t))
        return false;
    }
    Block *body = linalgOp.getBlock();
    for (Operation &inner : body->without_terminator()) {
      if (!isScalarComputeOp(inner))
        return false;
      for (Value v : inner.getOperands())
        if (isa<ShapedType>(v.getType()))
          return false;
    }
    return true;
  }
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0 ||
      !isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
          op->getDialect()))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type t) {
    auto tt = dyn_cast<RankedTensorType>(t);
    return tt && tt.getShape() == type.getShape();
  });
}

/// True when the op computes something (it is not a pure copy, transpose or
/// broadcast).
static bool computes(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return !linalgOp.getBlock()->without_terminator().empty();
  return true;
}

/// The map through which `consumer` reads operand `o`.
static AffineMap operandMap(Operation *consumer, OpOperand &o) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(consumer))
    return linalgOp.getMatchingIndexingMap(&o);
  auto t = cast<RankedTensorType>(o.get().getType());
  return AffineMap::getMultiDimIdentityMap(t.getRank(), consumer->getContext());
}

/// Calls `fn` on every value `op` uses, including inside its regions, that
/// is defined outside it.
static void forEachUsedValue(Operation *op, function_ref<void(Value)> fn) {
  for (Value v : op->getOperands())
    fn(v);
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *r = def ? def->getParentRegion() : v.getParentRegion();
      if (!op->isAncestor(r->getParentOp()))
        fn(v);
    }
  });
}

//===----------------------------------------------------------------------===//
// Frontend dropout inside a fused body
//===----------------------------------------------------------------------===//

namespace {

/// A frontend dropout found in a `sinter.fused` body: `result` is `input`
/// kept with probability `1 - p` and scaled by `1 / (1 - p)`, decided by
/// comparing a random input with a constant.
struct BodyDropout {
  Value input, result;
  double p = 0.0;
  /// The body ops computing `result` from the random value (the casts of
  /// the random value, the comparison, the mask, the products).
  SmallVector<Operation *> ops;
};

/// Why a random value was not recognised as a dropout, and where.
struct DropoutMiss {
  std::string reason;
  Operation *at = nullptr;
};

} // namespace

/// `v` defined in `body` as `x * c`, `c * x` or `x / c` for a constant `c`:
/// returns `x` and multiplies `scale` by the factor.
static Value peelConstantFactor(Value v, Block *body, double &scale) {
  Operation *d = v.getDefiningOp();
  if (!d || d->getBlock() != body)
    return {};
  if (auto mul = dyn_cast<arith::MulFOp>(d)) {
    if (std::optional<double> c = evalFloatConstant(mul.getRhs())) {
      scale *= *c;
      return mul.getLhs();
    }
    if (std::optional<double> c = evalFloatConstant(mul.getLhs())) {
      scale *= *c;
      return mul.getRhs();
    }
  }
  if (auto div = dyn_cast<arith::DivFOp>(d))
    if (std::optional<double> c = evalFloatConstant(div.getRhs())) {
      scale /= *c;
      return div.getLhs();
    }
  return {};
}

/// Whether the body compares `u` (through float casts) with something:
/// only then does it look like a dropout worth a near-miss remark.
static bool isCompared(Value u) {
  for (Operation *user : u.getUsers()) {
    if (isa<arith::CmpFOp>(user))
      return true;
    if (isa<arith::ExtFOp, arith::TruncFOp>(user) &&
        isCompared(user->getResult(0)))
      return true;
  }
  return false;
}

/// Matches the dropout that body argument `u` (a U[0, 1) value, one per
/// element) decides: `u` compared with a constant threshold, the keep mask
/// turned into a factor (`uitofp`, `select(keep, c, 0)`) multiplying one
/// value, or a `select(keep, value, 0)`, with constant factors that scale
/// the kept elements by 1/(1 - p). Every intermediate must have one use.
static std::optional<BodyDropout> matchBodyDropout(BlockArgument u,
                                                   DropoutMiss &miss) {
  Block *body = u.getOwner();
  BodyDropout m;
  auto fail = [&](Operation *at, const Twine &reason) {
    miss.at = at;
    miss.reason = reason.str();
    return std::nullopt;
  };
  auto singleUser = [](Value v) -> Operation * {
    return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
  };
  // The random value, through float casts, feeds one comparison.
  Value r = u;
  Operation *user = singleUser(r);
  while (isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(user)) {
    m.ops.push_back(user);
    r = user->getResult(0);
    user = singleUser(r);
  }
  if (!user) {
    // Anchor the remark at the comparison (the dropout) when there is one.
    Operation *at = body->getParentOp();
    for (Operation *other : r.getUsers())
      if (!isa<arith::CmpFOp>(at))
        at = other;
    return fail(at, "the random value is used more than once (each draw "
                    "may decide one element)");
  }
  auto cmp = dyn_cast<arith::CmpFOp>(user);
  if (!cmp)
    return fail(user, "the random value is used by '" +
                          user->getName().getStringRef() +
                          "', not compared with a probability");
  m.ops.push_back(cmp);
  bool randomOnLeft = cmp.getLhs() == r;
  Value thresholdValue = randomOnLeft ? cmp.getRhs() : cmp.getLhs();
  std::optional<double> threshold = evalFloatConstant(thresholdValue);
  if (!threshold)
    return fail(cmp, "the random value is compared with a threshold that is "
                     "not a uniform constant");
  bool keepBelow = false;
  std::optional<double> keep =
      keepProbability(cmp.getPredicate(), randomOnLeft, *threshold, keepBelow);
  if (!keep)
    return fail(cmp, "the random value is compared by '" +
                         arith::stringifyCmpFPredicate(cmp.getPredicate()) +
                         "', not an order comparison");
  // The comparison, possibly negated, then the mask or select, say which
  // elements are kept: those where `keptWhenTrue` matches the comparison.
  Value cond = cmp.getResult();
  bool keptWhenTrue = true;
  Operation *condUser = singleUser(cond);
  while (auto x = dyn_cast_or_null<arith::XOrIOp>(condUser)) {
    Value other = x.getLhs() == cond ? x.getRhs() : x.getLhs();
    if (!matchPattern(other, m_One()))
      break;
    keptWhenTrue = !keptWhenTrue;
    m.ops.push_back(x);
    cond = x.getResult();
    condUser = singleUser(cond);
  }
  if (!condUser)
    return fail(cmp, "the keep mask is used more than once");
  double scale = 1.0;
  Value x, cur;
  if (auto toFloat = dyn_cast<arith::UIToFPOp>(condUser)) {
    m.ops.push_back(toFloat);
    cur = toFloat.getResult();
  } else if (auto sel = dyn_cast<arith::SelectOp>(condUser);
             sel && sel.getCondition() == cond) {
    std::optional<double> tv = evalFloatConstant(sel.getTrueValue());
    std::optional<double> fv = evalFloatConstant(sel.getFalseValue());
    Value kept;
    if (fv && *fv == 0.0) {
      kept = sel.getTrueValue();
    } else if (tv && *tv == 0.0) {
      kept = sel.getFalseValue();
      keptWhenTrue = !keptWhenTrue;
    } else {
      return fail(sel, "the select does not zero the dropped elements");
    }
    m.ops.push_back(sel);
    cur = sel.getResult();
    if (std::optional<double> c = evalFloatConstant(kept))
      scale = *c;
    else
      x = kept;
  } else {
    return fail(condUser, "the comparison of the random value is used by '" +
                              condUser->getName().getStringRef() +
                              "', not as a keep mask");
  }
  if (!keptWhenTrue) {
    *keep = 1.0 - *keep;
    keepBelow = !keepBelow;
  }
  if (!(*keep > 0.0 && *keep <= 1.0))
    return fail(cmp, "the threshold keeps a fraction " + formatNumber(*keep) +
                         " of the elements, outside (0, 1]");
  Type type = cur.getType();
  // Up the chain of products until the kept elements are scaled by
  // 1/(1 - p) (the first such point: a later multiply is no longer part of
  // the dropout).
  while (!(x && isDropoutScale(scale, *keep, type))) {
    Operation *next = singleUser(cur);
    if (!next)
      break;
    if (!x && isa<arith::ExtFOp, arith::TruncFOp>(next)) {
      type = next->getResult(0).getType();
    } else if (auto mul = dyn_cast<arith::MulFOp>(next)) {
      Value other = mul.getLhs() == cur ? mul.getRhs() : mul.getLhs();
      if (std::optional<double> c = evalFloatConstant(other))
        scale *= *c;
      else if (!x)
        x = other;
      else
        break;
    } else if (auto div = dyn_cast<arith::DivFOp>(next);
               div && div.getLhs() == cur) {
      std::optional<double> c = evalFloatConstant(div.getRhs());
      if (!c)
        break;
      scale /= *c;
    } else {
      break;
    }
    m.ops.push_back(next);
    cur = next->getResult(0);
  }
  Operation *end = cur.getDefiningOp();
  if (!x)
    return fail(end, cur.hasOneUse() || cur.use_empty()
                         ? "the keep mask does not multiply a value"
                         : "the keep mask is used more than once");
  // Constant factors of the value itself (`mask * (x / (1 - p))`).
  while (!isDropoutScale(scale, *keep, type) && x.hasOneUse()) {
    double s = scale;
    Value inner = peelConstantFactor(x, body, s);
    if (!inner)
      break;
    m.ops.push_back(x.getDefiningOp());
    x = inner;
    scale = s;
  }
  if (!isDropoutScale(scale, *keep, type))
    return fail(end, "the kept elements are scaled by " + formatNumber(scale) +
                         ", not 1/(1 - p) = " + formatNumber(1.0 / *keep));
  if (x.getType() != cur.getType())
    return fail(end, "the dropped value and the result have different types");
  m.input = x;
  m.result = cur;
  m.p = snapDropoutProbability(*keep, *threshold, keepBelow,
                               thresholdValue.getType());
  llvm::sort(m.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return m;
}

/// Raises the frontend dropouts of `fused` (body arguments reading a random
/// generator's tensor element for element) into `sinter.dropout` when
/// `allowRngChange`; otherwise (or when the shape does not match) reports
/// a near miss. Removes the random inputs it no longer reads.
static void raiseDropouts(FusedOp fused, bool allowRngChange) {
  Block &body = fused.getBody().front();
  MLIRContext *ctx = fused.getContext();
  unsigned rank = fused.getIterationShape().size();
  SmallVector<Attribute> maps(fused.getIndexingMaps().begin(),
                              fused.getIndexingMaps().end());
  SmallVector<unsigned> dropped;
  unsigned raised = 0;
  SmallVector<Operation *> generators;
  for (unsigned i = 0, e = fused.getInputs().size(); i < e; ++i) {
    Value in = fused.getInputs()[i];
    RandomGenerator gen = matchRandomGenerator(in);
    if (gen.kind == RandomGenerator::Kind::None)
      continue;
    BlockArgument arg = body.getArgument(i);
    // Random values used otherwise (noise added to a value) are no dropout.
    if (!isCompared(arg))
      continue;
    AffineMap map = cast<AffineMapAttr>(maps[i]).getValue();
    if (!map.isIdentity()) {
      reportNearMiss(fused, "dropout",
                     "the random tensor is read through a broadcast or "
                     "transpose map, not one draw per element");
      continue;
    }
    if (gen.kind == RandomGenerator::Kind::Unusable) {
      reportNearMiss(fused, "dropout",
                     "the random tensor cannot be replaced: " + gen.reason);
      continue;
    }
    DropoutMiss miss;
    std::optional<BodyDropout> d = matchBodyDropout(arg, miss);
    if (!d) {
      reportNearMiss(miss.at ? miss.at : fused.getOperation(), "dropout",
                     miss.reason);
      continue;
    }
    Operation *end = d->result.getDefiningOp();
    if (!allowRngChange) {
      reportNearMiss(end, "dropout", kRngChangeReason);
      continue;
    }
    // The seed becomes a scalar input; the dropout replaces the chain.
    OpBuilder outer(fused);
    Value seed = buildSeedI64(outer, fused.getLoc(), gen.seed);
    fused.getInputsMutable().append(seed);
    maps.push_back(AffineMapAttr::get(AffineMap::get(rank, 0, {}, ctx)));
    Value seedArg = body.addArgument(seed.getType(), seed.getLoc());
    OpBuilder b(end);
    auto drop = DropoutOp::create(b, end->getLoc(), d->input, seedArg,
                                  b.getF64FloatAttr(d->p));
    d->result.replaceAllUsesWith(drop.getResult());
    for (Operation *op : llvm::reverse(d->ops))
      if (op->use_empty())
        op->erase();
    ++raised;
    if (arg.use_empty()) {
      dropped.push_back(i);
      if (!llvm::is_contained(generators, gen.op))
        generators.push_back(gen.op);
    }
  }
  // Drop the random inputs (last first, so that indices stay valid).
  for (unsigned i : llvm::reverse(dropped)) {
    body.eraseArgument(i);
    fused.getInputsMutable().erase(i);
    maps.erase(maps.begin() + i);
  }
  fused.setIndexingMapsAttr(ArrayAttr::get(ctx, maps));
  // Constants only the replaced chains used (the threshold, the scale).
  if (raised) {
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
  }
  // The random tensors no longer written.
  int64_t bytes = 0;
  for (Operation *g : generators) {
    if (!g->use_empty())
      continue;
    bytes += tensorBytes(g->getResult(0).getType());
    match::eraseWithDeadProducers(g);
  }
  if (raised)
    reportFusion(fused, "dropout", bytes);
}

/// Whether `op` reads a tensor computed by a frontend's random generator.
static bool readsRandom(Operation *op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    return matchRandomGenerator(v).kind != RandomGenerator::Kind::None;
  });
}

//===----------------------------------------------------------------------===//
// Grouping
//===----------------------------------------------------------------------===//

namespace {

/// Clusters the elementwise ops of one block and rewrites each group.
class BlockFuser {
public:
  BlockFuser(Block &block, bool fuseSingleOps, bool allowRngChange)
      : block(block), fuseSingleOps(fuseSingleOps),
        allowRngChange(allowRngChange) {}
  void run();

private:
  using Group = SmallVector<Operation *>;
  unsigned groupIdOf(Operation *op) {
    auto it = groupOf.find(op);
    return it == groupOf.end() ? ~0u : it->second;
  }
  /// Why `ops` (sorted, last = newest) cannot be one group, or empty.
  std::string checkGroup(ArrayRef<Operation *> ops);
  void materialize(ArrayRef<Operation *> ops);

  Block &block;
  bool fuseSingleOps;
  bool allowRngChange;
  DenseMap<Operation *, unsigned> pos;
  DenseMap<Operation *, unsigned> groupOf;
  std::vector<Group> groups;
};

} // namespace

std::string BlockFuser::checkGroup(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
  unsigned first = pos[ops.front()], last = pos[ops.back()];
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(ops.front()->getResult(0).getType()).getShape();
  // One iteration space; edges inside the group read the same element.
  for (Operation *op : ops) {
    for (OpOperand &o : op->getOpOperands()) {
      Operation *def = o.get().getDefiningOp();
      if (!def || !set.contains(def))
        continue;
      if (!operandMap(op, o).isIdentity())
        return "an elementwise producer is read through a broadcast or "
               "transpose map";
    }
  }
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (cast<RankedTensorType>(r.getType()).getShape() != shape)
        return "the ops have different shapes (not a broadcast of a group "
               "input)";
  // Convexity: nothing outside the group both uses and feeds the group.
  SmallVector<Operation *> worklist;
  llvm::SmallPtrSet<Operation *, 16> visited;
  auto visitUses = [&](Operation *op) -> bool {
    bool cycle = false;
    forEachUsedValue(op, [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def)
        return;
      def = match::ancestorIn(&block, def);
      if (!def || pos[def] < first)
        return;
      if (set.contains(def)) {
        if (!set.contains(op))
          cycle = true;
        return;
      }
      if (visited.insert(def).second)
        worklist.push_back(def);
    });
    return cycle;
  };
  for (Operation *op : ops)
    visitUses(op);
  while (!worklist.empty())
    if (visitUses(worklist.pop_back_val()))
      return "a non-elementwise op lies between the ops";
  // Outside users of intermediates must come after the fused op.
  for (Operation *op : ops)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers()) {
        Operation *a = match::ancestorIn(&block, user);
        if (a && !set.contains(a) && pos[a] < last)
          return "an intermediate is used by an op that precedes the end of "
                 "the chain";
      }
  return "";
}

void BlockFuser::run() {
  unsigned i = 0;
  for (Operation &op : block)
    pos[&op] = i++;
  for (Operation &opRef : block) {
    Operation *op = &opRef;
    if (!isElementwise(op))
      continue;
    groups.push_back({op});
    groupOf[op] = groups.size() - 1;
    for (OpOperand &o : op->getOpOperands()) {
      Operation *def = o.get().getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      unsigned g = groupIdOf(def), mine = groupOf[op];
      if (g == ~0u || g == mine)
        continue;
      Group merged = groups[g];
      llvm::append_range(merged, groups[mine]);
      llvm::sort(merged,
                 [&](Operation *a, Operation *b) { return pos[a] < pos[b]; });
      std::string why = checkGroup(merged);
      if (!why.empty()) {
        // Two copies/transposes that stay apart are not worth a remark.
        if (computes(op) || computes(def))
          reportNearMiss(op, "elementwise", why);
        continue;
      }
      for (Operation *m : groups[mine])
        groupOf[m] = g;
      groups[g] = std::move(merged);
      groups[mine].clear();
    }
  }
  for (Group &g : groups) {
    if (g.empty() || llvm::none_of(g, computes))
      continue;
    // A lone op that decides a dropout from a random tensor is still raised
    // (with the generator it replaces, it is more than one op).
    if (g.size() == 1 && !fuseSingleOps &&
        !(allowRngChange && readsRandom(g.front())))
      continue;
    materialize(g);
  }
}

void BlockFuser::materialize(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
  Operation *lastOp = ops.back();
  MLIRContext *ctx = lastOp->getContext();
  auto iterType = cast<RankedTensorType>(lastOp->getResult(0).getType());
  unsigned rank = iterType.getRank();

  // Results: values used outside the group (or the last op's if none is).
  SmallVector<Value> results;
  int64_t bytesAvoided = 0;
  for (Operation *op : ops)
    for (Value r : op->getResults()) {
      bool outside = llvm::any_of(
          r.getUsers(), [&](Operation *u) { return !set.contains(u); });
      if (outside)
        results.push_back(r);
      else
        bytesAvoided += sinter::tensorBytes(r.getType());
    }
  if (results.empty())
    for (Value r : lastOp->getResults()) {
      results.push_back(r);
      bytesAvoided -= sinter::tensorBytes(r.getType());
    }

  auto *body = new Block();
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(body);
  Location loc = lastOp->getLoc();
  SmallVector<Value> inputs;
  SmallVector<Attribute> maps;
  DenseMap<std::pair<Value, AffineMap>, Value> inputArgs;
  DenseMap<Value, Value> scalarOf; // group tensor -> body scalar
  DenseMap<Value, Value> constants;

  // The body scalar for `v` read through `map`.
  auto scalarFor = [&](Value v, AffineMap map) -> Value {
    if (Value s = scalarOf.lookup(v))
      return s;
    if (Value c = constants.lookup(v))
      return c;
    Attribute attr;
    if (matchPattern(v, m_Constant(&attr))) {
      if (auto dense = dyn_cast<SplatElementsAttr>(attr))
        attr = dense.getSplatValue<Attribute>();
      if (auto typed = dyn_cast<TypedAttr>(attr);
          typed && !isa<ShapedType>(typed.getType())) {
        Value c = arith::ConstantOp::create(builder, loc, typed);
        constants[v] = c;
        return c;
      }
    }
    if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
      TypedAttr cst;
      if (matchPattern(fill.getInputs()[0], m_Constant(&cst))) {
        Value c = arith::ConstantOp::create(builder, loc, cst);
        constants[v] = c;
        return c;
      }
    }
    if (!isa<ShapedType>(v.getType()))
      map = AffineMap::get(rank, 0, {}, ctx);
    auto key = std::make_pair(v, map);
    if (Value arg = inputArgs.lookup(key))
      return arg;
    Type elt = getElementTypeOrSelf(v.getType());
    Value arg = body->addArgument(elt, v.getLoc());
    inputs.push_back(v);
    maps.push_back(AffineMapAttr::get(map));
    inputArgs[key] = arg;
    return arg;
  };

  for (Operation *op : ops) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      Block *mb = linalgOp.getBlock();
      IRMapping mapping;
      for (OpOperand &o : op->getOpOperands()) {
        BlockArgument arg = linalgOp.getMatchingBlockArgument(&o);
        if (arg.use_empty())
          continue;
        mapping.map(arg,
                    scalarFor(o.get(), linalgOp.getMatchingIndexingMap(&o)));
      }
      for (Operation &inner : mb->without_terminator()) {
        for (Value v : inner.getOperands()) {
          if (mapping.contains(v))
            continue;
          Operation *def = v.getDefiningOp();
          if (def && def->getBlock() == mb)
            continue;
          if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == mb)
            continue;
          // A scalar captured from above becomes a scalar input.
          mapping.map(v, scalarFor(v, AffineMap::get(rank, 0, {}, ctx)));
        }
        builder.clone(inner, mapping);
      }
      for (auto [r, y] :
           llvm::zip(op->getResults(), mb->getTerminator()->getOperands()))
        scalarOf[r] = mapping.lookupOrDefault(y);
      continue;
    }
    // An arith/math op on tensors: its scalar form.
    OperationState state(op->getLoc(), op->getName());
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    for (Value v : op->getOperands())
      state.operands.push_back(scalarFor(v, id));
    state.types.push_back(getElementTypeOrSelf(op->getResult(0).getType()));
    state.attributes = op->getAttrDictionary();
    scalarOf[op->getResult(0)] = builder.create(state)->getResult(0);
  }
  SmallVector<Value> yielded;
  SmallVector<Type> resultTypes;
  for (Value r : results) {
    yielded.push_back(scalarOf.lookup(r));
    resultTypes.push_back(r.getType());
  }
  YieldOp::create(builder, loc, yielded);

  OpBuilder outer(lastOp);
  auto fused = FusedOp::create(outer, loc, resultTypes, inputs,
                               outer.getArrayAttr(maps));
  fused.getBody().push_back(body);
  for (auto [r, n] : llvm::zip(results, fused.getResults()))
    r.replaceUsesWithIf(
        n, [&](OpOperand &u) { return !set.contains(u.getOwner()); });
  // Erase the members (users first) and what only they used.
  llvm::DenseSet<Operation *> erased;
  for (Operation *op : llvm::reverse(ops))
    if (!erased.contains(op))
      match::eraseWithDeadProducers(op, &erased);
  StringRef pattern = "elementwise";
  reportFusion(fused, pattern, bytesAvoided);
  raiseDropouts(fused, allowRngChange);
}

namespace {
struct SinterFuseElementwisePass
    : public sinter::impl::FuseElementwiseBase<SinterFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *b) {
      // Bodies of linalg and sinter ops hold scalars.
      Operation *parent = b->getParentOp();
      if (!isa_and_nonnull<linalg::LinalgOp, FusedOp>(parent))
        blocks.push_back(b);
    });
    for (Block *b : blocks)
      BlockFuser(*b, fuseSingleOps, allowRngChange).run();
  }
};
} // namespace
