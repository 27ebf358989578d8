//===- MainLoop.cpp - The key loops of the MMA kernels --------------------===//
//
// Part of the Sinter project.
//
// One stage (mma.sync and plain wgmma): per key tile t, K[t] landed -> (V[t]
// loads) S -> softmax -> V[t] landed -> (K[t+1] loads) P V.
//
// Two stages (`pipe`, FlashAttention-3's intra-warpgroup overlap):
// iteration t issues S[t] = Q K[t]^T and then O += P[t-1] V[t-1] on the
// tensor cores, runs tile t's softmax while P V is in flight, and rescales
// O once it lands; a prologue computes S[0] and its softmax, an epilogue
// the last P V. K[t+1] and V[t] load during iteration t into the buffers
// that iteration t-1 finished with: one barrier per tile, or (`mbar`)
// mbarriers, so that a warpgroup waits only for the data it reads and the
// buffers it refills and may run up to a tile ahead of the others. With
// `pp` the warpgroups take turns issuing their GEMMs; with `persist` the
// consumers loop over the block's work items.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

/// The loop-carried values: O, M, L (and P), in this order.
static SmallVector<Value> concat(ArrayRef<Value> a, ArrayRef<Value> b,
                                 ArrayRef<Value> c, ArrayRef<Value> d = {}) {
  SmallVector<Value> out(a);
  out.append(b.begin(), b.end());
  out.append(c.begin(), c.end());
  out.append(d.begin(), d.end());
  return out;
}

/// `vals` (O, M, L, ...) as a RowState of `oTiles` O tiles and `rows` rows.
static RowState split(ValueRange vals, int64_t oTiles, int64_t rows) {
  RowState st;
  st.O.assign(vals.begin(), vals.begin() + oTiles);
  st.M.assign(vals.begin() + oTiles, vals.begin() + oTiles + rows);
  st.L.assign(vals.begin() + oTiles + rows, vals.begin() + oTiles + 2 * rows);
  return st;
}

void MMAKernel::singleStage() {
  copyTile(q, qRows, q0, BM, Sq, qs);
  copyTile(k, kRows, kb.idx(0), BN, Skv, kTile(kb.idx(0)));
  auto loop = scf::ForOp::create(b, kb.idx(0), tileEnd, kb.idx(1),
                                 concat(init.O, init.M, init.L));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    singleStageBody(loop);
  }
  final = split(loop.getResults(), MT * DT, 2 * MT);
}

void MMAKernel::singleStageBody(scf::ForOp loop) {
  Value t = loop.getInductionVar();
  RowState st = split(loop.getRegionIterArgs(), MT * DT, 2 * MT);
  Value kv0 = mb.mul(t, BN);
  Value ks = kTile(t), vs = vTile(t);

  waitAll(); // K[t] (and Q) landed; every warp is done with V[t-1]
  copyTile(v, vRows, kv0, BN, Skv, vs);
  SmallVector<Value> S;
  if (WG)
    S = mb.unflatten(waitGroup(0, issueS(ks)));
  else
    S = mmaS(ks);
  S = maskScores(S, kv0);
  SmallVector<Value> alpha;
  Value anyGrow = softmax(S, st, kv0, alpha);
  st.O = rescale(st.O, anyGrow, alpha);

  waitAll(); // V[t] landed; every warp is done with K[t]
  Value more = mb.cmp(arith::CmpIPredicate::ult, mb.add(t, 1), tileEnd);
  ifThen(more, [&] {
    copyTile(k, kRows, mb.add(kv0, BN), BN, Skv, kTile(kb.idx(0)));
  });
  if (WG) {
    auto [acc, pRegs] = fenceOP(st.O, pRegisters(S));
    acc = issuePV(acc, pRegs, vs);
    st.O = mb.unflatten(waitGroup(0, acc));
  } else {
    st.O = mmaPV(st.O, S, vs);
  }
  scf::YieldOp::create(b, concat(st.O, st.M, st.L));
}

scf::ForOp MMAKernel::itemLoop(bool uniform) {
  // The work items of this block (bid, bid + grid, ...): coordinates, key
  // range and the running tile and item counts. The loop's yield is in
  // place; the caller builds the item's body before it. `uniform` (whole
  // warps, not the producer's one thread): the counts through
  // warpUniform, so that the stages, barriers and descriptors derived from
  // them stay on the uniform datapath.
  Value zero = kb.idx(0);
  auto items = scf::ForOp::create(b, bid, kb.idx(B * Hq * mTilesPerHead),
                                  kb.gridDim(), ValueRange{zero, zero});
  b.setInsertionPointToStart(items.getBody());
  itemNo = items.getRegionIterArgs()[0];
  tileBase = items.getRegionIterArgs()[1];
  Value item = items.getInductionVar();
  if (uniform) {
    itemNo = warpUniform(itemNo);
    tileBase = warpUniform(tileBase);
    item = warpUniform(item);
  }
  coords(item);
  itemRange();
  any = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(0));
  auto yield = scf::YieldOp::create(
      b, ValueRange{mb.add(itemNo, 1), mb.add(tileBase, tileEnd)});
  b.setInsertionPoint(yield);
  return items;
}

