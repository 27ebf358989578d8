//===- BackwardWgmma.cpp - The attention backward's key tiles on wgmma ----===//
//
// Part of the Sinter project.
//
// The key-tile kernel of Backward.h on sm_90a's warpgroup MMA. The block's
// four warps are one warpgroup and its 64 keys the M of the transposed
// products; Q, dO, K, V and dS sit in shared memory as 64-column panels in
// the 128-byte swizzle (SharedLayout.h), read by descriptor. Per tile of 64
// queries:
//
//   S^T  = K Q^T    m64n64k16 x D/16: K and Q K-major        one group
//   dP^T = V dO^T   m64n64k16 x D/16: V and dO K-major       one group
//   dV  += P^T dO   m64nDk16 x 4: P^T from registers, dO N-major } one
//   dK  += dS^T Q   m64nDk16 x 4: dS^T from registers, Q N-major } group
//   dQ   = dS K     m64nDk16 x 4: dS from shared memory (stmatrix.trans
//                   into the swizzle), K N-major; f32 atomics into dQ's
//                   accumulator
//
// S^T's group is waited on first, so the probabilities' exponentials run
// while the tensor cores compute dP^T. The query tiles alternate between two
// stages: tile i + 1 is copied into one while tile i is multiplied from the
// other, and tile i's dQ is staged for its bulk reductions where its Q and
// dO were (BackwardTiles::queryStages). A warp's part of each m64
// accumulator has mma.sync's fragment layout (Fragments.h), so the
// probabilities, visibility, masks and score gradients are the mma.sync
// kernel's own (BackwardKernel.cpp).
//
//   shared: [slack to 1024 bytes][K: 64 rows][V: 64]
//           2 x [Q: 64][dO: 64] (or dQ's f32 stage, 64 rows of D + 8)
//           [dS: 64 queries x 64 keys][2 x (lse, delta: 64 f32 each)]
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

/// Registers of the A operand of one m64nNk16 (a warp's m16k16 fragment).
static constexpr int64_t kARegisters = 4;

