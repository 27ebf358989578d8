//===- CudaCoreKernel.cpp - Tiled attention on CUDA cores -----------------===//
//
// Part of the Sinter project.
//
// The FlashAttention-2 forward algorithm on CUDA cores, as the correct
// baseline of the CUDA backend (tensor cores are a separate kernel,
// MMAKernel.h):
//
//  * one block per (batch, query head, tile of kBlockM query rows); each
//    query row is owned by kLanesPerRow consecutive lanes, each holding a
//    D/kLanesPerRow slice of q (pre-scaled by scale*log2(e)) and of the f32
//    output accumulator;
//  * a loop over key/value tiles of kBlockN rows, staged in shared memory
//    with 16-byte loads by the whole block; per tile, the scores of a row
//    are dot products reduced across its lanes with shuffles, kept in a
//    shared-memory score tile, then the running max m, running sum l and
//    the rescaled accumulator are updated (online softmax, exp2);
//  * causal (bottom-right aligned; the rule is KeyVisibility's): tiles
//    wholly above the diagonal are never loaded (the loop bound), the
//    diagonal tiles are masked per element;
//    ragged tails are zero-filled and masked; GQA maps head h to key/value
//    head h / (Hq / Hkv); an additive mask is read by broadcast strides.
//  * out = acc / l (zeros for rows that see no key), lse = (m + log2(l)) *
//    ln(2) in natural log units (-inf for such rows).
//
// Never allocates anything of size Sq x Skv: shared memory holds one K, one
// V and one kBlockM x kBlockN score tile.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "sinter/Conversion/Philox.h"
#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

static constexpr int64_t kBlockM = 64;
static constexpr int64_t kBlockN = 32;
static constexpr int64_t kLanesPerRow = 4;
static constexpr int64_t kThreads = kBlockM * kLanesPerRow;
static constexpr double kLog2e = 1.4426950408889634;

namespace {
/// The values of the CUDA-core kernel under construction.
class CudaCoreKernel : AttentionShape {
public:
  CudaCoreKernel(AttentionOp op, ImplicitLocOpBuilder &b, gpu::GPUFuncOp func);
  void build();

private:
  void setupRow();
  void setupKeyRange();
  void tileBody(scf::ForOp tiles);
  void stage(Value src, Value dst, int64_t width, Value kv0);
  scf::ForOp scores(Value kv0);
  void scoreBody(scf::ForOp scores, Value kv0);
  scf::ForOp weightedValues(Value kv0, Value mRef, Value lScaled,
                            Value accScaled);
  Value dropout(Value p, Value key);
  void finish(scf::ForOp tiles);

  AttentionOp op;
  /// Which keys each query row sees.
  KeyVisibility visibility;
  ImplicitLocOpBuilder &b;
  gpu::GPUFuncOp func;
  KernelBuilder kb;
  int64_t dq, dv, mTiles, vecElems;
  double ninf;
  Value q, k, v, mask, seed, out, lseOut;
  Value kTile, vTile, sTile;
  Value h, batch, tid, rowInBlock, lane, q0, row, rowValid, safeRow, bhq, bhkv,
      qv;
  Value tileEnd, maskRowBase, kvBase, smemRow;
  SmallVector<int64_t> maskStride;
};
} // namespace

CudaCoreKernel::CudaCoreKernel(AttentionOp op, ImplicitLocOpBuilder &b,
                               gpu::GPUFuncOp func)
    : AttentionShape(op), op(op), visibility(KeyVisibility::of(op)), b(b),
      func(func), kb(b) {
  ninf = -std::numeric_limits<double>::infinity();
  dq = D / kLanesPerRow;
  dv = Dv / kLanesPerRow;
  mTiles = llvm::divideCeil(Sq, kBlockM);
  vecElems = 16 / (elt.getIntOrFloatBitWidth() / 8);
  // Shared memory: one K and one V tile, the scores of the block's rows.
  kTile = func.getWorkgroupAttributions()[0];
  vTile = func.getWorkgroupAttributions()[1];
  sTile = func.getWorkgroupAttributions()[2];
}