void MMAKernel::twoStage() {
  // Whether the work item sees any key (per item with `persist`).
  if (!PERSIST)
    any = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(0));
  int64_t nP = BN / 4; // P registers (two elements each)
  consumerSetup();
  scf::IfOp proIf = prologue(nP);
  SmallVector<Value> P0(proIf.getResults().begin(),
                        proIf.getResults().begin() + nP);
  SmallVector<Value> ML(proIf.getResults().begin() + nP,
                        proIf.getResults().end());
  // Ping-pong (`pp`): the last warpgroup opens the first turn.
  if (cfg.pingPong) {
    Value lastWG =
        mb.cmp(arith::CmpIPredicate::eq, wgIdxU, kb.idx(tiles.warpgroups - 1));
    ifThen(lastWG, [&] { namedBarrier(BarrierAction::Arrive, kb.idx(0)); });
  }
  auto loop = scf::ForOp::create(b, kb.idx(1), tileEnd, kb.idx(1),
                                 concat(init.O, ML, P0));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    steadyStateBody(loop);
  }
  SmallVector<Value> Plast(loop.getResults().begin() + MT * DT + 4 * MT,
                           loop.getResults().end());
  RowState last = split(loop.getResults(), MT * DT, 2 * MT);
  final.M = last.M;
  final.L = last.L;
  // `persist`: every S of the item is done: the producer may load the next
  // item's Q.
  if (PERSIST)
    barArrive(EmptyQ, kb.idx(0));
  // `pp`: warpgroup 0 takes the turn left open after the loop.
  if (cfg.pingPong) {
    Value firstWG = mb.cmp(arith::CmpIPredicate::eq, wgIdxU, kb.idx(0));
    ifThen(firstWG, [&] { namedBarrier(BarrierAction::Sync, kb.idx(0)); });
  }
  lastPV(last.O, Plast);
}

void MMAKernel::consumerSetup() {
  // With `mbar`, mbarriers replace the block-wide barrier of each
  // iteration (SharedLayout.h's BarrierKind), after the K/V stages.
  if (MB) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
    barBase = mb.add(mb.add(base, smemPad), layout.barriers());
  }
  if (WS)
    for (int64_t i = 0; i < 3; ++i)
      tensorMaps.push_back(func.getArgument(func.getNumArguments() -
                                            launch.tensorMaps.size() + i));
  if (MB)
    initBarriers();
  if (!WS)
    return;
  producerWarpgroup();
  // `persist`: the consumers' work items; everything below (through the
  // output stores) is one item's body.
  if (PERSIST) {
    consumerItems = itemLoop(/*uniform=*/true);
    barWait(FullQ, qUse(itemNo));
  }
}

scf::IfOp MMAKernel::prologue(int64_t nP) {
  // Tile 0: S[0] and its softmax; K[1] and V[0] in flight.
  SmallVector<Type> pro;
  for (int64_t i = 0; i < nP; ++i)
    pro.push_back(b.getI32Type());
  for (int64_t i = 0; i < 4 * MT; ++i)
    pro.push_back(b.getF32Type());
  auto proIf = scf::IfOp::create(b, pro, any, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&proIf.getThenRegion().front());
  if (WS) {
    if (!PERSIST)
      barWait(FullQ, qUse(kb.idx(0)));
    barWait(FullK, gt(kb.idx(0)));
  } else {
    copyTile(q, qRows, q0, BM, Sq, qs);
    copyTile(k, kRows, kb.idx(0), BN, Skv, kTile(kb.idx(0)));
    if (MB)
      copyArrive(FullK, kb.idx(0));
    copyTile(v, vRows, kb.idx(0), BN, Skv, vTile(kb.idx(0)));
    if (MB)
      copyArrive(FullV, kb.idx(0));
    Value more = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(1));
    ifThen(more, [&] {
      copyTile(k, kRows, kb.idx(BN), BN, Skv, kTile(kb.idx(1)));
      if (MB)
        copyArrive(FullK, kb.idx(1));
    });
    // Copy groups: Q, K[0], V[0] and perhaps K[1]; S[0] needs the first
    // two (and waits for V[0] too when K[1] was issued).
    waitAll(/*pending=*/1);
  }
  SmallVector<Value> S =
      mb.unflatten(waitGroup(0, issueS(kTile(gt(kb.idx(0))))));
  if (MB)
    barArrive(EmptyK, gt(kb.idx(0)));
  S = maskScores(S, kb.idx(0));
  RowState st{{}, init.M, init.L};
  SmallVector<Value> alpha;
  softmax(S, st, kb.idx(0), alpha); // O is still 0: no rescale
  scf::YieldOp::create(b, concat(pRegisters(S), st.M, st.L));
  b.setInsertionPointToStart(&proIf.getElseRegion().front());
  SmallVector<Value> zeros(nP, arith::ConstantIntOp::create(b, 0, 32));
  scf::YieldOp::create(b, concat(zeros, init.M, init.L));
  return proIf;
}

