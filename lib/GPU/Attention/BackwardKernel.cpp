//===- BackwardKernel.cpp - The attention backward's main kernel ----------===//
//
// Part of the Sinter project.
//
// The main kernel of Backward.h: one block per (batch, key/value head, key
// tile), its loop over the query tiles that see the tile, and per tile the
// five products on mma.sync. Every product keeps a warp's 16 keys as the
// fragments' rows, so that P^T and dS^T are, in registers, the A operands
// of dV += P^T dO and dK += dS^T Q (the accumulator layout of two adjacent
// n-tiles is the A layout of one k-step, as in the forward's P V); only dQ
// = dS K needs dS with the queries as rows, and reads it back transposed
// from shared memory.
//
//   shared: [K: BN rows][V: BN rows][Q: BM rows][dO: BM rows]  (D + 8 each)
//           [dS: BM rows of BN + 8]
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

/// Elements of padding per shared row: 16 bytes of bf16/f16.
static constexpr int64_t kRowPadElements = 8;
/// Bytes of one cp.async copy (the widest a thread moves).
static constexpr int64_t kCopyBytes = kMaxVectorAccessBytes;
static constexpr double kLog2e = 1.4426950408889634;
static constexpr int64_t kF32Bytes = 4;
/// f32 elements of padding per staged dQ row: 32 bytes, so that the four
/// rows of a half-warp's fragment stores start 8 banks apart.
static constexpr int64_t kStageRowPadF32 = 8;

BackwardTiles::BackwardTiles(int64_t headDim, BackwardMMA mma,
                             bool deterministic)
    : D(headDim), mma(mma) {
  bool wgmma = mma == BackwardMMA::Wgmma;
  blockM = wgmma ? kWgmmaBlockM : kBlockM;
  qTiles = blockM / 8;
  kSteps = D / 16;
  dTiles = D / 8;
  dqRowGroups = blockM / kMTileRows;
  dqColumnSlices = kWarps / dqRowGroups;
  dqSliceTiles = dTiles / dqColumnSlices;
  rowElements = D + (wgmma ? 0 : kRowPadElements);
  dsRowElements = kBlockN + (wgmma ? 0 : kRowPadElements);
  dqStageRowElements = wgmma && !deterministic ? D + kStageRowPadF32 : 0;
  stagesRowStatistics = wgmma;
  queryStages = wgmma ? 2 : 1;
}

int64_t BackwardTiles::stageBytes(BackwardRole role, int64_t eltBytes) const {
  if (role == BackwardRole::QueryTiles)
    return 2 * kBlockQ * rowElements * eltBytes;
  int64_t bytes = std::max(2 * blockM * rowElements * eltBytes,
                           blockM * dqStageRowElements * kF32Bytes);
  return mma == BackwardMMA::Wgmma ? llvm::alignTo(bytes, swizzle::kAtomBytes)
                                   : bytes;
}

int64_t BackwardTiles::tileBytes(BackwardRole role, int64_t eltBytes) const {
  // [K][V][query stages][dS][the stages' lse/delta]
  int64_t keys = 2 * kBlockN * rowElements * eltBytes;
  if (role == BackwardRole::QueryTiles)
    return keys + stageBytes(role, eltBytes);
  return keys + queryStages * stageBytes(role, eltBytes) +
         blockM * dsRowElements * eltBytes +
         (stagesRowStatistics ? queryStages * 2 * blockM * kF32Bytes : 0);
}

int64_t BackwardTiles::sharedBytes(BackwardRole role, int64_t eltBytes,
                                   bool dropout) const {
  // The tiles, the draw stage after them, and (wgmma) the slack that aligns
  // the tiles to the swizzle's atom.
  return tileBytes(role, eltBytes) + dropoutStageBytes(dropout) +
         (mma == BackwardMMA::Wgmma ? swizzle::kAtomBytes : 0);
}

BackwardKernel::BackwardKernel(AttentionBackwardOp op, BackwardRole role,
                               BackwardMMA mma, ImplicitLocOpBuilder &b,
                               gpu::GPUFuncOp func, int64_t smVersion,
                               const AttentionHeads &heads)
    : AttentionShape(op), op(op), heads(heads), role(role), mmaKind(mma),
      deterministic(op.getDeterministic()), visibility(KeyVisibility::of(op)),
      stmatrix(smVersion >= 90), maskStride(attentionMaskStrides(op.getMask())),
      tiles(D, mma, op.getDeterministic()), b(b), func(func), mb(b, elt),
      kb(mb.kb) {
  assert((mma == BackwardMMA::MmaSync || role == BackwardRole::KeyTiles) &&
         "the query-tile kernel is mma.sync's");
  eltBytes = elt.getIntOrFloatBitWidth() / 8;
  BM = tiles.blockM;
  BN = BackwardTiles::kBlockN;
  QT = tiles.qTiles;
  if (role == BackwardRole::QueryTiles) {
    // Rows are the block's queries (16 per warp), columns a key tile.
    BM = BackwardTiles::kBlockQ;
    QT = BN / 8;
  }
  DT = tiles.dTiles;
  KS = tiles.kSteps;
}