void CudaCoreKernel::build() {
  AttentionArgs args = attentionArguments(kb, func, op);
  q = args.q;
  k = args.k;
  v = args.v;
  mask = args.mask;
  seed = args.seed;
  out = args.out;
  lseOut = args.lse;
  setupRow();
  setupKeyRange();

  auto f32v = VectorType::get({dv}, b.getF32Type());
  Value acc0 = arith::ConstantOp::create(
      b, f32v, DenseElementsAttr::get(f32v, b.getF32FloatAttr(0.0).getValue()));
  kvBase = arith::MulIOp::create(b, bhkv, kb.idx(Skv));
  smemRow = arith::MulIOp::create(b, rowInBlock, kb.idx(kBlockN));

  auto tiles = scf::ForOp::create(b, kb.idx(0), tileEnd, kb.idx(1),
                                  ValueRange{kb.f32(ninf), kb.f32(0.0), acc0});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tiles.getBody());
    tileBody(tiles);
  }
  finish(tiles);
}

void CudaCoreKernel::setupRow() {
  // Program coordinates.
  Value bid = kb.blockId();
  Value mTile = arith::RemUIOp::create(b, bid, kb.idx(mTiles));
  Value bh = arith::DivUIOp::create(b, bid, kb.idx(mTiles));
  h = arith::RemUIOp::create(b, bh, kb.idx(Hq));
  batch = arith::DivUIOp::create(b, bh, kb.idx(Hq));
  Value g = arith::DivUIOp::create(b, h, kb.idx(Hq / Hkv));
  tid = kb.threadId();
  rowInBlock = arith::DivUIOp::create(b, tid, kb.idx(kLanesPerRow));
  lane = arith::RemUIOp::create(b, tid, kb.idx(kLanesPerRow));
  q0 = arith::MulIOp::create(b, mTile, kb.idx(kBlockM));
  row = arith::AddIOp::create(b, q0, rowInBlock); // query index i
  rowValid =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, kb.idx(Sq));
  safeRow = arith::SelectOp::create(b, rowValid, row, kb.idx(0));
  bhq =
      arith::AddIOp::create(b, arith::MulIOp::create(b, batch, kb.idx(Hq)), h);
  bhkv =
      arith::AddIOp::create(b, arith::MulIOp::create(b, batch, kb.idx(Hkv)), g);
  Value qRowBase = arith::MulIOp::create(
      b,
      arith::AddIOp::create(b, arith::MulIOp::create(b, bhq, kb.idx(Sq)),
                            safeRow),
      kb.idx(D));

  // This lane's slice of q, scaled so that scores are in log2 units.
  double scale = op.getEffectiveScale() * kLog2e;
  Value qLane = arith::AddIOp::create(
      b, qRowBase, arith::MulIOp::create(b, lane, kb.idx(dq)));
  qv = kb.loadF32(q, qLane, dq, rowValid, 0.0, /*aligned=*/false);
  qv = arith::MulFOp::create(b, qv, kb.splat(kb.f32(scale), dq));
}

void CudaCoreKernel::setupKeyRange() {
  // Key/value tiles this program visits: all of them, or up to the last
  // key its last row sees.
  int64_t nTiles = llvm::divideCeil(Skv, kBlockN);
  tileEnd = kb.idx(nTiles);
  if (visibility.hidesKeys()) {
    Value lim = visibility.buildKeyEnd(
        b, b.getLoc(), arith::AddIOp::create(b, q0, kb.idx(kBlockM)));
    tileEnd = arith::DivUIOp::create(
        b, arith::AddIOp::create(b, lim, kb.idx(kBlockN - 1)), kb.idx(kBlockN));
  }

  maskStride = attentionMaskStrides(op);
  if (mask)
    maskRowBase = arith::AddIOp::create(
        b,
        arith::AddIOp::create(
            b, arith::MulIOp::create(b, batch, kb.idx(maskStride[0])),
            arith::MulIOp::create(b, h, kb.idx(maskStride[1]))),
        arith::MulIOp::create(b, safeRow, kb.idx(maskStride[2])));
}