void MMAKernel::namedBarrier(BarrierAction action, Value wgOfTurn) {
  // Ping-pong (`pp`): the warpgroups take turns issuing their GEMMs (named
  // barrier 1 + w is warpgroup w's turn; it passes the turn on to w + 1
  // right after issuing), so one's softmax runs while the next one's GEMMs
  // are on the tensor cores. Two warpgroups meet at each.
  perWarpgroupBarrier(wgOfTurn, action, /*firstId=*/1, 2 * kWarpgroupSize);
}

void MMAKernel::steadyStateBody(scf::ForOp loop) {
  // `ws`: the tile's stage, barriers and descriptors on the uniform
  // datapath (without it the consumers' own copies mix the tile with the
  // thread index, and a uniform tile costs more than it saves).
  Value t = WS ? warpUniform(loop.getInductionVar()) : loop.getInductionVar();
  RowState st = split(loop.getRegionIterArgs(), MT * DT, 2 * MT);
  SmallVector<Value> Pprev(loop.getRegionIterArgs().begin() + MT * DT + 4 * MT,
                           loop.getRegionIterArgs().end());
  Value kv0 = mb.mul(t, BN);
  Value tPrev = arith::SubIOp::create(b, t, kb.idx(1));

  // K[t] and V[t-1] landed; every warpgroup is done with K[t-1] and
  // V[t-2], whose buffers K[t+1] and V[t] take now.
  if (MB) {
    barWait(FullK, gt(t));
    barWait(FullV, gt(tPrev));
  } else {
    waitAll();
  }
  if (!WS)
    consumerLoads(t, kv0, tPrev);

  if (cfg.pingPong)
    namedBarrier(BarrierAction::Sync, wgIdxU);
  auto [oFenced, pRegs] = fenceOP(st.O, Pprev);
  SmallVector<Value> sAcc = issueS(kTile(gt(t)));
  SmallVector<Value> oAcc = issuePV(oFenced, pRegs, vTile(gt(tPrev)));
  if (cfg.pingPong)
    namedBarrier(
        BarrierAction::Arrive,
        arith::RemUIOp::create(b, mb.add(wgIdxU, 1), kb.idx(tiles.warpgroups)));
  // The mask's loads fly while the tensor cores compute S.
  SmallVector<Value> maskTile;
  if (maskLoadedAhead())
    maskTile = loadMask(kv0);
  SmallVector<Value> S = mb.unflatten(waitGroup(1, sAcc));
  if (MB)
    barArrive(EmptyK, gt(t));
  S = maskScores(S, kv0, maskTile);
  SmallVector<Value> alpha;
  Value anyGrow = softmax(S, st, kv0, alpha);
  SmallVector<Value> P = pRegisters(S);
  st.O = mb.unflatten(waitGroup(0, oAcc));
  if (MB)
    barArrive(EmptyV, gt(tPrev));
  st.O = rescale(st.O, anyGrow, alpha);
  scf::YieldOp::create(b, concat(st.O, st.M, st.L, P));
}

void MMAKernel::consumerLoads(Value t, Value kv0, Value tPrev) {
  // Without `ws` the consumers copy V[t] and K[t+1] themselves.
  if (MB) {
    kb.fenceProxyAsync();
    Value reuse = mb.cmp(arith::CmpIPredicate::uge, t, kb.idx(2));
    ifThen(reuse,
           [&] { barWait(EmptyV, arith::SubIOp::create(b, t, kb.idx(2))); });
  }
  copyTile(v, vRows, kv0, BN, Skv, vTile(t));
  if (MB)
    copyArrive(FullV, t);
  Value more = mb.cmp(arith::CmpIPredicate::ult, mb.add(t, 1), tileEnd);
  ifThen(more, [&] {
    if (MB)
      barWait(EmptyK, tPrev);
    copyTile(k, kRows, mb.add(kv0, BN), BN, Skv, kTile(mb.add(t, 1)));
    if (MB)
      copyArrive(FullK, mb.add(t, 1));
  });
}

void MMAKernel::lastPV(ArrayRef<Value> Olast, ArrayRef<Value> Plast) {
  // Epilogue of the loop: O += P[last] V[last].
  SmallVector<Type> oTypes(MT * DT, mb.acc2x2);
  auto epiIf = scf::IfOp::create(b, oTypes, any, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&epiIf.getThenRegion().front());
    Value last = gt(arith::SubIOp::create(b, tileEnd, kb.idx(1)));
    if (MB) {
      barWait(FullV, last);
      if (!WS)
        kb.fenceProxyAsync();
    } else {
      waitAll();
    }
    auto [oFenced, pRegs] = fenceOP(Olast, Plast);
    SmallVector<Value> acc = issuePV(oFenced, pRegs, vTile(last));
    SmallVector<Value> done = waitGroup(0, acc);
    // `persist`: the next item refills this V stage.
    if (PERSIST)
      barArrive(EmptyV, last);
    scf::YieldOp::create(b, mb.unflatten(done));
    b.setInsertionPointToStart(&epiIf.getElseRegion().front());
    scf::YieldOp::create(b, Olast);
  }
  final.O.assign(epiIf.getResults().begin(), epiIf.getResults().end());
}