void BackwardKernel::build() {
  // dO, Q, K, V, lse, delta, [mask], [seed], [dQ's accumulator], then the
  // results.
  ValueRange args = func.getArguments();
  dOut = kb.flatten(args[0]);
  q = kb.flatten(args[1]);
  k = kb.flatten(args[2]);
  v = kb.flatten(args[3]);
  lse = kb.flatten(args[4]);
  delta = kb.flatten(args[5]);
  unsigned next = 6;
  if (op.getMask())
    mask = kb.flatten(args[next++]);
  Value seedArg = dropP > 0.0 ? scalarInKernel(b, args[next++]) : Value();
  cScale = kb.f32(op.getEffectiveScale() * kLog2e);
  log2e = kb.f32(kLog2e);
  setupSharedMemory();
  setupThreads();
  // The draw stage follows the tiles.
  if (seedArg)
    setupDropout(seedArg, tiles.tileBytes(role, eltBytes));
  if (role == BackwardRole::QueryTiles) {
    dQ = kb.flatten(args[next]);
    buildQueryGradient();
    return;
  }
  if (!deterministic)
    dqAcc = kb.flatten(args[next++]);
  // dK and dV written into the concatenation that joins them: one buffer.
  dK = kb.flatten(args[next++]);
  dV = heads.joinsGradients() ? dK : kb.flatten(args[next]);
  coords();
  if (mmaKind == BackwardMMA::Wgmma)
    mainLoopWgmma();
  else
    mainLoop();
}

void BackwardKernel::setupSharedMemory() {
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), ws));
  // wgmma's tiles start 1024-aligned (the allocation has the slack).
  smemPad = kb.idx(0);
  if (mmaKind == BackwardMMA::Wgmma) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
    Value atom = kb.idx(swizzle::kAtomBytes);
    smemPad = arith::RemUIOp::create(
        b,
        arith::SubIOp::create(b, atom, arith::RemUIOp::create(b, base, atom)),
        atom);
  }
  int64_t row = tiles.rowElements * eltBytes;
  ks = tile(0, BN, tiles.rowElements);
  vs = tile(BN * row, BN, tiles.rowElements);
  stagesAt = 2 * BN * row;
  qs = tile(stagesAt, BM, tiles.rowElements);
  dos = tile(stagesAt + BM * row, BM, tiles.rowElements);
  int64_t at = stagesAt + tiles.queryStages * tiles.stageBytes(role, eltBytes);
  if (role == BackwardRole::KeyTiles && !deterministic)
    dss = tile(at, BM, tiles.dsRowElements);
  statsAt = at + BM * tiles.dsRowElements * eltBytes;
}

BackwardKernel::QueryStage BackwardKernel::queryStage(Value item) {
  QueryStage stage{qs, dos, Value(), Value()};
  if (tiles.queryStages == 1)
    return stage;
  // Stage item % stages; dQ's f32 stage in place of its Q and dO.
  Value s = arith::RemUIOp::create(b, item, kb.idx(tiles.queryStages));
  Value at =
      mb.add(kb.idx(stagesAt), mb.mul(s, tiles.stageBytes(role, eltBytes)));
  int64_t row = tiles.rowElements * eltBytes;
  stage.q = tile(at, BM, tiles.rowElements);
  stage.dO = tile(mb.add(at, BM * row), BM, tiles.rowElements);
  if (tiles.stagesRowStatistics)
    stage.stats =
        f32Tile(mb.add(kb.idx(statsAt), mb.mul(s, 2 * BM * kF32Bytes)), 2 * BM);
  if (tiles.dqStageRowElements)
    stage.dqStage = f32Tile(at, BM * tiles.dqStageRowElements);
  return stage;
}

Value BackwardKernel::f32Tile(Value byteOffset, int64_t elements) {
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return memref::ViewOp::create(
      b,
      MemRefType::get({elements}, b.getF32Type(), MemRefLayoutAttrInterface(),
                      ws),
      smem, mb.add(smemPad, byteOffset), ValueRange{});
}

Value BackwardKernel::tile(int64_t byteOffset, int64_t rows,
                           int64_t rowElements) {
  return tile(kb.idx(byteOffset), rows, rowElements);
}

