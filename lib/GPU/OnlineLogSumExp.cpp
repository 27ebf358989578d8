//===- OnlineLogSumExp.cpp - A logsumexp's two reductions as one pass -----===//
//
// Part of the Sinter project.
//
// sinter-online-logsumexp (Passes.td has the before and after): torch's
// log_softmax (a cross-entropy over a vocabulary) reaches linalg as two row
// reductions over the same logits, the second reading the first's result:
//
//   %m = linalg.generic {.., "reduction"} ins(%x) outs(%fill_minus_inf) {
//     ^bb0(%in: f32, %acc: f32):
//       %a = <f(%in)>                      // e.g. truncf, extf
//       %r = arith.maximumf %a, %acc : f32
//       linalg.yield %r : f32 }
//   %me = tensor.expand_shape %m ...       // or %m itself
//   %s = linalg.generic {.., "reduction"} ins(%x, %me, ..) outs(%fill_zero) {
//     ^bb0(%in: f32, %mx: f32, .., %acc: f32):
//       %a = <f(%in)>                      // the same chain
//       %g = <g(%mx, ..)>                  // the max, or torch's guard
//                                          // select(|max| == inf, 0, max),
//                                          // here or in a sinter.fused of
//                                          // the max that %mx reads
//       %e = math.exp (%a - %g)
//       %r = arith.addf %e, %acc : f32
//       linalg.yield %r : f32 }
//
// Both become one reduction with two results carrying the running max M
// and the sum S of exp(a - M) (rescaled when the max grows; one exp per
// point), marked `sinter.online_logsumexp` so that the CUDA reduction
// kernel splits it across lanes with the pair's combination (a max and a
// rescaled sum), and an elementwise fixup gives the second reduction's
// value: S exp(M - g(M)) where M is finite, else exp(M - g(M)) (a row with
// an infinite or NaN maximum gets what the two passes gave: inf, 0 or
// NaN). The logits are read once instead of twice.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/GPU/Passes.h"

#include <cmath>
#include <limits>

