//===- NormBackwardKernel.cpp - LayerNorm/RMSNorm backward on CUDA --------===//
//
// Part of the Sinter project.
//
// Two launches. The row kernel reads each row of x and dy once (16-byte
// vectors into registers, the row kernels' lane mapping), reduces
// sum(g * xhat) (and sum(g) for LayerNorm) across the row's lanes, and
// writes dx once:
//
//   xhat = (x - mean) * rstd,  g = dy * weight
//   dx   = rstd * (g - sum(g) / N - xhat * sum(g * xhat) / N)
//
// Its blocks are persistent (a grid of P blocks sized to the chip at
// compile time, looping over the row groups), so each thread adds
// dy * xhat and dy for its columns over all of its rows in registers and
// stores one partial row per (block, row slot) at the end: an f32 scratch
// of [K, P * rowsPerBlock, N] (K = 1 or 2 sums). The column kernel then adds
// the partial rows in a fixed order (a warp's width of columns per block,
// the rows split over kSlotLanes lanes, then the lanes in order) and
// rounds dweight and dbias once. Deterministic; the scratch is ~P/rows of the
// traffic (261 partial rows against 16384 rows at 16384 x 4096 on an H200).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "RowCommon.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

namespace {

/// Registers a row-kernel thread needs beyond its vectors (indices,
/// predicates, the reduction's temporaries): ptxas used 96-122 registers
/// where the vectors alone need 96-112.
constexpr int64_t kRowBackwardRegisterSlack = 8;

/// The operands and results of a norm backward op, and its row shape.
struct NormBackward {
  Operation *op;
  Value dy, x, mean, rstd, weight; // mean: LayerNorm only
  Value dx, dweight, dbias;        // dbias: LayerNorm only
  int64_t rows = 1, cols = 1;
  /// The chain the row kernel computes from dx (matchNormBackwardEpilogue).
  FusedOp epilogue;
  /// A sum over the rows of one of the chain's results, added up beside
  /// dweight (matchEpilogueColumnSum).
  std::optional<EpilogueColumnSum> columnSum;

  NormBackward(Operation *o, FusedOp epilogue,
               std::optional<EpilogueColumnSum> columnSum)
      : op(o), epilogue(epilogue), columnSum(columnSum) {
    if (auto ln = dyn_cast<LayerNormBackwardOp>(o)) {
      dy = ln.getGradOutput(), x = ln.getInput(), mean = ln.getMean();
      rstd = ln.getRstd(), weight = ln.getWeight();
      dx = ln.getGradInput(), dweight = ln.getGradWeight();
      dbias = ln.getGradBias();
    } else {
      auto rms = cast<RMSNormBackwardOp>(o);
      dy = rms.getGradOutput(), x = rms.getInput(), rstd = rms.getRstd();
      weight = rms.getWeight(), dx = rms.getGradInput();
      dweight = rms.getGradWeight();
    }
    std::tie(rows, cols) = rowsAndColumns(cast<RankedTensorType>(x.getType()),
                                          normalizedRankOf(o));
  }
  /// The epilogue's inputs other than dx (the row kernel's extra operands).
  SmallVector<Value> epilogueInputs() const {
    SmallVector<Value> v;
    FusedOp chain = epilogue; // (op handles' getters are not const)
    for (Value in : chain ? chain.getInputs() : ValueRange())
      if (in != dx)
        v.push_back(in);
    return v;
  }
  /// What the row kernel writes per element: dx, or the epilogue's results.
  SmallVector<Value> rowResults() const {
    if (!epilogue)
      return {dx};
    return SmallVector<Value>(epilogue->getResults());
  }
  /// The column sums asked for: dweight, then dbias, then the epilogue's.
  SmallVector<Value> columnSums() const {
    SmallVector<Value> v;
    for (Value r : {dweight, dbias})
      if (r)
        v.push_back(r);
    if (columnSum)
      v.push_back(columnSum->sum->getResult(0));
    return v;
  }
};

/// The row kernel's loop: the thread's accumulators of dy * xhat and dy
/// per vector (f32), carried across its rows, and the reduction-slot
/// parity.
struct RowLoopState {
  SmallVector<Value> dwAcc, dbAcc, csAcc; // csAcc: the epilogue's column sum
  Value parity;
};

/// Where the row kernel's values of dx go: dx's buffer, or the epilogue
/// evaluated on them (its other inputs loaded at the same elements) and its
/// results' buffers.
struct RowStore {
  SmallVector<Value> outs;   // dx, or the epilogue's results (flattened)
  SmallVector<Value> inputs; // the epilogue's inputs, null at dx
  Type dxType;               // dx's element type
  std::optional<ChainEvaluator> chain;
  /// The chain's result summed per column (NormBackward::columnSum), or -1.
  int summed = -1;