Value BackwardKernel::tile(Value byteOffset, int64_t rows,
                           int64_t rowElements) {
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // wgmma tiles are flat (swizzled 64-column panels).
  SmallVector<int64_t> shape{rows, rowElements};
  if (mmaKind == BackwardMMA::Wgmma)
    shape = {rows * rowElements};
  return memref::ViewOp::create(
      b, MemRefType::get(shape, mb.elt, MemRefLayoutAttrInterface(), ws), smem,
      mmaKind == BackwardMMA::Wgmma ? mb.add(smemPad, byteOffset) : byteOffset,
      ValueRange{});
}

void BackwardKernel::setupThreads() {
  tid = kb.threadId();
  warp = arith::DivUIOp::create(b, tid, kb.idx(kWarpSize));
  lane = arith::RemUIOp::create(b, tid, kb.idx(kWarpSize));
  quadRow = arith::DivUIOp::create(b, lane, kb.idx(4));
  quadCol = mb.mul(arith::RemUIOp::create(b, lane, kb.idx(4)), 2);
  warpKey = mb.mul(warp, kMTileRows);
  // ldmatrix row addresses, as in the forward.
  FragmentBuilder::LdmatrixLanes lanes = mb.ldmatrixLanes(lane);
  rowA = lanes.rowA;
  colA = lanes.colA;
  rowK = lanes.rowK;
  colK = lanes.colK;
  // Copies: thread t moves chunk t % chunks of row t / chunks of a pass.
  chunks = D * eltBytes / kCopyBytes;
  vecElems = kCopyBytes / eltBytes;
  chunkRow = arith::DivUIOp::create(b, tid, kb.idx(chunks));
  chunkCol = mb.mul(arith::RemUIOp::create(b, tid, kb.idx(chunks)), vecElems);
  if (mmaKind != BackwardMMA::Wgmma)
    return;
  // The 128-byte swizzle: chunk c of a panel's row r lands at chunk c ^ (r %
  // 8); a pass covers a multiple of 8 rows, so r % 8 is the thread's.
  Value cg = arith::RemUIOp::create(b, tid, kb.idx(chunks));
  Value c = arith::RemUIOp::create(b, cg, kb.idx(swizzle::kChunksPerRow));
  Value r8 = arith::RemUIOp::create(b, chunkRow, kb.idx(swizzle::kAtomRows));
  chunkPanel = arith::DivUIOp::create(b, cg, kb.idx(swizzle::kChunksPerRow));
  swizzledChunk =
      mb.mul(arith::XOrIOp::create(b, c, r8), swizzle::kChunkElements);
}

void BackwardKernel::coords() {
  // Block bid: key tile bid % nKT of key/value head bid / nKT.
  int64_t keyTiles = llvm::divideCeil(Skv, BN);
  Value bid = kb.blockId();
  Value kt = arith::RemUIOp::create(b, bid, kb.idx(keyTiles));
  Value bhkv = arith::DivUIOp::create(b, bid, kb.idx(keyTiles));
  hkv = arith::RemUIOp::create(b, bhkv, kb.idx(Hkv));
  batch = arith::DivUIOp::create(b, bhkv, kb.idx(Hkv));
  n0 = mb.mul(kt, BN);
  kvSeqBase = mb.mul(bhkv, Skv);
  // Query tiles from the first one that sees the tile's first key (causal:
  // later keys are seen from later queries only) to the end.
  Value qBegin = visibility.buildQueryBegin(b, b.getLoc(), n0);
  firstTile = arith::DivUIOp::create(b, qBegin, kb.idx(BM));
  queryTiles =
      arith::SubIOp::create(b, kb.idx(llvm::divideCeil(Sq, BM)), firstTile);
  items = mb.mul(queryTiles, Hq / Hkv);
}

void BackwardKernel::queryItem(Value item, Value &bhq, Value &q0) {
  // Item i: query head i / tiles of the group, query tile i % tiles.
  Value perHead = arith::MaxUIOp::create(b, queryTiles, kb.idx(1));
  Value inGroup = arith::DivUIOp::create(b, item, perHead);
  Value t = mb.add(firstTile, arith::RemUIOp::create(b, item, perHead));
  Value hq = mb.add(mb.mul(hkv, Hq / Hkv), inGroup);
  bhq = mb.add(mb.mul(batch, Hq), hq);
  q0 = mb.mul(t, BM);
}

OperandRows BackwardKernel::queryRows(const HeadLayout &layout, Value bhq) {
  Value seqBase = mb.mul(bhq, Sq);
  if (!layout.seqMajor)
    return OperandRows{seqBase, {}, D};
  return OperandRows::of(mb, layout, seqBase,
                         arith::DivUIOp::create(b, bhq, kb.idx(Hq)),
                         arith::RemUIOp::create(b, bhq, kb.idx(Hq)), Sq, D);
}