namespace sinter {
#define GEN_PASS_DEF_ONLINELOGSUMEXP
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter::gpu_kernels;

namespace {

/// The value `combiner(x, acc)` (either order) of `op`'s single yield
/// combines with its accumulator, when the yield is that; null otherwise.
template <typename CombinerOp> Value combinedValue(linalg::GenericOp op) {
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  auto c = yield.getValues()[0].getDefiningOp<CombinerOp>();
  BlockArgument acc = op.getRegionOutputArgs()[0];
  if (!c)
    return {};
  if (c.getLhs() == acc)
    return c.getRhs();
  return c.getRhs() == acc ? c.getLhs() : Value();
}

/// Whether `a` (in a body where `xa` is the logits' argument) and `b` (with
/// `xb`) compute the same thing of their logits: the same ops, attributes
/// and constants, down to the argument.
bool sameOfLogits(Value a, Value b, Value xa, Value xb) {
  if (a == xa || b == xb)
    return a == xa && b == xb;
  Operation *oa = a.getDefiningOp(), *ob = b.getDefiningOp();
  if (!oa || !ob || oa->getName() != ob->getName() ||
      oa->getAttrDictionary() != ob->getAttrDictionary() ||
      oa->getResultTypes() != ob->getResultTypes() ||
      oa->getNumOperands() != ob->getNumOperands() || oa->getNumRegions() ||
      isa<linalg::IndexOp>(oa) ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  if (isa<arith::ConstantOp>(oa))
    return true; // the value attribute is in the dictionary
  for (auto [u, v] : llvm::zip(oa->getOperands(), ob->getOperands()))
    if (!sameOfLogits(u, v, xa, xb))
      return false;
  return true;
}

/// Whether `v` is computed in `body` from `allowed` block arguments and
/// constants alone; collects the ops (in body order) into `ops`.
bool computedFrom(Value v, llvm::SmallPtrSetImpl<Value> &allowed,
                  llvm::SetVector<Operation *> &ops) {
  if (allowed.contains(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || isa<linalg::IndexOp>(def) || !isPure(def))
    return false;
  for (Value operand : def->getOperands())
    if (!computedFrom(operand, allowed, ops))
      return false;
  ops.insert(def);
  return true;
}

/// Whether the constant fill `init` holds `value` (-inf or 0).
bool fillsWith(Value init, double value) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  auto attr =
      fill ? dyn_cast_or_null<FloatAttr>(foldableFillValue(fill)) : nullptr;
  return attr && attr.getValueAsDouble() == value;
}

/// The body of `v`'s producer when it is a per-element function of one
/// tensor of its shape (a sinter.fused or an elementwise generic with one
/// input, read through the identity; torch's guard of an infinite max):
/// sets `v` to that input. Null otherwise.
Block *elementwisePrelude(Value &v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1 ||
      !(isa<sinter::FusedOp>(def) ||
        (isa<linalg::GenericOp>(def) &&
         isElementwiseGeneric(cast<linalg::GenericOp>(def)))))
    return nullptr;
  ElementwiseForm form = elementwiseFormOf(def);
  if (form.inputs.size() != 1 || !form.maps[0].isIdentity() ||
      form.inputs[0].getType() != v.getType() ||
      (form.offsets.size() == 1 && !form.offsets[0].empty()) ||
      !form.body->getArgument(0).getType().isF32() ||
      llvm::any_of(form.body->getArguments().drop_front(),
                   [](BlockArgument a) { return !a.use_empty(); }))
    return nullptr;
  v = form.inputs[0];
  return form.body;
}

/// Whether `operand` of `sum` reads `max`'s result at the output point of
/// `max`: that result itself through the same map, or a tensor.expand_shape
/// of it that adds unit dimensions, read at index 0 along them -- either
/// possibly through an elementwise function of it (`prelude`, its body).
bool readsMaxAtItsPoint(linalg::GenericOp sum, OpOperand &operand,
                        linalg::GenericOp max, Block *&prelude) {
  AffineMap outMap = max.getIndexingMapsArray().back();
  AffineMap map = sum.getMatchingIndexingMap(&operand);
  Value v = operand.get();
  prelude = elementwisePrelude(v);
  if (v == max->getResult(0))
    return map == outMap;
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getSrc() != max->getResult(0))
    return false;
  SmallVector<AffineExpr> kept;
  for (auto [k, n] : llvm::enumerate(expand.getResultType().getShape())) {
    AffineExpr e = map.getResult(k);
    auto c = dyn_cast<AffineConstantExpr>(e);
    bool unitAdded = n == 1 && c && c.getValue() == 0;
    if (!unitAdded)
      kept.push_back(e);
  }
  return kept.size() == outMap.getNumResults() &&
         AffineMap::get(map.getNumDims(), 0, kept, map.getContext()) == outMap;
}

/// The max an input of `sum` reads, possibly through an expand_shape and an
/// elementwise prelude: a single-result generic that reduces with maximumf.
linalg::GenericOp maxReadBy(Value v) {
  elementwisePrelude(v);
  if (auto e = v.getDefiningOp<tensor::ExpandShapeOp>())
    v = e.getSrc();
  auto g = v.getDefiningOp<linalg::GenericOp>();
  return g && g->getNumResults() == 1 && combinedValue<arith::MaximumFOp>(g)
             ? g
             : linalg::GenericOp();
}

/// What the match found in the sum-of-exponentials reduction.
struct SumOfExp {
  linalg::GenericOp max;
  /// The max's per-point value (in its body) and the subtrahend g(max) (in
  /// the sum's body), with the ops computing g and its max arguments.
  Value maxValue, subtrahend;
  llvm::SetVector<Operation *> guardOps;
  /// The sum's arguments that read the max, each with the body of the
  /// elementwise function it reads the max through (or null).
  llvm::SmallVector<std::pair<BlockArgument, Block *>> maxArgs;
};

//   The pair of reductions above, matched at the second (%s).
struct FuseLogSumExp : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp sum,
                                PatternRewriter &rewriter) const override {
    FailureOr<SumOfExp> m = match(sum, rewriter);
    if (failed(m))
      return failure();
    rewrite(sum, *m, rewriter);
    return success();
  }

  static LogicalResult checkShapes(linalg::GenericOp op,
                                   PatternRewriter &rewriter) {
    if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
        op.getNumReductionLoops() == 0)
      return rewriter.notifyMatchFailure(op, "not one reduction result");
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not an f32 result");
    return success();
  }

  FailureOr<SumOfExp> match(linalg::GenericOp sum,
                            PatternRewriter &rewriter) const {
    if (failed(checkShapes(sum, rewriter)) ||
        !fillsWith(sum.getDpsInits()[0], 0.0))
      return rewriter.notifyMatchFailure(sum, "not a sum from zero");
    Value summand = combinedValue<arith::AddFOp>(sum);
    auto exp = summand ? summand.getDefiningOp<math::ExpOp>() : nullptr;
    auto diff = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
    if (!diff)
      return rewriter.notifyMatchFailure(sum, "not a sum of exp(a - b)");
    // The max: the reduction whose result (or an expand_shape of it) a
    // max argument reads.
    SumOfExp m;
    for (OpOperand *in : sum.getDpsInputOperands())
      if (linalg::GenericOp g = maxReadBy(in->get()))
        m.max = g;
    if (!m.max || failed(checkShapes(m.max, rewriter)) ||
        !fillsWith(m.max.getDpsInits()[0],
                   -std::numeric_limits<double>::infinity()) ||
        m.max.getNumDpsInputs() != 1)
      return rewriter.notifyMatchFailure(sum, "no max reduction from -inf");
    if (m.max.getStaticLoopRanges() != sum.getStaticLoopRanges() ||
        m.max.getIteratorTypesArray() != sum.getIteratorTypesArray() ||
        m.max.getIndexingMapsArray().back() !=
            sum.getIndexingMapsArray().back())
      return rewriter.notifyMatchFailure(sum, "the max's loops differ");
    // Every other input: the logits (as the max reads them) or the max.
    OpOperand *logits = m.max.getDpsInputOperand(0);
    BlockArgument x;
    llvm::SmallPtrSet<Value, 4> maxArgs;
    for (OpOperand *in : sum.getDpsInputOperands()) {
      BlockArgument arg = sum.getMatchingBlockArgument(in);
      if (in->get() == logits->get() &&
          sum.getMatchingIndexingMap(in) ==
              m.max.getMatchingIndexingMap(logits) &&
          !x) {
        x = arg;
      } else if (Block * prelude;
                 readsMaxAtItsPoint(sum, *in, m.max, prelude)) {
        maxArgs.insert(arg);
        m.maxArgs.push_back({arg, prelude});
      } else {
        return rewriter.notifyMatchFailure(sum, "reads more than the logits "
                                                "and their max");
      }
    }
    m.maxValue = combinedValue<arith::MaximumFOp>(m.max);
    BlockArgument mx = m.max.getMatchingBlockArgument(logits);
    if (!x || !sameOfLogits(diff.getLhs(), m.maxValue, x, mx))
      return rewriter.notifyMatchFailure(sum, "exp(a - b): a is not what "
                                              "the max reduces");
    m.subtrahend = diff.getRhs();
    if (!computedFrom(m.subtrahend, maxArgs, m.guardOps))
      return rewriter.notifyMatchFailure(sum, "exp(a - b): b is not a "
                                              "function of the max");
    return m;
  }

  void rewrite(linalg::GenericOp sum, SumOfExp &m,
               PatternRewriter &rewriter) const;
};