  /// How many vectors inputsAt loads.
  int64_t loadedInputs() const {
    return llvm::count_if(inputs, [](Value in) { return bool(in); });
  }
  /// The chain's inputs other than dx at `at`, in their element types
  /// (loaded with the row's x and dy, before its reductions: a load after
  /// the reductions' barrier would expose its latency on every row).
  SmallVector<Value> inputsAt(KernelBuilder &kb, const RowConfig &c, Value at,
                              Value pred) const {
    SmallVector<Value> bufs, ats;
    for (Value in : inputs)
      if (in) {
        bufs.push_back(in);
        ats.push_back(at);
      }
    if (bufs.empty())
      return {};
    return kb.loadAll(bufs, ats, c.vec, pred, /*toF32=*/false,
                      /*stream=*/true);
  }
  /// Stores the f32 vector `v` of dx's elements at `at`, the chain reading
  /// `raw` (inputsAt's vectors); returns the summed result's values as
  /// stored (widened to f32), or null.
  Value store(KernelBuilder &kb, const RowConfig &c, Value at, Value v,
              Value pred, ArrayRef<Value> raw) const {
    if (!chain) {
      kb.streamStoreF32(outs[0], at, v, pred);
      return {};
    }
    ImplicitLocOpBuilder &b = kb.builder();
    // dx as the chain reads it: rounded to its type, as stored.
    Value dxv = v;
    if (!dxType.isF32())
      dxv = arith::TruncFOp::create(b, VectorType::get({c.vec}, dxType), v);
    SmallVector<Value> ins;
    auto next = raw.begin();
    for (Value in : inputs)
      ins.push_back(in ? *next++ : dxv);
    Value summedValues;
    for (auto [j, out, r] :
         llvm::enumerate(outs, chain->evaluate(b, ins, c.vec))) {
      Value wide = kb.extF32(r);
      kb.streamStoreF32(out, at, wide, pred);
      if (static_cast<int>(j) == summed)
        summedValues = wide;
    }
    return summedValues;
  }
};

/// One row: loads x and dy, reduces, stores dx (`store`) and returns the
/// updated accumulators.
RowLoopState rowStep(KernelBuilder &kb, const RowConfig &c,
                     const NormBackward &nb, const RowThread &t,
                     ArrayRef<Value> bufs, const RowStore &store,
                     ArrayRef<Value> weightVecs, ArrayRef<Value> prefetched,
                     Value smem, Value smem2, const RowLoopState &in) {
  ImplicitLocOpBuilder &b = kb.builder();
  auto [dy, x, mean, rstd] =
      std::make_tuple(bufs[0], bufs[1], bufs[2], bufs[3]);
  Value base = rowBase(kb, c, t.row);
  auto scalarAt = [&](Value buf) {
    Value v = kb.loadF32(buf, t.row, 1, t.rowValid, 0.0, false);
    return kb.splat(vector::ExtractOp::create(b, v, ArrayRef<int64_t>{0}),
                    c.vec);
  };
  Value rstdVec = scalarAt(rstd);
  Value meanVec = mean ? scalarAt(mean) : Value();
  SmallVector<Value> xhat, dys, gs;
  SmallVector<SmallVector<Value>> epilogueIns;
  int64_t nIns = store.loadedInputs();
  Value sumGX = kb.f32(0.0), sumG = kb.f32(0.0);
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value at = arith::AddIOp::create(b, base, t.colIndex[k]);
    // This row's x and dy (and the epilogue's inputs): loaded now, or a
    // row ahead (`prefetched`: x's vectors, dy's, then the inputs', in
    // their element types).
    Value xv = prefetched.empty() ? kb.streamLoadF32(x, at, c.vec, t.pred[k])
                                  : kb.extF32(prefetched[k]);
    Value dyv = prefetched.empty() ? kb.streamLoadF32(dy, at, c.vec, t.pred[k])
                                   : kb.extF32(prefetched[c.perThread + k]);
    epilogueIns.push_back(prefetched.empty()
                              ? store.inputsAt(kb, c, at, t.pred[k])
                              : SmallVector<Value>(prefetched.slice(
                                    2 * c.perThread + k * nIns, nIns)));
    if (meanVec)
      xv = arith::SubFOp::create(b, xv, meanVec);
    xhat.push_back(arith::MulFOp::create(b, xv, rstdVec));
    dys.push_back(dyv);
    gs.push_back(
        weightVecs.empty()
            ? dyv
            : arith::MulFOp::create(b, dyv, weightVecs[k]).getResult());
    // Lanes past the row have dy = 0 (the loads' fill), so g = 0 there.
    sumGX = arith::AddFOp::create(
        b, sumGX,
        kb.reduceVector(ReduceKind::Sum,
                        arith::MulFOp::create(b, gs[k], xhat[k])));
    if (meanVec)
      sumG = arith::AddFOp::create(b, sumG,
                                   kb.reduceVector(ReduceKind::Sum, gs[k]));
  }
  // One barrier a row: LayerNorm's two sums go through it together, and
  // the slots alternate between rows (no other barrier separates a row's
  // reads of them from the next row's writes).
  Value slots = arith::AddIOp::create(
      b, t.rowInBlock,
      arith::MulIOp::create(b, in.parity, kb.idx(c.rowsPerBlock)));
  if (meanVec) {
    SmallVector<Value> sums =
        kb.groupReduceAll({sumGX, sumG}, ReduceKind::Sum, c.threadsPerRow,
                          t.lane, slots, {smem, smem2});
    sumGX = sums[0];
    sumG = sums[1];
  } else {
    sumGX = kb.groupReduce(sumGX, ReduceKind::Sum, c.threadsPerRow, t.lane,
                           slots, smem);
  }
  Value invN = kb.f32(1.0 / static_cast<double>(c.cols));
  Value cGX = kb.splat(arith::MulFOp::create(b, sumGX, invN), c.vec);
  Value cG = kb.splat(arith::MulFOp::create(b, sumG, invN), c.vec);
  RowLoopState out = in;
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value v =
        arith::SubFOp::create(b, gs[k], arith::MulFOp::create(b, xhat[k], cGX));
    if (meanVec)
      v = arith::SubFOp::create(b, v, cG);
    v = arith::MulFOp::create(b, v, rstdVec);
    Value stored =
        store.store(kb, c, arith::AddIOp::create(b, base, t.colIndex[k]), v,
                    t.pred[k], epilogueIns[k]);
    // Only elements the chain stored are summed (a chain of zeros need
    // not be zero); the partial rows' columns past the row are never read.
    if (!out.csAcc.empty()) {
      if (t.pred[k])
        stored = arith::SelectOp::create(b, t.pred[k], stored,
                                         kb.splat(kb.f32(0.0), c.vec));
      out.csAcc[k] = arith::AddFOp::create(b, out.csAcc[k], stored);
    }
    if (!out.dwAcc.empty())
      out.dwAcc[k] = arith::AddFOp::create(
          b, out.dwAcc[k], arith::MulFOp::create(b, dys[k], xhat[k]));
    if (!out.dbAcc.empty())
      out.dbAcc[k] = arith::AddFOp::create(b, out.dbAcc[k], dys[k]);
  }
  out.parity = arith::XOrIOp::create(b, in.parity, kb.idx(1));
  return out;
}

