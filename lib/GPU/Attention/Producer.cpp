//===- Producer.cpp - Loads and barriers of the MMA kernels ---------------===//
//
// Part of the Sinter project.
//
// How Q, K and V reach shared memory: 16-byte cp.async copies by the
// consumers themselves (rows past the sequence zero-filled by the copy;
// wgmma tiles land in the 128-byte swizzle), or (`ws`) one thread of a
// producer warpgroup issuing a TMA copy per 64-column panel. With `mbar`
// the stages are guarded by mbarriers (SharedLayout.h's BarrierKind): a
// stage's "full" barrier completes when its tile landed, its "empty" one
// when every consumer warpgroup is done reading it.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

void MMAKernel::setupCopies() {
  // Asynchronous copies of 16-byte chunks: thread t copies chunk t % chunks
  // of row t / chunks of each pass.
  chunks = D * eltBytes / swizzle::kChunkBytes;
  vecElems = swizzle::kChunkBytes / eltBytes;
  chunkRow = arith::DivUIOp::create(b, tid, kb.idx(chunks));
  chunkCol = mb.mul(arith::RemUIOp::create(b, tid, kb.idx(chunks)), vecElems);
  // wgmma layout (128-byte swizzle): lanes read whole rows from global
  // memory and each row's 8 chunks land in distinct banks. Rows per pass
  // are a multiple of 8, so r % 8 is fixed per thread.
  if (WG) {
    Value cg = arith::RemUIOp::create(b, tid, kb.idx(chunks));
    Value panel = arith::DivUIOp::create(b, cg, kb.idx(swizzle::kChunksPerRow));
    Value c = arith::RemUIOp::create(b, cg, kb.idx(swizzle::kChunksPerRow));
    Value r8 = arith::RemUIOp::create(b, chunkRow, kb.idx(swizzle::kAtomRows));
    wgRowInAtom =
        mb.mul(arith::XOrIOp::create(b, c, r8), swizzle::kChunkElements);
    wgPanelOff = panel; // times rows * 64 elements, per tile
  }
}

void MMAKernel::copyTile(Value src, const OperandRows &srcRows, Value row0,
                         int64_t rows, int64_t seqLen, Value dst) {
  // `rows` sequence rows starting at `row0` into `dst`, one group of
  // copies; rows past `seqLen` are zero-filled.
  int64_t rowsPerPass = T / chunks;
  int64_t passes = llvm::divideCeil(rows, rowsPerPass);
  for (int64_t pass = 0; pass < passes; ++pass)
    copyPass(src, srcRows, row0, rows, seqLen, dst, pass);
  NVVM::CpAsyncCommitGroupOp::create(b);
}