SmallVector<Value> BackwardKernel::issueTransposedScores(Value keyTile,
                                                         Value queryTile) {
  // [64 keys] x [BM queries] over D, both operands K-major; one group.
  SmallVector<Value> acc = mb.flatten(SmallVector<Value>(QT, mb.zeroAcc()));
  for (int64_t kstep = 0; kstep < KS; ++kstep) {
    Value a = mb.descriptor(keyTile, swizzle::kStepOffset(kstep, BN), kKMajor);
    Value bq =
        mb.descriptor(queryTile, swizzle::kStepOffset(kstep, BM), kKMajor);
    acc = mb.wgmma(BM, acc, {}, a, bq, kstep > 0, /*transB=*/false);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  return acc;
}

SmallVector<Value>
BackwardKernel::operandRegisters(ArrayRef<Value> transposedScores) {
  // [64 keys] x [BM queries] in the operand type as the A registers of the
  // BM / 16 k-steps: the pairs of aOperand's fragment as 32-bit words.
  SmallVector<Value> regs;
  for (int64_t kk = 0; kk < QT / 2; ++kk)
    for (int64_t part = 0; part < kARegisters; ++part)
      regs.push_back(LLVM::BitcastOp::create(
          b, b.getI32Type(),
          arith::TruncFOp::create(
              b, mb.elt2,
              mb.row(transposedScores[2 * kk + part / 2], part % 2))));
  return regs;
}

SmallVector<Value> BackwardKernel::issueAccumulate(ArrayRef<Value> acc,
                                                   ArrayRef<Value> aRegs,
                                                   Value queryTile) {
  // acc[64 keys x D] += A [64 keys x BM] * tile [BM x D], the tile read
  // N-major (its K, the queries, along the rows). Not committed.
  SmallVector<Value> out(acc);
  for (int64_t kk = 0; kk < QT / 2; ++kk)
    out = mb.wgmma(
        D, out, aRegs.slice(kARegisters * kk, kARegisters), Value(),
        mb.descriptor(queryTile, swizzle::kRowStepOffset(kk), nMajor(BM)),
        /*accumulate=*/true, /*transB=*/true);
  return out;
}

void BackwardKernel::storeScoreGradientSwizzled(ArrayRef<Value> dS) {
  // dS^T's fragments into dS [BM queries][64 keys], one swizzled panel,
  // with stmatrix.x4.trans as storeTransposedStmatrix does for the padded
  // tile: lane l gives the row of query 8 (nt + m / 2) + l % 8 (m = l / 8)
  // whose 8 keys warpKey + 8 (m % 2), 16-byte chunk 2 warp + m % 2, sit at
  // chunk ^ (query % 8) = chunk ^ (l % 8).
  Value m = arith::DivUIOp::create(b, lane, kb.idx(8));
  Value i = arith::RemUIOp::create(b, lane, kb.idx(8));
  Value query = mb.add(mb.mul(arith::DivUIOp::create(b, m, kb.idx(2)), 8), i);
  Value chunk = mb.add(mb.mul(warp, kMTileRows / swizzle::kChunkElements),
                       arith::RemUIOp::create(b, m, kb.idx(2)));
  Value laneOffset =
      mb.add(mb.mul(query, swizzle::kRowBytes),
             mb.mul(arith::XOrIOp::create(b, chunk, i), swizzle::kChunkBytes));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, dss);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (int64_t nt = 0; nt < QT; nt += 2) {
    Value at = mb.add(mb.add(base, laneOffset), 8 * nt * swizzle::kRowBytes);
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
  // wgmma reads dS through the async proxy.
  kb.fenceProxyAsync();
}

void BackwardKernel::queryGradientWgmma(Value bhq, Value q0, Value dqStage) {
  // dQ [BM queries x D] = dS [BM x 64 keys] K [64 keys x D]: dS K-major
  // from its panel, K N-major; each warp then adds its 16 rows.
  SmallVector<Value> acc = mb.flatten(SmallVector<Value>(DT, mb.zeroAcc()));
  for (int64_t kk = 0; kk < BN / 16; ++kk) {
    Value a = mb.descriptor(dss, swizzle::kStepOffset(kk, BM), kKMajor);
    Value bk = mb.descriptor(ks, swizzle::kRowStepOffset(kk), nMajor(BN));
    acc = mb.wgmma(D, acc, {}, a, bk, kk > 0, /*transB=*/true);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  acc = mb.asmTied("wgmma.wait_group.sync.aligned 0;", acc);
  reduceQueryGradient(mb.unflatten(acc), bhq, q0, dqStage);
}

void BackwardKernel::reduceQueryGradient(ArrayRef<Value> acc, Value bhq,
                                         Value q0, Value dqStage) {
  // dQ's f32 fragments of the warp's 16 rows, through the stage, added to
  // dQ's accumulator by one bulk reduction per row (a row of the stage is
  // padded, the accumulator's row is D contiguous f32): 16 asynchronous
  // operations per warp and tile where the scalar form issues 16 D atomics.
  // The stage is the tile's query stage, whose Q and dO every warp is done
  // with (the block's barrier after dV and dK); only the warp's own threads
  // write and read its rows, so the warp synchronizes alone.
  Value allLanes = kb.i32(-1);
  int64_t stride = tiles.dqStageRowElements;
  for (int64_t r = 0; r < 2; ++r) {
    Value rowBase = mb.mul(mb.add(mb.add(warpKey, quadRow), 8 * r), stride);
    for (int64_t dt = 0; dt < DT; ++dt) {
      Value at = mb.add(mb.add(rowBase, quadCol), 8 * dt);
      auto st = vector::StoreOp::create(b, mb.row(acc[dt], r), dqStage,
                                        ValueRange{at});
      st.setAlignment(8);
    }
  }
  // The stores reach the async proxy before the warp's reductions read them.
  kb.fenceProxyAsync();
  NVVM::SyncWarpOp::create(b, allLanes);
  Value tileRow = mb.add(warpKey, lane);
  Value i = mb.add(q0, tileRow);
  Value issues = mb.cmp(arith::CmpIPredicate::ult, lane, kb.idx(kMTileRows));
  if (Sq % BM != 0)
    issues = arith::AndIOp::create(
        b, issues, mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq)));
  auto ifOp = scf::IfOp::create(b, issues, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value src =
        kb.sharedAddress(dqStage, mb.mul(tileRow, stride * sizeof(float)));
    Value dst = mb.mul(mb.add(mb.mul(bhq, Sq), i), D);
    kb.bulkReduceAddF32(dqAcc, dst, src,
                        kb.i32(static_cast<int32_t>(D * sizeof(float))));
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b);
}