OperandRows BackwardKernel::keyRows(const HeadLayout &layout) {
  return OperandRows::of(mb, layout, kvSeqBase, batch, hkv, Skv, D);
}

void BackwardKernel::copyRows(Value src, const OperandRows &from, Value row0,
                              int64_t rows, int64_t seqLen, Value dst) {
  int64_t rowsPerPass = BackwardTiles::kThreads / chunks;
  assert(rows % rowsPerPass == 0 && "a pass covers whole rows");
  assert((mmaKind != BackwardMMA::Wgmma ||
          rowsPerPass % swizzle::kAtomRows == 0) &&
         "a pass covers whole swizzle atoms");
  bool ragged = seqLen % rows != 0;
  for (int64_t pass = 0; pass < rows / rowsPerPass; ++pass) {
    Value r = mb.add(chunkRow, pass * rowsPerPass);
    auto [gidx, n] = mb.rowChunkSource(from, mb.add(row0, r), seqLen, chunkCol,
                                       vecElems, ragged);
    SmallVector<Value, 2> dstIdx{r, chunkCol};
    if (mmaKind == BackwardMMA::Wgmma)
      dstIdx = {mb.add(mb.add(mb.mul(chunkPanel, rows * swizzle::kPanelColumns),
                              mb.mul(r, swizzle::kPanelColumns)),
                       swizzledChunk)};
    nvgpu::DeviceAsyncCopyOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst, dstIdx, src,
        ValueRange{gidx}, b.getIndexAttr(vecElems), n, b.getUnitAttr());
  }
}

