//===- SplitReduction.cpp - How a reduction's points split and combine ----===//
//
// Part of the Sinter project.
//
// Which reductions the CUDA reduction kernels split among threads (a warp
// per output element, a block per element, the column form;
// SerialKernel.h), each result's combiner and identity, and how partial
// results combine: by each result's combiner, or -- for
// sinter-online-logsumexp's reduction -- as (max, sum of exponentials)
// pairs, the smaller max's sum rescaled to the larger.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "SerialKernel.h"
#include "TargetInfo.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// The identity of an integer `combiner` of 32 or 64 bits (what warp
/// shuffles carry); null for others.
static TypedAttr integerIdentityOf(Operation *combiner, IntegerType t) {
  unsigned w = t.getWidth();
  if (w != 32 && w != 64)
    return {};
  Builder b(combiner->getContext());
  auto of = [&](const APInt &v) { return b.getIntegerAttr(t, v); };
  if (isa<arith::AddIOp, arith::OrIOp, arith::XOrIOp, arith::MaxUIOp>(combiner))
    return of(APInt::getZero(w));
  if (isa<arith::AndIOp, arith::MinUIOp>(combiner))
    return of(APInt::getAllOnes(w));
  if (isa<arith::MaxSIOp>(combiner))
    return of(APInt::getSignedMinValue(w));
  if (isa<arith::MinSIOp>(combiner))
    return of(APInt::getSignedMaxValue(w));
  return {};
}

/// The identity of `combiner` in the type `t` the kernel carries its
/// accumulator in (f32, also for f16/bf16; i32, i64); null when the kernel
/// does not split reductions of this combiner (f64 reductions and products
/// stay serial).
static TypedAttr identityOf(Operation *combiner, Type t) {
  if (auto it = dyn_cast<IntegerType>(t))
    return integerIdentityOf(combiner, it);
  if (!t.isF32())
    return {};
  Builder b(combiner->getContext());
  const llvm::fltSemantics &sem = APFloat::IEEEsingle();
  if (isa<arith::AddFOp>(combiner))
    return b.getFloatAttr(t, APFloat::getZero(sem, /*Negative=*/true));
  if (isa<arith::MaximumFOp>(combiner))
    return b.getFloatAttr(t, APFloat::getInf(sem, /*Negative=*/true));
  if (isa<arith::MinimumFOp>(combiner))
    return b.getFloatAttr(t, APFloat::getInf(sem));
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return b.getFloatAttr(t, APFloat::getQNaN(sem));
  return {};
}

/// The split of sinter-online-logsumexp's reduction: two f32 results, the
/// first a max of its accumulator (the second's update reads the first).
static std::optional<SplitReduction>
matchOnlineLogSumExp(linalg::GenericOp op) {
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  if (op.getNumDpsInits() != 2 ||
      llvm::any_of(op.getRegionOutputArgs(),
                   [](BlockArgument a) { return !a.getType().isF32(); }))
    return std::nullopt;
  auto max = yield.getValues()[0].getDefiningOp<arith::MaximumFOp>();
  if (!max ||
      !llvm::is_contained(max->getOperands(), op.getRegionOutputArgs()[0]))
    return std::nullopt;
  Builder b(op.getContext());
  const llvm::fltSemantics &sem = APFloat::IEEEsingle();
  SplitReduction w;
  w.onlineLogSumExp = true;
  w.identities = {b.getF32FloatAttr(
                      APFloat::getInf(sem, /*Negative=*/true).convertToFloat()),
                  b.getF32FloatAttr(0.0f)};
  return w;
}