void MMAKernel::copyPass(Value src, const OperandRows &srcRows, Value row0,
                         int64_t rows, int64_t seqLen, Value dst,
                         int64_t pass) {
  int64_t rowsPerPass = T / chunks;
  bool ragged = seqLen % rows != 0 || seqLen < rows;
  Value r = mb.add(chunkRow, pass * rowsPerPass);
  // A last, partial pass (rows not a multiple of the rows per pass): only
  // the threads of the remaining rows copy.
  std::optional<OpBuilder::InsertionGuard> partial;
  if ((pass + 1) * rowsPerPass > rows) {
    auto ifOp =
        scf::IfOp::create(b, mb.cmp(arith::CmpIPredicate::ult, r, kb.idx(rows)),
                          /*withElse=*/false);
    partial.emplace(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  auto [gidx, n] = mb.rowChunkSource(srcRows, mb.add(row0, r), seqLen, chunkCol,
                                     vecElems, ragged);
  SmallVector<Value> dstIdx{r, chunkCol};
  if (WG)
    dstIdx = {mb.add(mb.add(mb.mul(wgPanelOff, rows * swizzle::kPanelColumns),
                            mb.mul(r, swizzle::kPanelColumns)),
                     wgRowInAtom)};
  nvgpu::DeviceAsyncCopyOp::create(
      b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst, dstIdx, src,
      ValueRange{gidx}, b.getIndexAttr(vecElems), n, b.getUnitAttr());
}

void MMAKernel::waitAll(int32_t pending) {
  // Wait until at most `pending` groups of copies are in flight, then a
  // barrier.
  NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(pending));
  // wgmma reads shared memory through the async proxy: make the copies'
  // generic-proxy writes visible to it before the barrier.
  if (WG)
    kb.fenceProxyAsync();
  gpu::BarrierOp::create(b);
}

Value MMAKernel::barAddr(int kind, Value tile) {
  // The barrier of `kind` for key tile `tile` (its stage tile % 2).
  Value stage = arith::RemUIOp::create(b, tile, kb.idx(2));
  Value a = mb.add(mb.add(barBase, kBarrierKindBytes * kind),
                   mb.mul(stage, kBarrierBytes));
  return arith::IndexCastOp::create(b, b.getI32Type(), a);
}

Value MMAKernel::parity(Value tile) {
  // A stage's n-th use completes phase n.
  Value use = arith::DivUIOp::create(b, tile, kb.idx(2));
  return arith::IndexCastOp::create(b, b.getI32Type(),
                                    arith::RemUIOp::create(b, use, kb.idx(2)));
}

void MMAKernel::barWait(int kind, Value tile) {
  Value bar = barAddr(kind, tile); // before the parity, as it was
  kb.mbarrierWait(bar, parity(tile));
}

void MMAKernel::barArrive(int kind, Value tile) {
  // The consumers release a stage (or Q) with one arrival per warpgroup:
  // once any thread of a warpgroup has waited for its wgmma group, the
  // group's shared-memory reads are done for the whole warpgroup (as in
  // FlashAttention-3's pipeline without clusters). An arrival by every
  // thread costs 128 shared-memory atomics per warpgroup and stage.
  Value bar = barAddr(kind, tile);
  ifThen(wgLead, [&] { kb.mbarrierArrive(bar); });
}

void MMAKernel::copyArrive(int kind, Value tile) {
  kb.mbarrierCopyArrive(barAddr(kind, tile));
}

Value MMAKernel::qUse(Value j) {
  // Q's barriers as barAddr/parity "tiles": use j of the one stage.
  return mb.mul(j, 2);
}

Value MMAKernel::gt(Value t) {
  // `persist`: key tiles are numbered across the block's work items (stage
  // and mbarrier phase of tile t of an item are those of tileBase + t).
  return PERSIST ? mb.add(tileBase, t) : t;
}

SmallVector<Value, 4> MMAKernel::boxCoordinates(const HeadLayout &layout,
                                                Value col, Value row0,
                                                Value head) {
  // The map is over the kernel argument's dense shape: [B, H, S, D], or
  // [B, S, Hbuf, D] for heads in place (head + headOffset).
  if (!layout.seqMajor)
    return {col, mb.toI32(row0), mb.toI32(head), mb.toI32(batch)};
  return {col, mb.toI32(mb.add(head, layout.headOffset)), mb.toI32(row0),
          mb.toI32(batch)};
}

void MMAKernel::tmaTile(Value map, const HeadLayout &layout, Value dst,
                        int64_t rows, Value row0, Value head, int kind,
                        Value tile) {
  // `ws`: rows [row0, row0 + rows) of head `head` into the swizzled tile
  // `dst` through `map`, one 64-column panel per TMA copy, completing on
  // barrier (kind, tile) with the tile's bytes (rows past the sequence read
  // as zeros and count too).
  Value bar = barAddr(kind, tile);
  kb.mbarrierArriveExpectTx(bar,
                            kb.i32(static_cast<int32_t>(rows * D * eltBytes)));
  // Inline PTX: nvvm.cp.async.bulk.tensor.shared.cluster.global takes the
  // destination and the mbarrier as !llvm.ptr<3> (64-bit on NVPTX), not
  // the 32-bit shared addresses the kernel computes (see mbarrierInit).
  for (int64_t p = 0; p < D / swizzle::kPanelColumns; ++p) {
    Value to = kb.sharedAddress(dst, kb.idx(p * rows * swizzle::kRowBytes));
    SmallVector<Value, 4> at = boxCoordinates(
        layout, kb.i32(static_cast<int32_t>(swizzle::kPanelColumns * p)), row0,
        head);
    mb.callAsm("cp.async.bulk.tensor.4d.shared::cluster.global.tile."
               "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5}], "
               "[$6];",
               "r,l,r,r,r,r,r,~{memory}",
               {to, map, at[0], at[1], at[2], at[3], bar}, {});
  }
}

void MMAKernel::initBarriers() {
  // One thread initializes the barriers. Each consumer warpgroup arrives
  // once on an empty barrier; a full one completes when every thread's
  // copies landed, or with `ws` when the producer's one arrival and its
  // TMA bytes did.
  Value first = mb.cmp(arith::CmpIPredicate::eq, tid, kb.idx(0));
  ifThen(first, [&] {
    Value all = arith::ConstantIntOp::create(b, T, 32);
    Value one = arith::ConstantIntOp::create(b, 1, 32);
    Value wgs = arith::ConstantIntOp::create(b, T / kWarpgroupSize, 32);
    for (int kind = 0; kind < (PERSIST ? 6 : WS ? 5 : 4); ++kind)
      for (int64_t st = 0; st < (kind >= FullQ ? 1 : 2); ++st) {
        bool full = kind == FullK || kind == FullV || kind == FullQ;
        kb.mbarrierInit(barAddr(kind, kb.idx(st)), !full ? wgs
                                                   : WS  ? one
                                                         : all);
      }
    kb.mbarrierInitFence();
  });
  gpu::BarrierOp::create(b);
}

void MMAKernel::producerWarpgroup() {
  // The producer warpgroup: one thread issues every load of the block (Q
  // once, then K[t] and V[t] into stage t % 2 once the consumers released
  // the stage's previous tile), the others only give their registers
  // away. Leaves the builder in the consumers' branch: everything after
  // this is theirs.
  RegisterSplit regs = registerSplit(cfg);
  Value producer =
      mb.cmp(arith::CmpIPredicate::uge, wgIdxU, kb.idx(T / kWarpgroupSize));
  auto split = scf::IfOp::create(b, producer, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&split.getThenRegion().front());
    if (regs.launch)
      NVVM::SetMaxRegisterOp::create(b, regs.producer,
                                     NVVM::SetMaxRegisterAction::decrease);
    Value leader = mb.cmp(arith::CmpIPredicate::eq, tid, kb.idx(T));
    Value issue =
        PERSIST ? leader : arith::AndIOp::create(b, leader, any).getResult();
    ifThen(issue, [&] { producerLoads(); });
  }
  b.setInsertionPoint(split.getElseRegion().front().getTerminator());
  if (regs.launch)
    NVVM::SetMaxRegisterOp::create(b, regs.consumer,
                                   NVVM::SetMaxRegisterAction::increase);
}