void CudaCoreKernel::tileBody(scf::ForOp tiles) {
  Value t = tiles.getInductionVar();
  Value m = tiles.getRegionIterArgs()[0];
  Value l = tiles.getRegionIterArgs()[1];
  Value acc = tiles.getRegionIterArgs()[2];
  Value kv0 = arith::MulIOp::create(b, t, kb.idx(kBlockN));

  // Stage K and V tiles in shared memory (zero rows past Skv).
  gpu::BarrierOp::create(b); // the previous tile is consumed
  stage(k, kTile, D, kv0);
  stage(v, vTile, Dv, kv0);
  gpu::BarrierOp::create(b);

  // Scores of this row against the tile; the tile max.
  scf::ForOp tileScores = scores(kv0);
  // Online softmax update. A row that has seen only -inf keeps m = -inf:
  // use 0 as the reference so exp2 gives 0, not NaN.
  Value mNew = arith::MaximumFOp::create(b, m, tileScores.getResult(0));
  Value mNewFinite =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, kb.f32(ninf));
  Value mRef = arith::SelectOp::create(b, mNewFinite, kb.f32(0.0), mNew);
  Value alpha = math::Exp2Op::create(b, arith::SubFOp::create(b, m, mRef));
  Value lScaled = arith::MulFOp::create(b, l, alpha);
  Value accScaled = arith::MulFOp::create(b, acc, kb.splat(alpha, dv));
  // The score tile is complete once every row's lane 0 has written it.
  gpu::BarrierOp::create(b);
  scf::ForOp pv = weightedValues(kv0, mRef, lScaled, accScaled);
  scf::YieldOp::create(b, ValueRange{mNew, pv.getResult(0), pv.getResult(1)});
}

void CudaCoreKernel::stage(Value src, Value dst, int64_t width, Value kv0) {
  int64_t vecsPerRow = width / vecElems;
  int64_t total = kBlockN * vecsPerRow;
  auto vecT = VectorType::get({vecElems}, elt);
  for (int64_t base = 0; base < total; base += kThreads) {
    Value vi = arith::AddIOp::create(b, tid, kb.idx(base));
    Value inTile =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, vi, kb.idx(total));
    Value r = arith::DivUIOp::create(b, vi, kb.idx(vecsPerRow));
    Value c = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, vi, kb.idx(vecsPerRow)), kb.idx(vecElems));
    Value kvRow = arith::AddIOp::create(b, kv0, r);
    Value inSeq =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, kvRow, kb.idx(Skv));
    Value ok = arith::AndIOp::create(b, inTile, inSeq);
    Value gidx = arith::AddIOp::create(
        b,
        arith::MulIOp::create(b, arith::AddIOp::create(b, kvBase, kvRow),
                              kb.idx(width)),
        c);
    auto ld = scf::IfOp::create(
        b, ok,
        [&](OpBuilder &ob, Location loc) {
          auto l2 = vector::LoadOp::create(ob, loc, vecT, src, gidx);
          l2.setAlignment(16);
          scf::YieldOp::create(ob, loc, l2.getResult());
        },
        [&](OpBuilder &ob, Location loc) {
          Value z = arith::ConstantOp::create(
              ob, loc, vecT, DenseElementsAttr::get(vecT, ob.getZeroAttr(elt)));
          scf::YieldOp::create(ob, loc, z);
        });
    Value sidx =
        arith::AddIOp::create(b, arith::MulIOp::create(b, r, kb.idx(width)), c);
    scf::IfOp::create(b, inTile, [&](OpBuilder &ob, Location loc) {
      auto st = vector::StoreOp::create(ob, loc, ld.getResult(0), dst, sidx);
      st.setAlignment(16);
      scf::YieldOp::create(ob, loc);
    });
  }
}