void BackwardKernel::prefetchQueryTile(Value item) {
  // Tile item + 1 into the other stage, while tile item is multiplied. That
  // stage staged tile item - 1's dQ: first its bulk reductions have read it
  // (each thread waits for its own, then the block), a no-op on the first
  // tile. Without dQ's stage, the other stage's last readers were the
  // previous tile's products, which every warp waited on before the
  // block's barrier that follows them.
  if (tiles.dqStageRowElements) {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, /*read=*/b.getUnitAttr());
    gpu::BarrierOp::create(b);
  }
  issueNextQueryTile(item);
}

void BackwardKernel::mainLoopWgmma() {
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
  // dK and dV as wgmma accumulators (D / 2 f32 each per thread).
  SmallVector<Value> init =
      mb.flatten(SmallVector<Value>(2 * DT, mb.zeroAcc()));
  int64_t perGradient = static_cast<int64_t>(init.size()) / 2;
  auto loop = scf::ForOp::create(b, kb.idx(0), items, kb.idx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value item = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    QueryStage stage = queryStage(item);
    // The tile's copies landed and reach the async proxy.
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
    kb.fenceProxyAsync();
    gpu::BarrierOp::create(b);
    Value bhq, q0;
    queryItem(item, bhq, q0);
    SmallVector<Value> sAcc = issueTransposedScores(ks, stage.q);
    SmallVector<Value> dpAcc = issueTransposedScores(vs, stage.dO);
    prefetchQueryTile(item);
    SmallVector<Value> lse2, deltas;
    rowStatistics(bhq, q0, stage.stats, lse2, deltas);
    SmallVector<Value> P =
        mb.unflatten(mb.asmTied("wgmma.wait_group.sync.aligned 1;", sAcc));
    SmallVector<Value> dS =
        mb.unflatten(mb.asmTied("wgmma.wait_group.sync.aligned 0;", dpAcc));
    scoreGradients(P, dS, bhq, q0, lse2, deltas);
    // dV += P^T dO and dK += dS^T Q: the accumulators and the A registers
    // (written by ordinary instructions) through one wgmma.fence.
    SmallVector<Value> fenced(carried.begin(), carried.end());
    SmallVector<Value> pRegs = operandRegisters(P);
    SmallVector<Value> dsRegs = operandRegisters(dS);
    fenced.append(pRegs);
    fenced.append(dsRegs);
    fenced = mb.asmTied("wgmma.fence.sync.aligned;", fenced);
    ArrayRef<Value> f(fenced);
    SmallVector<Value> dVAcc =
        issueAccumulate(f.slice(perGradient, perGradient),
                        f.slice(2 * perGradient, pRegs.size()), stage.dO);
    SmallVector<Value> dKAcc = issueAccumulate(
        f.take_front(perGradient), f.take_back(dsRegs.size()), stage.q);
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    if (!deterministic)
      storeScoreGradientSwizzled(dS);
    SmallVector<Value> grads(dKAcc);
    grads.append(dVAcc);
    grads = mb.asmTied("wgmma.wait_group.sync.aligned 0;", grads);
    // Every warp has written its keys of dS and is done with the stage's Q
    // and dO (dQ's stage takes their place).
    gpu::BarrierOp::create(b);
    if (!deterministic)
      queryGradientWgmma(bhq, q0, stage.dqStage);
    scf::YieldOp::create(b, grads);
  }
  // Copies still in flight when no query tile sees the block's keys, and
  // dQ's last reductions (they read the stage, which ends with the block).
  NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
  if (!deterministic)
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, /*read=*/UnitAttr());
  SmallVector<Value> results(loop.getResults());
  storeKeyGradients(
      mb.unflatten(ArrayRef<Value>(results).take_front(perGradient)),
      mb.unflatten(ArrayRef<Value>(results).drop_front(perGradient)));
}