void MMAKernel::producerLoads() {
  // Inline PTX: upstream's nvvm.prefetch (tensormap) on the generic address
  // of a grid-constant parameter makes NVPTX emit two prefetches per map
  // (prefetch.param.tensormap on the parameter and prefetch.tensormap on
  // the address); this is the one prefetch.tensormap the kernel issues.
  for (Value map : tensorMaps)
    mb.callAsm("prefetch.tensormap [$0];", "l,~{memory}", {map}, {});
  std::optional<OpBuilder::InsertionGuard> inItems;
  if (PERSIST) {
    // Every item's Q (also an item without keys: the consumers count Q's
    // phases per item), once the consumers' S GEMMs of the item before are
    // done with the buffer.
    inItems.emplace(b);
    itemLoop(/*uniform=*/false);
    Value later = mb.cmp(arith::CmpIPredicate::uge, itemNo, kb.idx(1));
    ifThen(later, [&] {
      barWait(EmptyQ, qUse(arith::SubIOp::create(b, itemNo, kb.idx(1))));
    });
  }
  tmaTile(tensorMaps[0], heads.q, qs, BM, q0, h, FullQ,
          qUse(PERSIST ? itemNo : kb.idx(0)));
  auto loads = scf::ForOp::create(b, kb.idx(0), tileEnd, kb.idx(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loads.getBody());
    Value t = gt(loads.getInductionVar());
    Value reuse = mb.cmp(arith::CmpIPredicate::uge, t, kb.idx(2));
    Value t2 = arith::SubIOp::create(b, t, kb.idx(2));
    for (int kv = 0; kv < 2; ++kv) {
      ifThen(reuse, [&] { barWait(kv ? EmptyV : EmptyK, t2); });
      tmaTile(tensorMaps[1 + kv], kv ? heads.v : heads.k,
              kv ? vTile(t) : kTile(t), BN, mb.mul(loads.getInductionVar(), BN),
              g, kv ? FullV : FullK, t);
    }
  }
  inItems.reset();
}
