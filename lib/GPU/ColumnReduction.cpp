//===- ColumnReduction.cpp - Column sums on coalesced reads ---------------===//
//
// Part of the Sinter project.
//
// A bias gradient sums dY [rows, N] over its rows: a reduction whose
// operands are contiguous along the output's innermost dimension. A warp
// per output element (ReductionKernel.cpp) reads such a column with a
// lane per row -- one useful element per 32-byte sector, one load in
// flight per warp -- so a column sum of GPT-2's [8192, 768] gradient moves
// its 12.6 MB sixteen times over. The column form reads them as they lie:
//
//   block (group g, chunk c): kColumnLanes x V adjacent output elements
//     (lane l: elements (32g + l) V .. + V - 1) x kColumnWarps warps; warp
//     w reduces the points c * chunkLen + w, + kColumnWarps, ... of the
//     block's chunk, kColumnUnroll of them per trip (independent loads in
//     flight), from the combiner's identity;
//   the warps' partials meet in shared memory, warp 0 combines them in
//   warp order; with one chunk it joins the init and stores the result,
//   else it stores an f32 partial per (result, chunk, element) and
//   <name>_1 combines the chunks in chunk order, then the init.
//
// Every load instruction of a warp reads 32 V adjacent elements of a row:
// V elements a lane, one vector of up to 16 bytes (8 bf16, 4 f32) from
// each input read along the output's innermost dimension. A bias
// gradient's 3072 columns are 12 groups of 8; fewer columns take narrower
// vectors so that the grid still fills the chip (kColumnMinBlocksPerSM),
// down to 4 a lane; narrower ones keep a lane per column.
// The order of the sum differs from the serial one, as in every other
// Sinter reduction; it is fixed (no atomics): the same inputs give the same
// bits.
//
//===----------------------------------------------------------------------===//

#include "SerialKernel.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Adjacent output elements per block: one per lane.
static constexpr int64_t kColumnLanes = kWarpSize;
/// Warps per block, each over every kColumnWarps-th point of its chunk.
static constexpr int64_t kColumnWarps = 8;
/// Points a warp reads per loop trip (loads in flight).
static constexpr int64_t kColumnUnroll = 8;
/// Reductions at least this long take the column form.
static constexpr int64_t kColumnMinTrips = 64;
/// Blocks per SM the chunks are cut for (the grid aims at this many blocks
/// on each of the chip's SMs: loads in flight on all of them).
static constexpr int64_t kColumnBlocksPerSM = 8;
/// Chunks at most (the finishing kernel reads them unrolled); the vector
/// form's blocks are fewer, so it may cut more.
static constexpr int64_t kColumnMaxChunks = 32;
static constexpr int64_t kColumnMaxVectorChunks = 64;
/// Loop trips a warp of the vector form makes at least (each reads 16
/// bytes a lane per point: chunks may be shorter).
static constexpr int64_t kColumnMinVectorWarpTrips = 2;
/// Loop trips a warp makes at least before the rows are cut into chunks
/// (a short reduction is one launch).
static constexpr int64_t kColumnMinWarpTrips = 4;
/// The widest load of a lane (one vector per contiguous input).
static constexpr int64_t kColumnVectorBytes = 16;
/// The narrowest vector worth its fewer blocks (two bf16 a lane measured
/// no faster than one at 8192 x 768 on an H100 and an H200).
static constexpr int64_t kColumnMinVector = 4;
/// Blocks per SM that a vector width must leave the grid (wider vectors
/// mean fewer groups; the chunks cannot make up for more than
/// kColumnMaxVectorChunks).
static constexpr int64_t kColumnMinBlocksPerSM = 2;

/// Points of the reduction a chunk holds at least.
static constexpr int64_t kColumnPointsPerChunk =
    kColumnWarps * kColumnUnroll * kColumnMinWarpTrips;

/// Chunks at most of `trips` points: each at least kColumnPointsPerChunk
/// (kColumnMinWarpTrips a warp), or `shorter` times fewer, and at most
/// `cap`.
static int64_t maxChunksOf(int64_t trips, int64_t cap, int64_t shorter = 1) {
  return std::clamp<int64_t>(trips / kColumnPointsPerChunk * shorter, 1, cap);
}

/// Chunks of `trips` points cut `chunks` ways (whole warps' strides).
static int64_t chunkLengthOf(int64_t trips, int64_t chunks) {
  return llvm::alignTo(llvm::divideCeil(trips, chunks), kColumnWarps);
}

