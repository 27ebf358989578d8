//===- BackwardQueryKernel.cpp - dQ without atomics (deterministic) -------===//
//
// Part of the Sinter project.
//
// The query-tile kernel of Backward.h, for `deterministic` ops: one block
// per (batch, query head, tile of 64 queries), 16 query rows per warp. Q and
// dO of the tile stay in shared memory; the block walks the key tiles its
// rows see (causal: up to KeyVisibility::buildKeyEnd) and per tile
// recomputes, with the queries as the fragments' rows,
//
//   S  = Q K^T        P  = exp(scale S - lse)   (hidden: 0)
//   dP = dO V^T       dS = P (dP - delta)
//   dQ += dS K        (registers; dS rounded to the operand type)
//
// so each dQ element is summed by one thread in key order: the same bits on
// every run. It reuses the main kernel's products (BackwardKernel.cpp) with
// Q and dO as the A tiles.
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

void BackwardKernel::queryCoords(Value &bhq, Value &q0, Value &keyTiles) {
  // Block bid: query tile bid % nQT of query head bid / nQT, which reads
  // key/value head hq / (Hq / Hkv).
  int64_t queryTiles = llvm::divideCeil(Sq, BM);
  Value bid = kb.blockId();
  Value qt = arith::RemUIOp::create(b, bid, kb.idx(queryTiles));
  bhq = arith::DivUIOp::create(b, bid, kb.idx(queryTiles));
  Value hq = arith::RemUIOp::create(b, bhq, kb.idx(Hq));
  batch = arith::DivUIOp::create(b, bhq, kb.idx(Hq));
  hkv = arith::DivUIOp::create(b, hq, kb.idx(Hq / Hkv));
  kvSeqBase = mb.mul(mb.add(mb.mul(batch, Hkv), hkv), Skv);
  q0 = mb.mul(qt, BM);
  Value keyEnd = visibility.buildKeyEnd(b, b.getLoc(), mb.add(q0, BM));
  keyTiles = arith::DivUIOp::create(b, mb.add(keyEnd, BN - 1), kb.idx(BN));
}

Value BackwardKernel::visibleInRow(Value q0, Value kv0, int64_t nt, int64_t r,
                                   int64_t c) {
  // Row r of the warp (a query), column (nt, c) (a key).
  return seesKey(mb.add(mb.add(q0, mb.add(warpKey, quadRow)), 8 * r),
                 mb.add(mb.add(kv0, quadCol), 8 * nt + c));
}

void BackwardKernel::rowGradients(SmallVector<Value> &S, SmallVector<Value> &dP,
                                  Value bhq, Value q0, Value kv0,
                                  ArrayRef<Value> lse2,
                                  ArrayRef<Value> deltas) {
  // In place: S becomes P, dP becomes dS; the statistics are per row.
  Value c2 = mb.splat2(cScale);
  Value zero2 = mb.splat2(kb.f32(0.0));
  SmallVector<Value> keeps;
  for (int64_t nt = 0; nt < QT; ++nt) {
    if (seed && nt % 2 == 0)
      keeps = dropoutKeeps(bhq, q0, kv0, nt / 2);
    for (int64_t r = 0; r < 2; ++r) {
      Value s = arith::MulFOp::create(b, mb.row(S[nt], r), c2);
      if (mask)
        s = arith::AddFOp::create(
            b, s,
            maskPair(bhq, mb.add(mb.add(q0, mb.add(warpKey, quadRow)), 8 * r),
                     mb.add(mb.add(kv0, quadCol), 8 * nt),
                     /*alongQueries=*/false));
      Value p = mb.exp2(arith::SubFOp::create(b, s, mb.splat2(lse2[r])));
      if (Value vis0 = visibleInRow(q0, kv0, nt, r, 0)) {
        Value vis = vector::FromElementsOp::create(
            b, VectorType::get({2}, b.getI1Type()),
            ValueRange{vis0, visibleInRow(q0, kv0, nt, r, 1)});
        p = arith::SelectOp::create(b, vis, p, zero2);
      }
      Value dp = mb.row(dP[nt], r);
      if (seed)
        dp = keptGradient(keeps[2 * (nt % 2) + r], dp);
      Value ds = arith::MulFOp::create(
          b, p, arith::SubFOp::create(b, dp, mb.splat2(deltas[r])));
      S[nt] = mb.setRow(S[nt], p, r);
      dP[nt] = mb.setRow(dP[nt], ds, r);
    }
  }
}

void BackwardKernel::storeQueryGradient(ArrayRef<Value> acc, Value bhq,
                                        Value q0) {
  Value scale2 = mb.splat2(kb.f32(op.getEffectiveScale()));
  for (int64_t r = 0; r < 2; ++r) {
    Value i = mb.add(mb.add(q0, mb.add(warpKey, quadRow)), 8 * r);
    Value in;
    if (Sq % BM != 0)
      in = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
    Value rowBase = queryRows(heads.gradQuery, bhq).element(mb, i);
    for (int64_t dt = 0; dt < DT; ++dt)
      kb.storeF32(dQ, mb.add(mb.add(rowBase, quadCol), 8 * dt),
                  arith::MulFOp::create(b, mb.row(acc[dt], r), scale2), in);
  }
}

void BackwardKernel::buildQueryGradient() {
  Value bhq, q0, keyTiles;
  queryCoords(bhq, q0, keyTiles);
  Value base = mb.mul(bhq, Sq);
  copyRows(q, queryRows(heads.q, bhq), q0, BM, Sq, qs);
  copyRows(dOut, queryRows(heads.gradOut, bhq), q0, BM, Sq, dos);
  NVVM::CpAsyncCommitGroupOp::create(b);
  // lse * log2 e and delta of the thread's two rows (past a ragged end, the
  // last row's: those rows are hidden).
  SmallVector<Value, 2> lse2, deltas;
  for (int64_t r = 0; r < 2; ++r) {
    Value i = mb.add(mb.add(q0, mb.add(warpKey, quadRow)), 8 * r);
    if (Sq % BM != 0)
      i = arith::MinUIOp::create(b, i, kb.idx(Sq - 1));
    Value at = mb.add(base, i);
    // (One lane of scaledLse's pair: its -inf guard is elementwise.)
    Value l = arith::MulFOp::create(
        b, memref::LoadOp::create(b, lse, ValueRange{at}), log2e);
    lse2.push_back(mb.elem(scaledLse(mb.splat2(l)), 0));
    deltas.push_back(memref::LoadOp::create(b, delta, ValueRange{at}));
  }
  SmallVector<Value> init(DT, mb.zeroAcc());
  auto loop = scf::ForOp::create(b, kb.idx(0), keyTiles, kb.idx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kv0 = mb.mul(loop.getInductionVar(), BN);
    // The previous tile's K and V are read by every warp before they are
    // overwritten.
    gpu::BarrierOp::create(b);
    copyRows(k, keyRows(heads.k), kv0, BN, Skv, ks);
    copyRows(v, keyRows(heads.v), kv0, BN, Skv, vs);
    NVVM::CpAsyncCommitGroupOp::create(b);
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
    gpu::BarrierOp::create(b);
    SmallVector<Value> P = keysTimesQueryTile(qs, ks);
    SmallVector<Value> dS = keysTimesQueryTile(dos, vs);
    rowGradients(P, dS, bhq, q0, kv0, lse2, deltas);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    scf::YieldOp::create(b, accumulate(acc, dS, ks));
  }
  // Q and dO are still in flight when the rows see no key.
  NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));
  SmallVector<Value> acc(loop.getResults());
  storeQueryGradient(acc, bhq, q0);
}