void BackwardKernel::issueNextQueryTile(Value item) {
  Value next = mb.add(item, 1);
  auto ifOp = scf::IfOp::create(
      b, mb.cmp(arith::CmpIPredicate::ult, next, items), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  issueQueryTile(next, queryStage(next));
}

void BackwardKernel::issueQueryTile(Value item, const QueryStage &to) {
  Value bhq, q0;
  queryItem(item, bhq, q0);
  copyRows(q, queryRows(heads.q, bhq), q0, BM, Sq, to.q);
  copyRows(dOut, queryRows(heads.gradOut, bhq), q0, BM, Sq, to.dO);
  if (to.stats)
    copyRowStatistics(bhq, q0, to.stats);
  NVVM::CpAsyncCommitGroupOp::create(b);
}

void BackwardKernel::copyRowStatistics(Value bhq, Value q0, Value stats) {
  // Thread t < 2 BM copies row t % BM of lse (t < BM) or delta: one 4-byte
  // cp.async each (a row's offset need not be 16-byte aligned), rows past
  // Sq zero-filled (their columns are hidden).
  assert(2 * BM <= BackwardTiles::kThreads && "a thread per statistic");
  Value r = arith::RemUIOp::create(b, tid, kb.idx(BM));
  Value isDelta = mb.cmp(arith::CmpIPredicate::uge, tid, kb.idx(BM));
  Value i = mb.add(q0, r);
  Value inside = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
  Value src =
      mb.add(mb.mul(bhq, Sq), arith::MinUIOp::create(b, i, kb.idx(Sq - 1)));
  auto ifOp = scf::IfOp::create(
      b, mb.cmp(arith::CmpIPredicate::ult, tid, kb.idx(2 * BM)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  auto copyFrom = [&](Value from) {
    nvgpu::DeviceAsyncCopyOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stats,
        ValueRange{tid}, from, ValueRange{src}, b.getIndexAttr(1),
        arith::SelectOp::create(b, inside, kb.idx(1), kb.idx(0)).getResult(),
        UnitAttr());
  };
  auto pick = scf::IfOp::create(b, isDelta, /*withElse=*/true);
  b.setInsertionPoint(pick.thenBlock()->getTerminator());
  copyFrom(delta);
  b.setInsertionPoint(pick.elseBlock()->getTerminator());
  copyFrom(lse);
}

SmallVector<Value> BackwardKernel::keysTimesQueryTile(Value keyTile,
                                                      Value queryTile) {
  // [16 keys of the warp] x [BM queries]: A = the key rows, B = the query
  // rows (the "column-major" B operand needs no transpose).
  SmallVector<Value> acc(QT, mb.zeroAcc());
  for (int64_t kstep = 0; kstep < KS; ++kstep) {
    Value a = mb.ldmatrix(keyTile, mb.add(warpKey, rowA),
                          mb.add(colA, 16 * kstep), false);
    for (int64_t np = 0; np < QT / 2; ++np) {
      Value bq = mb.ldmatrix(queryTile, mb.add(rowK, 16 * np),
                             mb.add(colK, 16 * kstep), false);
      acc[2 * np] = mb.mma(a, mb.half(bq, 0), acc[2 * np]);
      acc[2 * np + 1] = mb.mma(a, mb.half(bq, 1), acc[2 * np + 1]);
    }
  }
  return acc;
}

Value BackwardKernel::aOperand(ArrayRef<Value> tilesT, int64_t kk) {
  // k-step kk (queries 16kk..16kk+15) of [16 keys] x [BM queries] in the
  // operand type: rows r of n-tiles 2kk and 2kk+1 (a0a1: row, k lo; a2a3:
  // row + 8, k lo; a4a5: row, k hi; a6a7: row + 8, k hi).
  Value frag = arith::ConstantOp::create(
      b, mb.frag4x2, DenseElementsAttr::get(mb.frag4x2, b.getZeroAttr(mb.elt)));
  for (int64_t part = 0; part < 4; ++part) {
    Value pair = arith::TruncFOp::create(
        b, mb.elt2, mb.row(tilesT[2 * kk + part / 2], part % 2));
    frag = vector::InsertOp::create(b, pair, frag, ArrayRef<int64_t>{part});
  }
  return frag;
}

SmallVector<Value> BackwardKernel::accumulate(SmallVector<Value> acc,
                                              ArrayRef<Value> transposedScores,
                                              Value queryTile) {
  // acc[16 keys x D] += scores^T [16 keys x BM] * tile [BM x D]; the tile
  // is the B operand with k along its rows: ldmatrix.trans.
  for (int64_t kk = 0; kk < QT / 2; ++kk) {
    Value a = aOperand(transposedScores, kk);
    for (int64_t nd = 0; nd < DT / 2; ++nd) {
      Value bt = mb.ldmatrix(queryTile, mb.add(rowA, 16 * kk),
                             mb.add(colA, 16 * nd), /*transpose=*/true);
      acc[2 * nd] = mb.mma(a, mb.half(bt, 0), acc[2 * nd]);
      acc[2 * nd + 1] = mb.mma(a, mb.half(bt, 1), acc[2 * nd + 1]);
    }
  }
  return acc;
}

void BackwardKernel::rowStatistics(Value bhq, Value q0, Value stats,
                                   SmallVector<Value> &lse2,
                                   SmallVector<Value> &deltas) {
  // Per n-tile, the (lse * log2 e, delta) pair of the thread's two query
  // columns: one 8-byte load each (the pair starts at an even query), or
  // past a ragged end the last row's (those columns are hidden).
  Value base = mb.mul(bhq, Sq);
  Value log2e2 = mb.splat2(log2e);
  for (int64_t nt = 0; nt < QT; ++nt) {
    Value i = mb.add(mb.add(q0, quadCol), 8 * nt);
    if (stats) {
      // From the staged copy (copyRowStatistics).
      Value at = mb.add(quadCol, 8 * nt);
      lse2.push_back(scaledLse(arith::MulFOp::create(
          b, vector::LoadOp::create(b, mb.f32x2, stats, ValueRange{at}),
          log2e2)));
      deltas.push_back(vector::LoadOp::create(b, mb.f32x2, stats,
                                              ValueRange{mb.add(at, BM)}));
      continue;
    }
    if (Sq % BM == 0) {
      Value at = mb.add(base, i);
      lse2.push_back(scaledLse(arith::MulFOp::create(
          b, vector::LoadOp::create(b, mb.f32x2, lse, ValueRange{at}),
          log2e2)));
      deltas.push_back(
          vector::LoadOp::create(b, mb.f32x2, delta, ValueRange{at}));
      continue;
    }
    SmallVector<Value, 2> l, d;
    for (int64_t c = 0; c < 2; ++c) {
      Value at =
          mb.add(base, arith::MinUIOp::create(b, mb.add(i, c), kb.idx(Sq - 1)));
      l.push_back(memref::LoadOp::create(b, lse, ValueRange{at}));
      d.push_back(memref::LoadOp::create(b, delta, ValueRange{at}));
    }
    lse2.push_back(scaledLse(arith::MulFOp::create(
        b, vector::FromElementsOp::create(b, mb.f32x2, l), log2e2)));
    deltas.push_back(vector::FromElementsOp::create(b, mb.f32x2, d));
  }
}

Value BackwardKernel::seesKey(Value i, Value j) {
  // Query i sees key j: both inside their sequences (tested only where a
  // tile can run past the end) and allowed by the op's rule. Null when
  // always.
  Value all;
  auto both = [&](Value cond) {
    if (cond)
      all = all ? arith::AndIOp::create(b, all, cond).getResult() : cond;
  };
  if (Sq % BM != 0)
    both(mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq)));
  if (Skv % BN != 0)
    both(mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv)));
  both(visibility.buildIsVisible(b, b.getLoc(), i, j));
  return all;
}