/// The vector form's chunks: its few, long-lived blocks are all resident
/// at once, so the busiest SM sets the time; of the chunk counts that give
/// at least kColumnMinBlocksPerSM blocks per SM, the one whose blocks
/// spread the most evenly over the SMs (the most chunks among equals).
/// GPT-2's 2304 columns are 9 groups: 32 chunks are 288 blocks, 3 on some
/// of 132 SMs and 2 on the others; 44 are 396, 3 on each.
static int64_t balancedChunks(int64_t groups, int64_t trips, int64_t maxChunks,
                              int64_t smCount) {
  int64_t best = maxChunks;
  double bestShare = 0;
  for (int64_t c = maxChunks; c >= 1; --c) {
    int64_t blocks = groups * llvm::divideCeil(trips, chunkLengthOf(trips, c));
    if (blocks < kColumnMinBlocksPerSM * smCount)
      break;
    int64_t perSM = llvm::divideCeil(blocks, smCount);
    double share = static_cast<double>(blocks) / (perSM * smCount);
    if (share > bestShare + 1e-9) {
      best = c;
      bestShare = share;
    }
  }
  return best;
}

int64_t SerialKernel::planColumnVector(unsigned last) {
  AffineExpr lastExpr = getAffineDimExpr(last, op.getContext());
  int64_t bytes = 0;
  SmallVector<unsigned> read;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    unsigned i = in->getOperandNumber();
    if (!type || type.getRank() == 0 ||
        op.getMatchingIndexingMap(in).getResults().back() != lastExpr ||
        op.getMatchingBlockArgument(in).use_empty())
      continue;
    // Floats of buffers the kernel takes (not a constant global, not a
    // slice read at its source's offsets: their alignment is unknown).
    Type elt = type.getElementType();
    if (!(elt.isF16() || elt.isBF16() || elt.isF32()) || inputArg[i] < 0 ||
        (sliced && sliced->input == i))
      return 1;
    bytes = std::max<int64_t>(bytes, elt.getIntOrFloatBitWidth() / 8);
    read.push_back(i);
  }
  if (read.empty())
    return 1;
  // (The width is judged against chunks of kColumnMinWarpTrips; the chunk
  // count then chosen for balance may cut them down to
  // kColumnMinVectorWarpTrips.)
  int64_t maxChunks = maxChunksOf(trips, kColumnMaxVectorChunks);
  // Whole vectors in a row (so aligned to their size), and enough blocks.
  for (int64_t vector = kColumnVectorBytes / bytes; vector >= kColumnMinVector;
       vector /= 2)
    if (ranges[last] % vector == 0 &&
        static_cast<int64_t>(llvm::divideCeil(total, kColumnLanes * vector)) *
                maxChunks >=
            kColumnMinBlocksPerSM * smCount) {
      vectorInputs = std::move(read);
      return vector;
    }
  return 1;
}

bool SerialKernel::planColumns() {
  std::optional<SplitReduction> points =
      matchSplitReduction(op, trips, kColumnMinTrips);
  // (Its shared memory carries f32 partials; its combines are per result;
  // its last trip re-reads points, and a first launch of several writes
  // partials only: no slice copy.)
  if (!points || inits.empty() || points->onlineLogSumExp ||
      (sliced && sliced->copy) ||
      llvm::any_of(points->identities,
                   [](TypedAttr a) { return !a.getType().isF32(); }))
    return false;
  // Every result is stored at the first's index; the output's innermost
  // dimension is a loop that some input reads contiguously and no input
  // reads otherwise.
  AffineMap out0 = op.getMatchingIndexingMap(inits[0]);
  if (out0.getNumResults() == 0)
    return false;
  auto last = dyn_cast<AffineDimExpr>(out0.getResults().back());
  if (!last || llvm::any_of(inits, [&](OpOperand *init) {
        return op.getMatchingIndexingMap(init) != out0;
      }))
    return false;
  bool contiguous = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (!type || type.getRank() == 0)
      continue;
    AffineMap map = op.getMatchingIndexingMap(in);
    if (map.getResults().back() == last)
      contiguous = true;
    else if (map.isFunctionOfDim(last.getPosition()))
      return false;
  }
  if (!contiguous)
    return false;
  ColumnSplit c;
  c.vector = planColumnVector(last.getPosition());
  c.groups = llvm::divideCeil(total, kColumnLanes * c.vector);
  int64_t chunks =
      c.vector > 1
          ? balancedChunks(
                c.groups, trips,
                maxChunksOf(trips, kColumnMaxVectorChunks,
                            kColumnMinWarpTrips / kColumnMinVectorWarpTrips),
                smCount)
          : std::clamp<int64_t>(
                llvm::divideCeil(kColumnBlocksPerSM * smCount, c.groups), 1,
                maxChunksOf(trips, kColumnMaxChunks));
  c.chunkLen = chunkLengthOf(trips, chunks);
  c.chunks = llvm::divideCeil(trips, c.chunkLen);
  if (c.chunks > 1) {
    OpBuilder ob(op);
    int64_t n = static_cast<int64_t>(op->getNumResults()) * c.chunks * total;
    c.partials = tensor::EmptyOp::create(ob, op.getLoc(), ArrayRef<int64_t>{n},
                                         ob.getF32Type());
    launch.results.assign({c.partials});
  }
  split = std::move(points);
  launch.block = kColumnLanes * kColumnWarps;
  launch.grid = c.groups * c.chunks;
  column = c;
  return true;
}