/// The merged reduction's body: per point, the running max and the sum of
/// exp(a - max) relative to it, one exp per point.
///   gt = a > M;  hi = gt ? a : M;  lo = gt ? M : a
///   e  = exp(lo - (hi == -inf ? 0 : hi))   (as exp2 of a scaled difference)
///   S' = gt ? S e + 1 : S + e;  M' = maximumf(a, M)
void buildOnlineBody(OpBuilder &b, Location loc, linalg::GenericOp max,
                     Value maxValue, ValueRange args) {
  IRMapping map;
  Block &maxBody = max.getRegion().front();
  map.map(maxBody.getArgument(0), args[0]);
  for (Operation &op : maxBody.without_terminator())
    b.clone(op, map);
  Value a = map.lookup(maxValue), M = args[1], S = args[2];
  Type f32 = b.getF32Type();
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(v));
  };
  Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, M);
  Value hi = arith::SelectOp::create(b, loc, gt, a, M);
  Value lo = arith::SelectOp::create(b, loc, gt, M, a);
  Value e = expAsExp2(
      b, loc,
      arith::SubFOp::create(b, loc, lo, finiteMaxReference(b, loc, hi)));
  Value grown = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, S, e).getResult(), cst(1.0));
  Value kept = arith::AddFOp::create(b, loc, S, e);
  Value sNext = arith::SelectOp::create(b, loc, gt, grown, kept);
  Value mNext = arith::MaximumFOp::create(b, loc, a, M);
  linalg::YieldOp::create(b, loc, ValueRange{mNext, sNext});
}