Value BackwardKernel::visible(Value q0, int64_t nt, int64_t r, int64_t c) {
  // Query column (nt, c), key row r of the warp.
  return seesKey(mb.add(mb.add(q0, quadCol), 8 * nt + c),
                 mb.add(mb.add(n0, mb.add(warpKey, quadRow)), 8 * r));
}

Value BackwardKernel::scaledLse(Value lse2) {
  // With an additive mask a row may see only -inf scores: its lse is -inf
  // and its probabilities are 0 (the op's contract), not 2^(-inf + inf).
  if (!mask)
    return lse2;
  auto t = cast<VectorType>(lse2.getType());
  auto splat = [&](float x) -> Value {
    return arith::ConstantOp::create(
        b, t, DenseElementsAttr::get(t, b.getF32FloatAttr(x)));
  };
  return arith::SelectOp::create(
      b,
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, lse2,
                            splat(-INFINITY)),
      splat(INFINITY), lse2);
}

Value BackwardKernel::maskPair(Value bhq, Value i, Value j, bool alongQueries) {
  // log2 e * mask at (i, j) and at the next query (alongQueries) or key,
  // read through the mask's broadcast strides over [B, Hq, Sq, Skv];
  // indices past a sequence read element 0 (those scores are hidden).
  Value h = arith::RemUIOp::create(b, bhq, kb.idx(Hq));
  Value bIdx = arith::DivUIOp::create(b, bhq, kb.idx(Hq));
  Value base = mb.add(mb.mul(bIdx, maskStride[0]), mb.mul(h, maskStride[1]));
  SmallVector<Value, 2> vals;
  for (int64_t c = 0; c < 2; ++c) {
    Value ic = alongQueries ? mb.add(i, c) : i;
    Value jc = alongQueries ? j : mb.add(j, c);
    Value ok = arith::AndIOp::create(
        b, mb.cmp(arith::CmpIPredicate::ult, ic, kb.idx(Sq)),
        mb.cmp(arith::CmpIPredicate::ult, jc, kb.idx(Skv)));
    Value at = mb.add(
        base, mb.add(mb.mul(ic, maskStride[2]), mb.mul(jc, maskStride[3])));
    at = arith::SelectOp::create(b, ok, at, kb.idx(0));
    vals.push_back(vector::ExtractOp::create(
        b, kb.loadF32(mask, at, 1, nullptr, 0.0, false), ArrayRef<int64_t>{0}));
  }
  return arith::MulFOp::create(
      b, vector::FromElementsOp::create(b, mb.f32x2, vals), mb.splat2(log2e));
}

void BackwardKernel::scoreGradients(SmallVector<Value> &S,
                                    SmallVector<Value> &dP, Value bhq, Value q0,
                                    ArrayRef<Value> lse2,
                                    ArrayRef<Value> deltas) {
  // In place: S^T becomes P^T = 2^(S^T scale log2 e - lse log2 e), 0 where
  // hidden, and dP^T becomes dS^T = P^T (dP^T - delta).
  Value c2 = mb.splat2(cScale);
  Value zero2 = mb.splat2(kb.f32(0.0));
  SmallVector<Value> keeps;
  for (int64_t nt = 0; nt < QT; ++nt) {
    if (seed && nt % 2 == 0)
      keeps = dropoutKeeps(bhq, q0, n0, nt / 2);
    for (int64_t r = 0; r < 2; ++r) {
      Value s = arith::MulFOp::create(b, mb.row(S[nt], r), c2);
      if (mask)
        s = arith::AddFOp::create(
            b, s,
            maskPair(bhq, mb.add(mb.add(q0, quadCol), 8 * nt),
                     mb.add(mb.add(n0, mb.add(warpKey, quadRow)), 8 * r),
                     /*alongQueries=*/true));
      Value p = mb.exp2(arith::SubFOp::create(b, s, lse2[nt]));
      Value vis0 = visible(q0, nt, r, 0);
      if (vis0) {
        Value vis = vector::FromElementsOp::create(
            b, VectorType::get({2}, b.getI1Type()),
            ValueRange{vis0, visible(q0, nt, r, 1)});
        p = arith::SelectOp::create(b, vis, p, zero2);
      }
      Value dp = mb.row(dP[nt], r);
      if (seed)
        dp = keptGradient(keeps[2 * (nt % 2) + r], dp);
      Value ds =
          arith::MulFOp::create(b, p, arith::SubFOp::create(b, dp, deltas[nt]));
      if (seed)
        p = keptProbability(keeps[2 * (nt % 2) + r], p);
      S[nt] = mb.setRow(S[nt], p, r);
      dP[nt] = mb.setRow(dP[nt], ds, r);
    }
  }
}