/// The row kernel: dx, and the partial column sums into `partials`.
FailureOr<KernelLaunch> buildRowKernel(const NormBackward &nb,
                                       const RowConfig &c, Value partials,
                                       gpu::GPUModuleOp module, StringRef name,
                                       const Tuning &tuning) {
  ImplicitLocOpBuilder b(nb.op->getLoc(), nb.op->getContext());
  SmallVector<Value> operands(nb.op->getOperands());
  llvm::append_range(operands, nb.epilogueInputs());
  SmallVector<Value> results = nb.rowResults();
  if (partials)
    results.push_back(partials);
  auto [launch, smem, smem2] = startRowKernel(
      b, nb.op, c, module, name, /*runtimeSizedGrid=*/false, results, operands);
  KernelBuilder kb(b, tuning.cacheHints);
  ValueRange args = launch.kernel.getArguments();
  unsigned a = 0;
  Value dy = kb.flatten(args[a++]), x = kb.flatten(args[a++]);
  Value mean = nb.mean ? kb.flatten(args[a++]) : Value();
  Value rstd = kb.flatten(args[a++]);
  Value weight = nb.weight ? kb.flatten(args[a++]) : Value();
  RowStore store;
  store.dxType = getElementTypeOrSelf(nb.dx);
  if (FusedOp chain = nb.epilogue) {
    for (Value in : chain.getInputs())
      store.inputs.push_back(in == nb.dx ? Value() : kb.flatten(args[a++]));
    store.chain.emplace(b, chain);
    if (nb.columnSum)
      store.summed = static_cast<int>(nb.columnSum->result);
  }
  for (size_t i = 0; i < nb.rowResults().size(); ++i)
    store.outs.push_back(kb.flatten(args[a++]));
  Value part = partials ? kb.flatten(args[a++]) : Value();

  RowLanes l = setupLanes(kb, c);
  Value zero = kb.splat(kb.f32(0.0), c.vec);
  RowLoopState init;
  if (nb.dweight)
    init.dwAcc.assign(c.perThread, zero);
  if (nb.dbias)
    init.dbAcc.assign(c.perThread, zero);
  if (nb.columnSum)
    init.csAcc.assign(c.perThread, zero);
  // With prefetch, the x and dy vectors of the block's next row group (and
  // the epilogue's other inputs) are loaded at the top of each iteration,
  // in their element types, and carried into the next one: they are in
  // flight while this row reduces.
  auto loadRaw = [&](Value group) {
    RowThread tn = rowOf(kb, c, l, group, /*check=*/true);
    Value base = rowBase(kb, c, tn.row);
    SmallVector<Value> xs, dys, ins;
    for (int64_t k = 0; k < c.perThread; ++k) {
      Value at = arith::AddIOp::create(b, base, tn.colIndex[k]);
      SmallVector<Value> v = kb.loadAll({x, dy}, {at, at}, c.vec, tn.pred[k],
                                        /*toF32=*/false, /*stream=*/true);
      xs.push_back(v[0]);
      dys.push_back(v[1]);
      llvm::append_range(ins, store.inputsAt(kb, c, at, tn.pred[k]));
    }
    llvm::append_range(xs, dys);
    llvm::append_range(xs, ins);
    return xs;
  };
  SmallVector<Value> carried = init.dwAcc;
  llvm::append_range(carried, init.dbAcc);
  llvm::append_range(carried, init.csAcc);
  size_t nAcc = carried.size();
  if (c.prefetch)
    llvm::append_range(carried, loadRaw(kb.blockId()));
  size_t nRaw = carried.size() - nAcc;
  carried.push_back(kb.idx(0));
  auto loop = scf::ForOp::create(b, kb.blockId(), kb.idx(c.groups),
                                 kb.gridDim(), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    ValueRange it = loop.getRegionIterArgs();
    Value group = loop.getInductionVar();
    SmallVector<Value> next;
    if (c.prefetch)
      next = loadRaw(arith::AddIOp::create(b, group, kb.gridDim()));
    RowLoopState in;
    size_t nDw = init.dwAcc.size(), nDb = init.dbAcc.size();
    in.dwAcc = llvm::to_vector(it.take_front(nDw));
    in.dbAcc = llvm::to_vector(it.slice(nDw, nDb));
    in.csAcc = llvm::to_vector(it.slice(nDw + nDb, nAcc - nDw - nDb));
    SmallVector<Value> current = llvm::to_vector(it.slice(nAcc, nRaw));
    in.parity = it.back();
    RowThread t = rowOf(kb, c, l, group, /*check=*/false);
    // The weight is read again for every row (L1 hits): holding it would
    // take the registers the accumulators need.
    SmallVector<Value> weightVecs;
    for (int64_t k = 0; weight && k < c.perThread; ++k)
      weightVecs.push_back(
          kb.loadF32(weight, t.colIndex[k], c.vec, l.inRow[k]));
    RowLoopState out = rowStep(kb, c, nb, t, {dy, x, mean, rstd}, store,
                               weightVecs, current, smem, smem2, in);
    SmallVector<Value> yields = out.dwAcc;
    llvm::append_range(yields, out.dbAcc);
    llvm::append_range(yields, out.csAcc);
    llvm::append_range(yields, next);
    yields.push_back(out.parity);
    scf::YieldOp::create(b, yields);
  }
  if (part) {
    // Partial row (block, row slot) of each sum: [K, P * rowsPerBlock, N].
    int64_t slots = c.grid * c.rowsPerBlock;
    Value slot = arith::AddIOp::create(
        b, arith::MulIOp::create(b, kb.blockId(), kb.idx(c.rowsPerBlock)),
        l.rowInBlock);
    ValueRange res = loop.getResults().take_front(nAcc);
    for (int64_t s = 0; s * c.perThread < static_cast<int64_t>(res.size());
         ++s) {
      Value rowStart = arith::MulIOp::create(
          b, arith::AddIOp::create(b, kb.idx(s * slots), slot), kb.idx(c.cols));
      for (int64_t k = 0; k < c.perThread; ++k)
        kb.storeF32(part, arith::AddIOp::create(b, rowStart, l.colIndex[k]),
                    res[s * c.perThread + k], l.inRow[k]);
    }
  }
  return launch;
}