SmallVector<std::pair<unsigned, Value>>
SerialKernel::emitColumnVectorLoads(unsigned last) {
  SmallVector<std::pair<unsigned, Value>> loads;
  for (unsigned i : vectorInputs) {
    OpOperand *in = op.getDpsInputOperand(i);
    auto type = cast<RankedTensorType>(in->get().getType());
    Value at =
        linearIndex(kb, op.getMatchingIndexingMap(in), type.getShape(), iv);
    loads.push_back({i, kb.loadF32(inputViews[i], at, column->vector,
                                   /*pred=*/Value())});
  }
  return loads;
}

SmallVector<SmallVector<Value>>
SerialKernel::emitColumnLoop(Value start, Value end, unsigned last) {
  // The warp's points start, start + W, ... < end, kColumnUnroll a trip; a
  // point past the end re-reads the trip's first and keeps the accumulator.
  // Each lane carries its V columns' accumulators, [column][result].
  int64_t vector = column->vector;
  size_t results = split->identities.size();
  SmallVector<Value> init;
  for (int64_t v = 0; v < vector; ++v)
    for (TypedAttr identity : split->identities)
      init.push_back(arith::ConstantOp::create(b, identity));
  auto loop = scf::ForOp::create(b, start, end,
                                 kb.idx(kColumnWarps * kColumnUnroll), init);
  Value firstColumn = iv[last];
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t u = 0; u < kColumnUnroll; ++u) {
      Value t = arith::AddIOp::create(b, loop.getInductionVar(),
                                      kb.idx(u * kColumnWarps));
      Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, t, end);
      Value rest = arith::SelectOp::create(b, valid, t, loop.getInductionVar());
      for (unsigned d : llvm::reverse(reductionDims)) {
        iv[d] = arith::RemUIOp::create(b, rest, kb.idx(ranges[d]));
        rest = arith::DivUIOp::create(b, rest, kb.idx(ranges[d]));
      }
      SmallVector<std::pair<unsigned, Value>> loads =
          emitColumnVectorLoads(last);
      for (int64_t v = 0; v < vector; ++v) {
        if (v)
          iv[last] = arith::AddIOp::create(b, firstColumn, kb.idx(v));
        for (auto [i, loaded] : loads)
          preloaded[i] = vector::ExtractOp::create(b, loaded, v);
        MutableArrayRef<Value> columnAcc(&acc[v * results], results);
        SmallVector<Value> next = emitRegion(columnAcc);
        for (auto [j, a] : llvm::enumerate(columnAcc))
          a = arith::SelectOp::create(b, valid, next[j], a);
      }
      preloaded.clear();
      iv[last] = firstColumn;
    }
    scf::YieldOp::create(b, acc);
  }
  SmallVector<SmallVector<Value>> partial(vector);
  for (auto [k, r] : llvm::enumerate(loop.getResults()))
    partial[k / results].push_back(r);
  return partial;
}