std::optional<SplitReduction>
sinter::gpu_kernels::matchSplitReduction(linalg::GenericOp op, int64_t trips,
                                         int64_t minTrips) {
  if (trips < minTrips)
    return std::nullopt;
  if (op->hasAttr(kOnlineLogSumExpAttr))
    return matchOnlineLogSumExp(op);
  Block &body = op.getRegion().front();
  // Values that depend on an accumulator.
  llvm::SmallPtrSet<Value, 16> fromAcc;
  for (BlockArgument arg : op.getRegionOutputArgs())
    fromAcc.insert(arg);
  for (Operation &bodyOp : body.without_terminator())
    if (llvm::any_of(bodyOp.getOperands(),
                     [&](Value v) { return fromAcc.contains(v); }))
      fromAcc.insert(bodyOp.result_begin(), bodyOp.result_end());
  SplitReduction w;
  for (unsigned j = 0; j < op.getNumDpsInits(); ++j) {
    SmallVector<Operation *> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), j, combiners) ||
        combiners.size() != 1 || combiners[0]->getNumOperands() != 2)
      return std::nullopt;
    Operation *c = combiners[0];
    BlockArgument acc = op.getRegionOutputArgs()[j];
    unsigned accPos = c->getOperand(0) == acc ? 0 : 1;
    if (c->getOperand(accPos) != acc ||
        fromAcc.contains(c->getOperand(1 - accPos)))
      return std::nullopt;
    Type carried = acc.getType();
    if (isNarrowFloat(carried))
      carried = Float32Type::get(op.getContext());
    TypedAttr identity = identityOf(c, carried);
    if (!identity)
      return std::nullopt;
    w.combiners.push_back(c);
    w.identities.push_back(identity);
    w.accOperand.push_back(accPos);
  }
  return w;
}

Value sinter::gpu_kernels::combineWith(ImplicitLocOpBuilder &b,
                                       Operation *combiner, unsigned accOperand,
                                       Value acc, Value x) {
  OperationState state(b.getLoc(), combiner->getName());
  state.addOperands(accOperand == 0 ? ValueRange{acc, x} : ValueRange{x, acc});
  state.addTypes(acc.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

/// Two partials (M, S) of the online logsumexp combined: S relative to the
/// larger max, the smaller one's sum rescaled (none when it is empty: its
/// max may be -inf); M NaN-propagating, as the per-point update.
static SmallVector<Value>
combineOnline(ImplicitLocOpBuilder &b, ArrayRef<Value> acc, ArrayRef<Value> x) {
  auto cst = [&](float v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  };
  Value gt = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x[0], acc[0]);
  Value hi = arith::SelectOp::create(b, gt, x[0], acc[0]);
  Value lo = arith::SelectOp::create(b, gt, acc[0], x[0]);
  Value sHi = arith::SelectOp::create(b, gt, x[1], acc[1]);
  Value sLo = arith::SelectOp::create(b, gt, acc[1], x[1]);
  Location loc = b.getLoc();
  Value scale =
      expAsExp2(b, loc,
                arith::SubFOp::create(b, finiteMaxReference(b, loc, lo),
                                      finiteMaxReference(b, loc, hi)));
  Value empty =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, sLo, cst(0.0f));
  Value term = arith::SelectOp::create(
      b, empty, cst(0.0f), arith::MulFOp::create(b, sLo, scale).getResult());
  return {arith::MaximumFOp::create(b, acc[0], x[0]),
          arith::AddFOp::create(b, sHi, term)};
}

SmallVector<Value>
sinter::gpu_kernels::combineSplit(ImplicitLocOpBuilder &b,
                                  const SplitReduction &split,
                                  ArrayRef<Value> acc, ArrayRef<Value> x) {
  if (split.onlineLogSumExp)
    return combineOnline(b, acc, x);
  SmallVector<Value> out;
  for (auto [j, a] : llvm::enumerate(acc))
    out.push_back(
        combineWith(b, split.combiners[j], split.accOperand[j], a, x[j]));
  return out;
}

/// The lanes' partial results combined across the warp (butterfly: every
/// lane ends with the total).
SmallVector<Value> sinter::gpu_kernels::warpTotals(ImplicitLocOpBuilder &b,
                                                   const SplitReduction &split,
                                                   SmallVector<Value> partial) {
  for (int64_t off = kWarpSize / 2; off >= 1; off /= 2) {
    SmallVector<Value> other;
    for (Value p : partial)
      other.push_back(gpu::ShuffleOp::create(b, p, static_cast<int32_t>(off),
                                             static_cast<int32_t>(kWarpSize),
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult());
    partial = combineSplit(b, split, partial, other);
  }
  return partial;
}