/// The column kernel's block: kColumnsPerBlock consecutive columns (one
/// per lane of a warp, so that each load instruction reads 128 contiguous
/// bytes) by kSlotLanes threads that split the partial rows; each thread
/// keeps kUnroll loads in flight.
constexpr int64_t kColumnsPerBlock = kWarpSize;
constexpr int64_t kSlotLanes = kMaxThreadsPerBlock / kColumnsPerBlock;
constexpr int64_t kUnroll = 4;

/// Sum of partial rows lane, lane + kSlotLanes, ... of column `col` of sum
/// `s` (f32), kUnroll independent accumulators added in a fixed order.
Value sumSlotsOfLane(KernelBuilder &kb, Value part, int64_t s, int64_t slots,
                     int64_t cols, Value lane, Value col) {
  ImplicitLocOpBuilder &b = kb.builder();
  int64_t stride = kSlotLanes * kUnroll;
  SmallVector<Value> init(kUnroll, kb.f32(0.0));
  auto loop =
      scf::ForOp::create(b, kb.idx(0), kb.idx(slots), kb.idx(stride), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> acc;
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value slot = arith::AddIOp::create(
          b, loop.getInductionVar(),
          arith::AddIOp::create(b, lane, kb.idx(u * kSlotLanes)));
      Value ok = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, slot,
                                       kb.idx(slots));
      Value at = arith::AddIOp::create(
          b,
          arith::MulIOp::create(
              b, arith::AddIOp::create(b, kb.idx(s * slots), slot),
              kb.idx(cols)),
          col);
      Value v = vector::ExtractOp::create(b, kb.loadF32(part, at, 1, ok),
                                          ArrayRef<int64_t>{0});
      acc.push_back(arith::AddFOp::create(b, loop.getRegionIterArgs()[u], v));
    }
    scf::YieldOp::create(b, acc);
  }
  Value sum = loop.getResult(0);
  for (int64_t u = 1; u < kUnroll; ++u)
    sum = arith::AddFOp::create(b, sum, loop.getResult(u));
  return sum;
}