KernelLaunch SerialKernel::emitColumnChunks(StringRef name) {
  const ColumnSplit &c = *column;
  int64_t vector = c.vector, slots = kColumnLanes * c.vector;
  func = createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  addWarpPartials(kColumnWarps, slots);
  b.setInsertionPointToStart(&func.getBody().front());
  emitViews();
  emitCaptures();
  Value tid = kb.threadId();
  Value laneId = arith::RemUIOp::create(b, tid, kb.idx(kColumnLanes));
  Value warpId = arith::DivUIOp::create(b, tid, kb.idx(kColumnLanes));
  Value group = arith::RemUIOp::create(b, kb.blockId(), kb.idx(c.groups));
  Value chunk = arith::DivUIOp::create(b, kb.blockId(), kb.idx(c.groups));
  // The lane's first element (its V are in one row: the row's length is a
  // multiple of V).
  Value element = arith::MulIOp::create(
      b,
      arith::AddIOp::create(
          b, arith::MulIOp::create(b, group, kb.idx(kColumnLanes)), laneId),
      kb.idx(vector));
  Value inRange = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, element,
                                        kb.idx(total));
  // Lanes past the last element read the last ones and store nothing:
  // every thread reaches the barrier.
  emitCoordinates(
      arith::SelectOp::create(b, inRange, element, kb.idx(total - vector)));
  unsigned last = cast<AffineDimExpr>(
                      op.getMatchingIndexingMap(inits[0]).getResults().back())
                      .getPosition();
  Value chunkStart = arith::MulIOp::create(b, chunk, kb.idx(c.chunkLen));
  Value end = arith::MinUIOp::create(
      b, arith::AddIOp::create(b, chunkStart, kb.idx(c.chunkLen)),
      kb.idx(trips));
  SmallVector<SmallVector<Value>> partial =
      emitColumnLoop(arith::AddIOp::create(b, chunkStart, warpId), end, last);
  // Each column: the warps' partials in warp order (column v of lane l in
  // slot v * 32 + l: a warp's stores and loads hit distinct banks).
  auto slotOf = [&](int64_t v) {
    return arith::AddIOp::create(b, kb.idx(v * kColumnLanes), laneId);
  };
  for (int64_t v = 0; v < vector; ++v)
    storeWarpPartials(partial[v], warpId, slotOf(v), slots, /*stores=*/Value());
  gpu::BarrierOp::create(b);
  Value stores = arith::AndIOp::create(
      b, inRange,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpId, kb.idx(0)));
  auto guard = scf::IfOp::create(b, stores, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  Value firstColumn = iv[last];
  for (int64_t v = 0; v < vector; ++v) {
    SmallVector<Value> totals = sumWarpPartials(slotOf(v), kColumnWarps, slots);
    Value at = v ? arith::AddIOp::create(b, element, kb.idx(v)) : element;
    if (c.chunks > 1) {
      for (auto [j, t] : llvm::enumerate(totals)) {
        Value row = arith::AddIOp::create(
            b, kb.idx(static_cast<int64_t>(j) * c.chunks), chunk);
        store(t, resultViews[0],
              arith::AddIOp::create(
                  b, arith::MulIOp::create(b, row, kb.idx(total)), at));
      }
      continue;
    }
    iv[last] =
        v ? arith::AddIOp::create(b, firstColumn, kb.idx(v)) : firstColumn;
    outIndex.clear();
    accs.clear();
    emitInitialAccumulators(at);
    SmallVector<Value> out;
    for (auto [j, t] : llvm::enumerate(totals))
      out.push_back(combineWith(b, split->combiners[j], split->accOperand[j],
                                accs[j], t));
    emitStores(out);
  }
  iv[last] = firstColumn;
  return launch;
}

KernelLaunch SerialKernel::emitColumnFinish(StringRef name) {
  // One thread per output element: its chunks' partials in chunk order,
  // then the init; one rounding per result.
  const ColumnSplit &c = *column;
  KernelLaunch finish;
  finish.operands = {c.partials};
  for (auto [j, init] : llvm::enumerate(inits))
    if (readsInit[j])
      finish.operands.push_back(init->get());
  finish.results.assign(op->result_begin(), op->result_end());
  finish.block = kSerialBlock;
  finish.grid = llvm::divideCeil(total, kSerialBlock);
  func = createKernel(b, module, name, bufferTypes(finish), finish.block);
  finish.kernel = func;
  b.setInsertionPointToStart(&func.getBody().front());
  Value partials = view(func.getArgument(0));
  unsigned arg = 1;
  initViews.assign(inits.size(), Value());
  for (auto [j, init] : llvm::enumerate(inits))
    if (readsInit[j])
      initViews[j] = view(func.getArgument(arg++));
  resultViews.clear();
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    resultViews.push_back(view(func.getArgument(arg++)));
  Value element = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(kSerialBlock)),
      kb.threadId());
  auto guard =
      scf::IfOp::create(b,
                        arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                              element, kb.idx(total)),
                        /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  emitCoordinates(element);
  outIndex.clear();
  accs.clear();
  emitInitialAccumulators(element);
  SmallVector<Value> out;
  for (auto [j, acc] : llvm::enumerate(accs)) {
    Value t = arith::ConstantOp::create(b, split->identities[j]);
    for (int64_t k = 0; k < c.chunks; ++k) {
      Value at = arith::AddIOp::create(
          b, kb.idx((static_cast<int64_t>(j) * c.chunks + k) * total), element);
      t = combineWith(b, split->combiners[j], split->accOperand[j], t,
                      load(partials, at));
    }
    out.push_back(
        combineWith(b, split->combiners[j], split->accOperand[j], acc, t));
  }
  emitStores(out);
  return finish;
}