/// The fixup's body: g(M) as the sum computed it (through the elementwise
/// functions it read the max through), then S exp(M - g(M)) where M is
/// finite, else exp(M - g(M)).
void buildFixupBody(OpBuilder &b, Location loc, SumOfExp &m, ValueRange args) {
  IRMapping map;
  for (auto [arg, prelude] : m.maxArgs) {
    if (!prelude) {
      map.map(arg, args[0]);
      continue;
    }
    IRMapping inner;
    inner.map(prelude->getArgument(0), args[0]);
    for (Operation &op : prelude->without_terminator())
      b.clone(op, inner);
    map.map(arg,
            inner.lookupOrDefault(prelude->getTerminator()->getOperand(0)));
  }
  for (Operation *op : m.guardOps)
    b.clone(*op, map);
  Value M = args[0], S = args[1];
  Value g = map.lookupOrDefault(m.subtrahend);
  Value e = math::ExpOp::create(
      b, loc, arith::SubFOp::create(b, loc, M, g).getResult());
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::ONE, math::AbsFOp::create(b, loc, M),
      arith::ConstantOp::create(
          b, loc, b.getF32Type(),
          b.getF32FloatAttr(std::numeric_limits<float>::infinity())));
  Value scaled = arith::MulFOp::create(b, loc, S, e);
  linalg::YieldOp::create(
      b, loc, ValueRange{arith::SelectOp::create(b, loc, finite, scaled, e)});
}

void FuseLogSumExp::rewrite(linalg::GenericOp sum, SumOfExp &m,
                            PatternRewriter &rewriter) const {
  linalg::GenericOp max = m.max;
  Location loc = sum.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(max);
  auto type = cast<RankedTensorType>(max->getResult(0).getType());
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                         rewriter.getF32FloatAttr(0.0));
  Value zeros = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  SmallVector<AffineMap> maps = max.getIndexingMapsArray();
  maps.push_back(maps.back());
  auto online = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type, type}, max.getDpsInputs(),
      ValueRange{max.getDpsInits()[0], zeros}, maps,
      max.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        buildOnlineBody(b, l, max, m.maxValue, args);
      });
  online->setAttr(kOnlineLogSumExpAttr, rewriter.getUnitAttr());
  AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
  Value out = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                      type.getElementType());
  auto fixup = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, online->getResults(), ValueRange{out},
      SmallVector<AffineMap>(3, id),
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        buildFixupBody(b, l, m, args);
      });
  rewriter.replaceOp(sum, fixup->getResults());
  rewriter.replaceOp(max, online->getResult(0));
}

struct OnlineLogSumExp : sinter::impl::OnlineLogSumExpBase<OnlineLogSumExp> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    sinter::populateOnlineLogSumExpPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

Value sinter::gpu_kernels::finiteMaxReference(OpBuilder &b, Location loc,
                                              Value m) {
  Type f32 = b.getF32Type();
  Value none = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, m,
      arith::ConstantOp::create(
          b, loc, f32,
          b.getF32FloatAttr(-std::numeric_limits<float>::infinity())));
  return arith::SelectOp::create(
      b, loc, none,
      arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0.0f)), m);
}

Value sinter::gpu_kernels::expAsExp2(OpBuilder &b, Location loc, Value x) {
  Value log2e = arith::ConstantOp::create(
      b, loc, b.getF32Type(), b.getF32FloatAttr(static_cast<float>(M_LOG2E)));
  return math::Exp2Op::create(
      b, loc, arith::MulFOp::create(b, loc, x, log2e).getResult());
}

void sinter::populateOnlineLogSumExpPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseLogSumExp>(patterns.getContext());
}