/// The column kernel: each column's partial rows added in a fixed order
/// (per lane, then across the lanes through shared memory), rounded once
/// into dweight and dbias.
FailureOr<KernelLaunch> buildColumnKernel(const NormBackward &nb,
                                          Value partials, int64_t slots,
                                          gpu::GPUModuleOp module,
                                          StringRef name) {
  KernelLaunch launch;
  launch.operands = {partials};
  launch.results = nb.columnSums();
  // A block per (sum, group of columns): each sum's columns in blocks of
  // their own (GPT-2's 768 columns and three sums: 72 blocks, not 24).
  int64_t groups = llvm::divideCeil(nb.cols, kColumnsPerBlock);
  launch.block = kColumnsPerBlock * kSlotLanes;
  launch.grid = groups * static_cast<int64_t>(launch.results.size());
  ImplicitLocOpBuilder b(nb.op->getLoc(), nb.op->getContext());
  launch.kernel =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = launch.kernel.addWorkgroupAttribution(
      MemRefType::get({launch.block}, b.getF32Type(),
                      MemRefLayoutAttrInterface(), ws),
      nb.op->getLoc());
  b.setInsertionPointToStart(&launch.kernel.getBody().front());
  KernelBuilder kb(b);
  ValueRange args = launch.kernel.getArguments();
  Value part = kb.flatten(args[0]);
  Value tid = kb.threadId();
  Value which = arith::DivUIOp::create(b, kb.blockId(), kb.idx(groups));
  Value group = arith::RemUIOp::create(b, kb.blockId(), kb.idx(groups));
  Value colInBlock = arith::RemUIOp::create(b, tid, kb.idx(kColumnsPerBlock));
  Value lane = arith::DivUIOp::create(b, tid, kb.idx(kColumnsPerBlock));
  Value col = arith::AddIOp::create(
      b, arith::MulIOp::create(b, group, kb.idx(kColumnsPerBlock)), colInBlock);
  // Columns past the last read column 0 (in bounds) and store nothing.
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, kb.idx(nb.cols));
  Value readCol = arith::SelectOp::create(b, inRange, col, kb.idx(0));
  Value isFirstLane =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, kb.idx(0));
  Value stores = arith::AndIOp::create(b, inRange, isFirstLane);
  for (auto [s, out] : llvm::enumerate(launch.results)) {
    // (Uniform in the block: its barrier is reached by every thread.)
    Value mine = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, which,
                                       kb.idx(static_cast<int64_t>(s)));
    auto branch = scf::IfOp::create(b, mine, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    Value sum = sumSlotsOfLane(kb, part, static_cast<int64_t>(s), slots,
                               nb.cols, lane, readCol);
    // Across the lanes: each lane's sum at smem[lane * kColumnsPerBlock +
    // column], then lane 0 adds them in lane order.
    memref::StoreOp::create(b, sum, smem, ValueRange{tid});
    gpu::BarrierOp::create(b);
    scf::IfOp::create(b, stores, [&](OpBuilder &ob, Location loc) {
      ImplicitLocOpBuilder ib(loc, ob);
      Value total = kb.f32(0.0);
      for (int64_t l = 0; l < kSlotLanes; ++l)
        total = arith::AddFOp::create(
            ib, total,
            memref::LoadOp::create(
                ib, smem,
                ValueRange{arith::AddIOp::create(
                    ib, colInBlock, kb.idx(l * kColumnsPerBlock))}));
      KernelBuilder inner(ib);
      inner.storeF32(kb.flatten(args[1 + s]), col,
                     vector::BroadcastOp::create(
                         ib, VectorType::get({1}, ib.getF32Type()), total),
                     Value());
      scf::YieldOp::create(ib);
    });
  }
  return launch;
}

} // namespace