void BackwardKernel::storeTransposed(ArrayRef<Value> dS) {
  // dS^T's fragments into dS [BM queries][BN keys] in the operand type:
  // element (nt, r, c) is query 8nt + quadCol + c, key warpKey + quadRow +
  // 8r.
  if (stmatrix) {
    storeTransposedStmatrix(dS);
    return;
  }
  // Before sm_90: one 2-byte store per element (a warp's 32 stores of one
  // element fall in distinct banks).
  Value key = mb.add(warpKey, quadRow);
  for (int64_t nt = 0; nt < QT; ++nt)
    for (int64_t r = 0; r < 2; ++r) {
      Value pair = arith::TruncFOp::create(b, mb.elt2, mb.row(dS[nt], r));
      for (int64_t c = 0; c < 2; ++c)
        memref::StoreOp::create(
            b, mb.elem(pair, c), dss,
            ValueRange{mb.add(quadCol, 8 * nt + c), mb.add(key, 8 * r)});
    }
}

void BackwardKernel::storeTransposedStmatrix(ArrayRef<Value> dS) {
  // sm_90: stmatrix.x4.trans, one per two n-tiles. Its 8x8 matrices are
  // (nt, keys r = 0), (nt, r = 1), (nt + 1, r = 0), (nt + 1, r = 1), each
  // a bf16/f16 pair per thread in the accumulator layout; stored transposed,
  // lane l gives the address of query 8 (nt + m / 2) + l % 8 (m = l / 8),
  // where the matrix's 8 keys warpKey + 8 (m % 2) land contiguously.
  Value m = arith::DivUIOp::create(b, lane, kb.idx(8));
  Value i = arith::RemUIOp::create(b, lane, kb.idx(8));
  Value query = mb.add(mb.mul(arith::DivUIOp::create(b, m, kb.idx(2)), 8), i);
  Value key =
      mb.add(warpKey, mb.mul(arith::RemUIOp::create(b, m, kb.idx(2)), 8));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, dss);
  int64_t rowBytes = tiles.dsRowElements * eltBytes;
  Value laneOffset = mb.add(mb.mul(query, rowBytes), mb.mul(key, eltBytes));
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (int64_t nt = 0; nt < QT; nt += 2) {
    Value at = mb.add(mb.add(base, laneOffset), 8 * nt * rowBytes);
    Value ptr = LLVM::IntToPtrOp::create(
        b, ptrType,
        arith::IndexCastOp::create(b, b.getI64Type(), at).getResult());
    SmallVector<Value, 4> regs;
    for (int64_t t = nt; t < nt + 2; ++t)
      for (int64_t r = 0; r < 2; ++r)
        regs.push_back(LLVM::BitcastOp::create(
            b, b.getI32Type(),
            arith::TruncFOp::create(b, mb.elt2, mb.row(dS[t], r))));
    NVVM::StMatrixOp::create(
        b, ptr, regs,
        NVVM::MMALayoutAttr::get(b.getContext(), NVVM::MMALayout::col),
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(b.getContext(),
                                         NVVM::LdStMatrixEltType::B16));
  }
}

void BackwardKernel::accumulateQueryGradient(Value bhq, Value q0) {
  // dQ [16 rows of group mg] x [D / slices columns of slice sl] += dS K,
  // then f32 atomic adds into the accumulator.
  Value mg = arith::RemUIOp::create(b, warp, kb.idx(tiles.dqRowGroups));
  Value sl = arith::DivUIOp::create(b, warp, kb.idx(tiles.dqRowGroups));
  Value row0 = mb.mul(mg, kMTileRows);
  Value col0 = mb.mul(sl, 8 * tiles.dqSliceTiles);
  int64_t ST = tiles.dqSliceTiles;
  SmallVector<Value> acc(ST, mb.zeroAcc());
  for (int64_t kk = 0; kk < BN / 16; ++kk) {
    Value a =
        mb.ldmatrix(dss, mb.add(row0, rowA), mb.add(colA, 16 * kk), false);
    for (int64_t nd = 0; nd < ST / 2; ++nd) {
      Value bk = mb.ldmatrix(ks, mb.add(rowA, 16 * kk),
                             mb.add(col0, mb.add(colA, 16 * nd)),
                             /*transpose=*/true);
      acc[2 * nd] = mb.mma(a, mb.half(bk, 0), acc[2 * nd]);
      acc[2 * nd + 1] = mb.mma(a, mb.half(bk, 1), acc[2 * nd + 1]);
    }
  }
  addQueryGradient(acc, row0, col0, bhq, q0);
}