scf::ForOp CudaCoreKernel::scores(Value kv0) {
  auto scores = scf::ForOp::create(b, kb.idx(0), kb.idx(kBlockN), kb.idx(1),
                                   ValueRange{kb.f32(ninf)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(scores.getBody());
  scoreBody(scores, kv0);
  return scores;
}

void CudaCoreKernel::scoreBody(scf::ForOp scores, Value kv0) {
  Value j = scores.getInductionVar();
  Value tileMax = scores.getRegionIterArgs()[0];
  Value kidx =
      arith::AddIOp::create(b, arith::MulIOp::create(b, j, kb.idx(D)),
                            arith::MulIOp::create(b, lane, kb.idx(dq)));
  Value kvec = kb.loadF32(kTile, kidx, dq, nullptr, 0.0, false);
  Value s =
      kb.reduceVector(ReduceKind::Sum, arith::MulFOp::create(b, qv, kvec));
  s = kb.groupReduce(s, ReduceKind::Sum, kLanesPerRow, lane, rowInBlock,
                     Value());
  Value key = arith::AddIOp::create(b, kv0, j);
  if (mask) {
    Value midx = arith::AddIOp::create(
        b, maskRowBase, arith::MulIOp::create(b, key, kb.idx(maskStride[3])));
    Value inSeq =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, key, kb.idx(Skv));
    Value mv = vector::ExtractOp::create(
        b,
        kb.loadF32(
            mask,
            arith::SelectOp::create(
                b, arith::AndIOp::create(b, inSeq, rowValid), midx, kb.idx(0)),
            1, nullptr, 0.0, false),
        ArrayRef<int64_t>{0});
    s = arith::AddFOp::create(b, s,
                              arith::MulFOp::create(b, mv, kb.f32(kLog2e)));
  }
  // Invisible keys: past Skv, or hidden from this row.
  Value visible =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, key, kb.idx(Skv));
  if (Value seen = visibility.buildIsVisible(b, b.getLoc(), row, key))
    visible = arith::AndIOp::create(b, visible, seen);
  s = arith::SelectOp::create(b, visible, s, kb.f32(ninf));
  scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, kb.idx(0)),
      [&](OpBuilder &ob, Location loc) {
        memref::StoreOp::create(
            ob, loc, s, sTile,
            ValueRange{arith::AddIOp::create(ob, loc, smemRow, j)});
        scf::YieldOp::create(ob, loc);
      });
  scf::YieldOp::create(b, ValueRange{arith::MaximumFOp::create(b, tileMax, s)});
}

scf::ForOp CudaCoreKernel::weightedValues(Value kv0, Value mRef, Value lScaled,
                                          Value accScaled) {
  // l += p and acc += p * V over the tile's keys.
  auto pv = scf::ForOp::create(b, kb.idx(0), kb.idx(kBlockN), kb.idx(1),
                               ValueRange{lScaled, accScaled});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(pv.getBody());
  Value j = pv.getInductionVar();
  Value s = memref::LoadOp::create(
      b, sTile, ValueRange{arith::AddIOp::create(b, smemRow, j)});
  Value p = math::Exp2Op::create(b, arith::SubFOp::create(b, s, mRef));
  Value vidx =
      arith::AddIOp::create(b, arith::MulIOp::create(b, j, kb.idx(Dv)),
                            arith::MulIOp::create(b, lane, kb.idx(dv)));
  Value vvec = kb.loadF32(vTile, vidx, dv, nullptr, 0.0, false);
  // l sums the undropped probabilities; dropout applies to P V only.
  Value lNext = arith::AddFOp::create(b, pv.getRegionIterArgs()[0], p);
  Value pDropped = p;
  if (dropP > 0.0)
    pDropped = dropout(p, arith::AddIOp::create(b, kv0, j));
  Value accNext = vector::FMAOp::create(b, kb.splat(pDropped, dv), vvec,
                                        pv.getRegionIterArgs()[1]);
  scf::YieldOp::create(b, ValueRange{lNext, accNext});
  return pv;
}

Value CudaCoreKernel::dropout(Value p, Value key) {
  // The mask of element ((b*Hq + h)*Sq + i)*Skv + j.
  Value offset = arith::AddIOp::create(
      b,
      arith::MulIOp::create(
          b,
          arith::AddIOp::create(b, arith::MulIOp::create(b, bhq, kb.idx(Sq)),
                                safeRow),
          kb.idx(Skv)),
      key);
  Value keep = buildPhiloxKeepOnGPU(
      b, b.getLoc(), arith::IndexCastOp::create(b, b.getI64Type(), offset),
      seed, dropP);
  return arith::SelectOp::create(
      b, keep, arith::MulFOp::create(b, p, kb.f32(dropoutKeptScale(dropP))),
      kb.f32(0.0));
}