FailureOr<SmallVector<KernelLaunch, 1>>
sinter::gpu_kernels::buildNormBackwardKernels(
    Operation *op, gpu::GPUModuleOp module, StringRef name,
    const Tuning &tuning, FusedOp epilogue,
    std::optional<EpilogueColumnSum> columnSum) {
  NormBackward nb(op, epilogue, columnSum);
  // Persistent blocks (their count fixes the scratch's shape), as many
  // per SM as leave each thread the registers its row needs: per vector
  // x, dy, xhat, g and the K accumulators (f32), the next row's x and dy
  // when prefetching, plus a few for indices and the reduction. (H200,
  // 16384 x 4096 bf16: ptxas spilled at 64 registers with K = 2 and 4
  // blocks; 2 blocks of 256 threads with prefetch measured best, 79-85% of
  // copy, bench/NOTES.md.)
  Tuning rowTuning = tuning;
  rowTuning.rowPersistent = 1;
  Type elt = cast<RankedTensorType>(nb.x.getType()).getElementType();
  FailureOr<RowConfig> cfg =
      chooseRowConfig(op, nb.rows, nb.cols, elt, rowTuning);
  if (failed(cfg))
    return failure();
  bool prefetch = tuning.rowPersistent != 1;
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  // x and dy of the next row, carried in their element type; the
  // epilogue's other inputs, this row's (and with prefetch the next's).
  int64_t perVector =
      4 + static_cast<int64_t>(nb.columnSums().size()) +
      (prefetch ? llvm::divideCeil(2 * eltBytes, 4) : 0) +
      static_cast<int64_t>(nb.epilogueInputs().size()) * (prefetch ? 2 : 1);
  int64_t registers = llvm::alignTo(
      perVector * cfg->vec * cfg->perThread + kRowBackwardRegisterSlack, 8);
  const ChipInfo &chip = chipInfo(tuning.smVersion);
  rowTuning.persistentCtas = std::max<int64_t>(
      1,
      chip.registersPerSM /
          (cfg->block * std::min<int64_t>(registers, kMaxRegistersPerThread)));
  if (tuning.persistentCtas > 0) // the option overrides the estimate
    rowTuning.persistentCtas = tuning.persistentCtas;
  cfg = chooseRowConfig(op, nb.rows, nb.cols, elt, rowTuning);
  if (failed(cfg))
    return failure();
  RowConfig c = *cfg;
  // The weight is never held (see buildRowKernel); the next row is loaded
  // a row ahead unless row-persistent asks for 1 (no prefetch).
  c.hoist = false;
  c.prefetch = prefetch;
  SmallVector<Value> sums = nb.columnSums();
  Value partials;
  int64_t slots = c.grid * c.rowsPerBlock;
  if (!sums.empty()) {
    OpBuilder ob(op);
    partials = tensor::EmptyOp::create(
        ob, op->getLoc(),
        ArrayRef<int64_t>{static_cast<int64_t>(sums.size()), slots, nb.cols},
        ob.getF32Type());
  }
  FailureOr<KernelLaunch> rows =
      buildRowKernel(nb, c, partials, module, name, tuning);
  if (failed(rows))
    return failure();
  SmallVector<KernelLaunch, 1> launches = {std::move(*rows)};
  if (partials) {
    FailureOr<KernelLaunch> cols =
        buildColumnKernel(nb, partials, slots, module, (name + "_1").str());
    if (failed(cols))
      return failure();
    launches.push_back(std::move(*cols));
  }
  return launches;
}