void BackwardKernel::addQueryGradient(ArrayRef<Value> acc, Value row0,
                                      Value col0, Value bhq, Value q0) {
  // acc[dt]: rows row0 + quadRow (+ 8) of the query tile at q0, columns
  // col0 + 8 dt + quadCol (+ 1); rows past Sq are not added.
  int64_t ST = static_cast<int64_t>(acc.size());
  for (int64_t r = 0; r < 2; ++r) {
    Value i = mb.add(mb.add(q0, mb.add(row0, quadRow)), 8 * r);
    Value rowBase = mb.mul(mb.add(mb.mul(bhq, Sq), i), D);
    auto adds = [&]() {
      for (int64_t dt = 0; dt < ST; ++dt)
        for (int64_t c = 0; c < 2; ++c) {
          Value at = mb.add(mb.add(rowBase, mb.add(col0, quadCol)), 8 * dt + c);
          memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf,
                                      mb.elem(mb.row(acc[dt], r), c), dqAcc,
                                      ValueRange{at});
        }
    };
    if (Sq % BM == 0) {
      adds();
      continue;
    }
    auto ifOp = scf::IfOp::create(
        b, mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    adds();
  }
}

void BackwardKernel::mainLoop() {
  // K and V of the block's tile, then the first query tile: two groups.
  copyRows(k, keyRows(heads.k), n0, BN, Skv, ks);
  copyRows(v, keyRows(heads.v), n0, BN, Skv, vs);
  NVVM::CpAsyncCommitGroupOp::create(b);
  Value any = mb.cmp(arith::CmpIPredicate::ugt, items, kb.idx(0));
  {
    auto ifOp = scf::IfOp::create(b, any, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    issueQueryTile(kb.idx(0), queryStage(kb.idx(0)));
  }
  SmallVector<Value> init(2 * DT, mb.zeroAcc());
  auto loop = scf::ForOp::create(b, kb.idx(0), items, kb.idx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value item = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    SmallVector<Value> dKAcc(carried.take_front(DT));
    SmallVector<Value> dVAcc(carried.drop_front(DT));
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
    gpu::BarrierOp::create(b);
    Value bhq, q0;
    queryItem(item, bhq, q0);
    SmallVector<Value> lse2, deltas;
    rowStatistics(bhq, q0, Value(), lse2, deltas);
    SmallVector<Value> P = keysTimesQueryTile(ks, qs);
    SmallVector<Value> dS = keysTimesQueryTile(vs, dos);
    scoreGradients(P, dS, bhq, q0, lse2, deltas);
    dVAcc = accumulate(dVAcc, P, dos);
    dKAcc = accumulate(dKAcc, dS, qs);
    if (!deterministic)
      storeTransposed(dS);
    // Every warp is done with Q and dO (the next tile may land) and has
    // written its keys of dS.
    gpu::BarrierOp::create(b);
    issueNextQueryTile(item);
    // (`deterministic`: dQ is the query-tile kernel's, without atomics.)
    if (!deterministic)
      accumulateQueryGradient(bhq, q0);
    SmallVector<Value> yields(dKAcc);
    yields.append(dVAcc);
    scf::YieldOp::create(b, yields);
  }
  // Copies still in flight when no query tile sees the block's keys.
  NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
  SmallVector<Value> results(loop.getResults());
  storeKeyGradients(ArrayRef<Value>(results).take_front(DT),
                    ArrayRef<Value>(results).drop_front(DT));
}

void BackwardKernel::storeKeyGradients(ArrayRef<Value> dKAcc,
                                       ArrayRef<Value> dVAcc) {
  // Rows of keys past Skv were computed from zeros and are not stored; dK
  // takes the softmax scale here (dS carries none).
  Value scale2 = mb.splat2(kb.f32(op.getEffectiveScale()));
  for (int64_t r = 0; r < 2; ++r) {
    Value j = mb.add(mb.add(n0, mb.add(warpKey, quadRow)), 8 * r);
    Value in;
    if (Skv % BN != 0)
      in = mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv));
    Value kBase = keyRows(heads.gradKey).element(mb, j);
    Value vBase = heads.joinsGradients()
                      ? keyRows(heads.gradValue).element(mb, j)
                      : kBase;
    for (int64_t dt = 0; dt < DT; ++dt) {
      kb.storeF32(dK, mb.add(mb.add(kBase, quadCol), 8 * dt),
                  arith::MulFOp::create(b, mb.row(dKAcc[dt], r), scale2), in);
      Value dv = mb.row(dVAcc[dt], r);
      if (seed) // dropout's 1 / (1 - p), once
        dv = arith::MulFOp::create(b, dv, mb.splat2(kb.f32(keptScale())));
      kb.storeF32(dV, mb.add(mb.add(vBase, quadCol), 8 * dt), dv, in);
    }
  }
}