void CudaCoreKernel::finish(scf::ForOp tiles) {
  Value m = tiles.getResult(0), l = tiles.getResult(1),
        acc = tiles.getResult(2);
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, kb.f32(0.0));
  Value inv = arith::SelectOp::create(
      b, positive, arith::DivFOp::create(b, kb.f32(1.0), l), kb.f32(0.0));
  Value o = arith::MulFOp::create(b, acc, kb.splat(inv, dv));
  Value oIdx = arith::AddIOp::create(
      b,
      arith::MulIOp::create(
          b,
          arith::AddIOp::create(b, arith::MulIOp::create(b, bhq, kb.idx(Sq)),
                                safeRow),
          kb.idx(Dv)),
      arith::MulIOp::create(b, lane, kb.idx(dv)));
  kb.storeF32(out, oIdx, o, rowValid, /*aligned=*/false);
  if (!lseOut)
    return;
  // lse in natural-log units: (m + log2(l)) * ln 2; -inf without keys.
  Value lse = arith::MulFOp::create(
      b, arith::AddFOp::create(b, m, math::Log2Op::create(b, l)),
      kb.f32(std::log(2.0)));
  lse = arith::SelectOp::create(b, positive, lse, kb.f32(ninf));
  Value isLead = arith::AndIOp::create(
      b, rowValid,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, kb.idx(0)));
  scf::IfOp::create(b, isLead, [&](OpBuilder &ob, Location loc) {
    Value at = arith::AddIOp::create(
        ob, loc, arith::MulIOp::create(ob, loc, bhq, kb.idx(Sq)), safeRow);
    memref::StoreOp::create(ob, loc, lse, lseOut, ValueRange{at});
    scf::YieldOp::create(ob, loc);
  });
}

/// Why the kernel cannot run `op`, or success.
static LogicalResult checkCudaCoreAttention(AttentionOp op) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto vType = cast<RankedTensorType>(op.getValue().getType());
  int64_t D = qType.getDimSize(3), Dv = vType.getDimSize(3);
  Type elt = qType.getElementType();
  if (D % kLanesPerRow != 0 || Dv % kLanesPerRow != 0)
    return op.emitOpError("the CUDA attention kernel needs head dimensions "
                          "divisible by ")
           << kLanesPerRow << ", got " << D << " and " << Dv;
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  int64_t vecElems = 16 / eltBytes; // elements per 16-byte staging load
  if (D % vecElems != 0 || Dv % vecElems != 0)
    return op.emitOpError("the CUDA attention kernel stages K/V rows with "
                          "16-byte loads: head dimensions must be multiples "
                          "of ")
           << vecElems << " for " << elt << ", got " << D << " and " << Dv;
  int64_t smemBytes = kBlockN * (D + Dv) * eltBytes + kBlockM * kBlockN * 4;
  if (smemBytes > kMaxStaticSharedMemoryPerBlock)
    return op.emitOpError("head dimensions ")
           << D << "/" << Dv << " need " << smemBytes
           << " bytes of shared memory, more than the 48 KiB this kernel "
              "uses";
  return success();
}

FailureOr<KernelLaunch> sinter::gpu_kernels::buildAttentionKernel(
    AttentionOp op, gpu::GPUModuleOp module, StringRef name) {
  if (failed(checkCudaCoreAttention(op)))
    return failure();
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto vType = cast<RankedTensorType>(op.getValue().getType());
  int64_t D = qType.getDimSize(3), Dv = vType.getDimSize(3);
  Type elt = qType.getElementType();
  int64_t mTiles = llvm::divideCeil(qType.getDimSize(2), kBlockM);
  KernelLaunch launch = attentionLaunchFor(
      op, qType.getDimSize(0) * qType.getDimSize(1) * mTiles, kThreads);

  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  func.addWorkgroupAttribution(
      MemRefType::get({kBlockN * D}, elt, MemRefLayoutAttrInterface(), ws),
      op.getLoc());
  func.addWorkgroupAttribution(
      MemRefType::get({kBlockN * Dv}, elt, MemRefLayoutAttrInterface(), ws),
      op.getLoc());
  func.addWorkgroupAttribution(MemRefType::get({kBlockM * kBlockN},
                                               b.getF32Type(),
                                               MemRefLayoutAttrInterface(), ws),
                               op.getLoc());
  b.setInsertionPointToStart(&func.getBody().front());
  CudaCoreKernel(op, b, func).build();
  return launch;
}
