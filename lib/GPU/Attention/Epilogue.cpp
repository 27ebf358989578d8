//===- Epilogue.cpp - O and the logsumexp of the MMA kernels --------------===//
//
// Part of the Sinter project.
//
// out = O / l per row (zeros for rows that see no key), rounded once;
// lse = (m + log2 l) * ln 2 (-inf for such rows). O leaves as 4-byte
// stores of element pairs from registers or, with `tmastore`, through the
// swizzled panels of a shared tile and one TMA store per panel and
// warpgroup.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

void MMAKernel::wgBarrier() {
  // The warpgroup's own named barrier (ids after ping-pong's).
  perWarpgroupBarrier(wgIdxU, BarrierAction::Sync,
                      /*firstId=*/1 + tiles.warpgroups, kWarpgroupSize);
}

void MMAKernel::storesRead() {
  // The warpgroup leader's wait for its stores to have read O's tile.
  ifThen(wgLead, [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, /*read=*/b.getUnitAttr());
  });
}

void MMAKernel::epilogue() {
  // `persist`: the item before's stores must be done reading O's tile.
  if (tmaStore && PERSIST) {
    storesRead();
    wgBarrier();
  }
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r)
      storeRow(mt, r);
  if (!tmaStore)
    return;
  // Every thread's shared-memory writes reach the async proxy, the
  // warpgroup meets at its barrier, and its leader stores the panels; rows
  // past the sequence are not written. The block may end only once the
  // stores have read the tile (a persistent block: before it writes the
  // next item's O, and after its last item).
  kb.fenceProxyAsync();
  wgBarrier();
  ifThen(wgLead, [&] { storeOTma(); });
  if (PERSIST)
    b.setInsertionPointAfter(consumerItems);
  storesRead();
}

void MMAKernel::storeRow(int64_t mt, int64_t r) {
  Value l = mb.quadReduce(final.L[mt * 2 + r], /*isMax=*/false);
  Value m = final.M[mt * 2 + r];
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, kb.f32(0.0));
  // 1 / l, times 1 / (1 - p) for the probabilities dropout kept.
  Value inv = arith::SelectOp::create(
      b, positive, arith::DivFOp::create(b, kb.f32(dropoutKeptScale()), l),
      kb.f32(0.0));
  Value i = rowOf(mt, r);
  Value iOk = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
  Value rowBase = oRows.element(mb, i);
  Value inv2 = mb.splat2(inv);
  if (tmaStore)
    stageOForTma(mt, r, inv2);
  ifThen(iOk, [&] {
    for (int64_t dt = 0; dt < DT && !tmaStore; ++dt) {
      Value o =
          arith::MulFOp::create(b, mb.row(final.O[mt * DT + dt], r), inv2);
      Value at = mb.add(mb.add(rowBase, quadCol), 8 * dt);
      auto st = vector::StoreOp::create(
          b, arith::TruncFOp::create(b, mb.elt2, o), out, at);
      st.setAlignment(4);
    }
    if (!lseOut)
      return;
    // Natural-log units: (m + log2 l) * ln 2; -inf without keys.
    Value lse = arith::MulFOp::create(
        b, arith::AddFOp::create(b, m, math::Log2Op::create(b, l)),
        kb.f32(std::log(2.0)));
    lse = arith::SelectOp::create(b, positive, lse, negInf);
    Value lead = mb.cmp(arith::CmpIPredicate::eq, quadCol, kb.idx(0));
    ifThen(lead, [&] {
      memref::StoreOp::create(b, lse, lseOut, ValueRange{mb.add(qSeqBase, i)});
    });
  });
}

void MMAKernel::stageOForTma(int64_t mt, int64_t r, Value inv2) {
  // Row rt of the tile (rt % 8 == quadRow), chunk dt % 8 of panel dt / 8
  // at the 128-byte swizzle's place (as the loads put Q).
  int64_t panelCols = swizzle::kPanelColumns;
  Value rt = mb.add(mb.add(warpRow, quadRow), 8 * r);
  for (int64_t dt = 0; dt < DT; ++dt) {
    Value o = arith::MulFOp::create(b, mb.row(final.O[mt * DT + dt], r), inv2);
    Value chunk =
        arith::XOrIOp::create(b, kb.idx(dt % swizzle::kChunksPerRow), quadRow);
    Value at = mb.add(
        mb.add(mb.mul(rt, panelCols), mb.mul(chunk, swizzle::kChunkElements)),
        mb.add(quadCol, (dt / swizzle::kChunksPerRow) * BM * panelCols));
    auto st = vector::StoreOp::create(b, arith::TruncFOp::create(b, mb.elt2, o),
                                      os, at);
    st.setAlignment(4);
  }
}

void MMAKernel::storeOTma() {
  // The warpgroup's 64 rows of O, one TMA store per 64-column panel
  // through the last kernel parameter's tensor map.
  Value map = func.getArgument(func.getNumArguments() - 1);
  Value row0 = mb.add(q0, mb.mul(wgIdxU, kWarpgroupRows));
  // Inline PTX: nvvm.cp.async.bulk.tensor.global.shared.cta takes the
  // source as an !llvm.ptr<3> (64-bit on NVPTX), not the 32-bit shared
  // address the kernel computes (see KernelBuilder::mbarrierInit).
  for (int64_t p = 0; p < D / swizzle::kPanelColumns; ++p) {
    SmallVector<Value, 4> at = boxCoordinates(
        heads.out, kb.i32(static_cast<int32_t>(swizzle::kPanelColumns * p)),
        row0, h);
    mb.callAsm(
        "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group "
        "[$0, {$1, $2, $3, $4}], [$5];",
        "l,r,r,r,r,r,~{memory}",
        {map, at[0], at[1], at[2], at[3],
         kb.sharedAddress(
             os, mb.add(mb.mul(wgIdxU, kWarpgroupRows * swizzle::kRowBytes),
                        kb.idx(p * BM * swizzle::kRowBytes)))},
        {});
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b);
}
