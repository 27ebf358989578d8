//===- WarpLoop.cpp - The lanes' loops of a split reduction ---------------===//
//
// Part of the Sinter project.
//
// A split reduction (a warp, or a block, per output element;
// ReductionKernel.cpp plans it) shares its points among the lanes: lane l
// takes points l, l + lanes, ... -- kSplitUnroll of them per loop trip
// while all are in range, their loads in flight together, then one at a
// time -- or, reading its rows as vectors (RowVectorReduction.cpp), vectors
// l, l + lanes, ... and then the points past the last whole vector. The
// lanes' partials meet by shuffles, a block's warps' in shared memory,
// and the init joins last.
//
//===----------------------------------------------------------------------===//

#include "SerialKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Points a lane of a split reduction takes per loop trip (their loads in
/// flight together).
static constexpr int64_t kSplitUnroll = 4;
/// Vectors a lane of a split reduction reading its rows as vectors takes
/// per loop trip (RowVectors: 32 bytes of loads in flight a lane).
static constexpr int64_t kRowVectorUnroll = 2;

SmallVector<Value> SerialKernel::emitLaneLoop(int64_t first, int64_t count,
                                              int64_t unroll,
                                              ValueRange partial,
                                              LaneItem item) {
  if (count <= 0)
    return SmallVector<Value>(partial);
  auto itemAt = [&](Value k) {
    return first ? arith::AddIOp::create(b, k, kb.idx(first)).getResult() : k;
  };
  int64_t stride = unroll * lanes;
  int64_t mainEnd = std::max<int64_t>(0, count - (unroll - 1) * lanes);
  if (mainEnd == 0) // (too few items for a lane's unrolled trip)
    return emitLaneSteps(first, count, lane, partial, item);
  auto unrolled =
      scf::ForOp::create(b, lane, kb.idx(mainEnd), kb.idx(stride), partial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(unrolled.getBody());
    SmallVector<Value> acc(unrolled.getRegionIterArgs());
    for (int64_t u = 0; u < unroll; ++u)
      acc = item(itemAt(arith::AddIOp::create(b, unrolled.getInductionVar(),
                                              kb.idx(u * lanes))),
                 acc);
    emitCopies();
    scf::YieldOp::create(b, acc);
  }
  // Where this lane's single steps start: after its unrolled trips.
  Value ahead = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lane,
                                      kb.idx(mainEnd));
  Value trips0 = arith::DivUIOp::create(
      b,
      arith::AddIOp::create(b, arith::SubIOp::create(b, kb.idx(mainEnd), lane),
                            kb.idx(stride - 1)),
      kb.idx(stride));
  Value start = arith::SelectOp::create(
      b, ahead,
      arith::AddIOp::create(b, lane,
                            arith::MulIOp::create(b, trips0, kb.idx(stride))),
      lane);
  return emitLaneSteps(first, count, start, unrolled.getResults(), item);
}

SmallVector<Value> SerialKernel::emitLaneSteps(int64_t first, int64_t count,
                                               Value start, ValueRange partial,
                                               LaneItem item) {
  auto loop =
      scf::ForOp::create(b, start, kb.idx(count), kb.idx(lanes), partial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  if (first)
    k = arith::AddIOp::create(b, k, kb.idx(first));
  SmallVector<Value> next = item(k, loop.getRegionIterArgs());
  emitCopies();
  scf::YieldOp::create(b, next);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> SerialKernel::emitWarpLoop() {
  // Lane l: points l, l + lanes, ... of the reduction loops (row-major, the
  // innermost loop fastest) from the identities -- or, reading rows as
  // vectors, vectors l, l + lanes, ... and then the points past the last
  // whole vector; then the warp's total, (a block per element) the
  // block's, then the init; lane 0 stores (the builder is left in its
  // branch).
  SmallVector<Value> partial;
  for (TypedAttr identity : split->identities)
    partial.push_back(arith::ConstantOp::create(b, identity));
  int64_t scalarFrom = 0;
  if (rowVectors) {
    int64_t vectors = trips / rowVectors->width;
    partial = emitLaneLoop(
        0, vectors, kRowVectorUnroll, partial,
        [&](Value v, ValueRange acc) { return emitRowVector(v, acc); });
    scalarFrom = vectors * rowVectors->width;
  }
  partial = emitLaneLoop(
      scalarFrom, trips - scalarFrom, kSplitUnroll, partial,
      [&](Value point, ValueRange acc) { return emitPoint(point, acc); });
  SmallVector<Value> totals = warpTotals(b, *split, partial);
  if (lanes > kSplitLanes) {
    // Every lane holds its warp's total: lane 0 of each stores it.
    Value first = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, lane, kb.idx(kSplitLanes)), kb.idx(0));
    totals = combineAcrossWarps(
        totals, arith::DivUIOp::create(b, lane, kb.idx(kSplitLanes)), kb.idx(0),
        lanes / kSplitLanes, /*slots=*/1, first);
  }
  SmallVector<Value> results = combineSplit(b, *split, accs, totals);
  auto first = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, kb.idx(0)),
      /*withElseRegion=*/false);
  b.setInsertionPoint(first.thenBlock()->getTerminator());
  return results;
}
