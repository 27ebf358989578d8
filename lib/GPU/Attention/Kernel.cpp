//===- Kernel.cpp - The tensor-core attention kernel ----------------------===//
//
// Part of the Sinter project.
//
// buildAttentionMMAKernel: the launch (grid, block, shared memory, tensor
// maps), the kernel's parameters, and the values every part of it shares:
// the block's work item, the thread's place in the tiles. The parts are in
// the other files of this folder (MMAKernel.h).
//
//===----------------------------------------------------------------------===//

#include "DropoutStage.h"
#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

MMAKernel::MMAKernel(AttentionOp op, const AttentionConfig &cfg,
                     const AttentionHeads &heads, ImplicitLocOpBuilder &b,
                     gpu::GPUFuncOp func, const KernelLaunch &launch)
    : AttentionShape(op), op(op), cfg(cfg), heads(heads),
      visibility(KeyVisibility::of(op)),
      eltBytes(elt.getIntOrFloatBitWidth() / 8), tiles(cfg, D),
      layout(cfg, D, eltBytes,
             dropP > 0.0 && drawsThroughStage(Skv, tiles.nTiles)),
      b(b), func(func), launch(launch), mb(b, elt), kb(mb.kb) {
  W = tiles.warps;
  MT = tiles.mTiles;
  BN = tiles.blockN;
  BM = tiles.blockM;
  T = tiles.threads;
  P = layout.rowElements();
  NT = tiles.nTiles;
  DT = tiles.dTiles;
  KS = tiles.kSteps;
  stages = tiles.stages;
  WG = cfg.wgmma;
  // Warp specialization: consumer threads [0, T), the producer warpgroup
  // [T, T + 128); Q, K and V arrive through tensor maps over the [B, H, S,
  // D] operands, one 64-column (128-byte) swizzled panel per copy.
  WS = cfg.warpSpecialized;
  // `persist`: a grid of at most one block per SM; each block loops over
  // the work items (batch, head, query tile) blockIdx.x + i * gridDim.x,
  // its producer loading the next item's Q and first K/V tiles while the
  // consumers finish the last one.
  PERSIST = cfg.persistent;
  MB = cfg.mbarriers;
  // `tmastore`: O leaves through a fourth map: each consumer warpgroup
  // writes its 64 rows of O into its rows of the Q tile (free after its
  // last S) and one thread stores them with TMA.
  tmaStore = cfg.tmaStore;
  mTilesPerHead = llvm::divideCeil(Sq, BM);
}

void MMAKernel::build() {
  AttentionArgs args = attentionArguments(kb, func, op);
  q = args.q;
  k = args.k;
  v = args.v;
  mask = args.mask;
  seed = args.seed;
  out = args.out;
  lseOut = args.lse;
  setupSharedMemory();
  bid = kb.blockId();
  setupThreads();
  if (!PERSIST)
    coords(bid);
  setupFragmentAddresses();
  setupCopies();
  // Key tiles of this block: all, or up to the last one a row of it sees
  // (per work item, after coords; the additive mask's numpy broadcast
  // strides over [B, Hq, Sq, Skv] give the item's mask base).
  keyTiles = llvm::divideCeil(Skv, BN);
  maskStride = attentionMaskStrides(op);
  if (!PERSIST)
    itemRange();

  double log2e = 1.4426950408889634;
  cScale = kb.f32(op.getEffectiveScale() * log2e);
  negInf = kb.f32(-std::numeric_limits<double>::infinity());

  // Loop-carried state: O fragments [mt][dt], then m and l [mt][r].
  for (int64_t i = 0; i < MT * DT; ++i)
    init.O.push_back(mb.zeroAcc());
  for (int64_t i = 0; i < MT * 2; ++i) {
    init.M.push_back(negInf);
    init.L.push_back(kb.f32(0.0));
  }
  if (!cfg.pipelined)
    singleStage();
  else
    twoStage();
  epilogue();
}

void MMAKernel::setupThreads() {
  tid = kb.threadId();
  warp = arith::DivUIOp::create(b, tid, kb.idx(kWarpSize));
  // The warpgroup index: the wgmma descriptors, the producer/consumer and
  // ping-pong branches derive from it.
  if (WG)
    wgIdxU =
        warpUniform(arith::DivUIOp::create(b, tid, kb.idx(kWarpgroupSize)));
  // Whether this thread is its warpgroup's first (the one that arrives on
  // the empty barriers and issues the O stores).
  if (WG)
    wgLead = mb.cmp(arith::CmpIPredicate::eq,
                    arith::RemUIOp::create(b, tid, kb.idx(kWarpgroupSize)),
                    kb.idx(0));
  lane = arith::RemUIOp::create(b, tid, kb.idx(kWarpSize));
  quadRow = arith::DivUIOp::create(b, lane, kb.idx(4)); // 0..7
  quadCol = mb.mul(arith::RemUIOp::create(b, lane, kb.idx(4)), 2);
  warpRow = mb.mul(warp, kMTileRows * MT); // this warp's first row
}

void MMAKernel::setupFragmentAddresses() {
  FragmentBuilder::LdmatrixLanes lanes = mb.ldmatrixLanes(lane);
  rowA = lanes.rowA;
  colA = lanes.colA;
  rowK = lanes.rowK;
  colK = lanes.colK;
}

void MMAKernel::coords(Value item) {
  // Program coordinates of work item `item` (a block's, or with `persist`
  // each of the items a block loops over); for causal attention the
  // longest rows go first.
  mTile = arith::RemUIOp::create(b, item, kb.idx(mTilesPerHead));
  if (op.getCausal())
    mTile = arith::SubIOp::create(b, kb.idx(mTilesPerHead - 1), mTile);
  Value bh = arith::DivUIOp::create(b, item, kb.idx(mTilesPerHead));
  h = arith::RemUIOp::create(b, bh, kb.idx(Hq));
  batch = arith::DivUIOp::create(b, bh, kb.idx(Hq));
  g = arith::DivUIOp::create(b, h, kb.idx(Hq / Hkv));
  q0 = mb.mul(mTile, BM);
  bhq = mb.add(mb.mul(batch, Hq), h);
  bhkv = mb.add(mb.mul(batch, Hkv), g);
  qSeqBase = mb.mul(bhq, Sq);
  kvSeqBase = mb.mul(bhkv, Skv);
  // Row addresses for the threads' own copies (`ws` loads through tensor
  // maps instead) and stores.
  if (!WS) {
    qRows = rowsOf(heads.q, qSeqBase, h, Sq);
    kRows = rowsOf(heads.k, kvSeqBase, g, Skv);
    vRows = rowsOf(heads.v, kvSeqBase, g, Skv);
  }
  oRows = rowsOf(heads.out, qSeqBase, h, Sq);
}

OperandRows MMAKernel::rowsOf(const HeadLayout &layout, Value seqBase,
                              Value head, int64_t seqLen) {
  return OperandRows::of(mb, layout, seqBase, batch, head, seqLen, D);
}

void MMAKernel::itemRange() {
  // Key tiles of the item: all, or up to the last key its last row sees.
  tileEnd = kb.idx(keyTiles);
  if (visibility.hidesKeys()) {
    Value lim = visibility.buildKeyEnd(b, b.getLoc(), mb.add(q0, BM));
    tileEnd = arith::DivUIOp::create(b, mb.add(lim, BN - 1), kb.idx(BN));
  }
  if (mask)
    maskBase = mb.add(mb.mul(batch, maskStride[0]), mb.mul(h, maskStride[1]));
}

Value MMAKernel::warpUniform(Value v) {
  // `v` (an index below 2^31, the same in every lane of the warp) as lane
  // 0's, through shfl.sync: ptxas then knows it is warp-uniform and keeps
  // what derives from it on the uniform datapath (CUTLASS broadcasts its
  // warpgroup index the same way). Inline PTX although nvvm.shfl.sync idx
  // emits the same instruction: its result is numbered differently in the
  // PTX and ptxas then allocates differently (95 -> 122 registers on a D64
  // causal kernel, 125 -> 95 on another, 8 more bytes of spills on a `ws`
  // D128 one; bench/ptx_snapshot.py compare --ptxas). Kept until timed.
  Value v32 = arith::IndexCastOp::create(b, b.getI32Type(), v);
  return arith::IndexCastOp::create(
      b, b.getIndexType(),
      mb.callAsm("shfl.sync.idx.b32 $0, $1, 0, 0x1f, -1;", "=r,r", {v32},
                 {b.getI32Type()})[0]);
}

void MMAKernel::ifThen(Value cond, function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

void MMAKernel::perWarpgroupBarrier(Value wg, BarrierAction action,
                                    int64_t firstId, int64_t threads) {
  // One branch per warpgroup, so that the id is an immediate (with the id
  // in a register ptxas would reserve all 16 barriers of the block).
  for (int64_t w = 0; w < tiles.warpgroups; ++w) {
    Value is = mb.cmp(arith::CmpIPredicate::eq, wg, kb.idx(w));
    ifThen(is, [&] {
      Value id = kb.i32(static_cast<int32_t>(firstId + w));
      Value count = kb.i32(static_cast<int32_t>(threads));
      if (action == BarrierAction::Sync)
        NVVM::BarrierOp::create(b, TypeRange{}, id, count,
                                NVVM::BarrierReductionAttr(), Value());
      else
        // nvvm.barrier.arrive is a PTX-builder op (inline asm whose "r"
        // operands would put the id in a register, and which needs
        // convert-nvvm-to-llvm); LLVM's intrinsic takes immediates.
        LLVM::CallIntrinsicOp::create(
            b, b.getStringAttr("llvm.nvvm.barrier.cta.arrive.aligned.count"),
            ValueRange{id, count});
    });
  }
}

Value MMAKernel::rowOf(int64_t mt, int64_t r) {
  return mb.add(mb.add(q0, mb.add(warpRow, quadRow)), 16 * mt + 8 * r);
}

Value MMAKernel::keyOf(Value kv0, int64_t nt, int64_t c) {
  return mb.add(mb.add(kv0, quadCol), 8 * nt + c);
}

/// A TMA box of `rows` sequence rows and one 64-column panel of a head in
/// the order of the tensor map over `layout`'s tensor (outermost first).
static SmallVector<int64_t, 4> headBox(const HeadLayout &layout, int64_t rows) {
  if (layout.seqMajor)
    return {1, rows, 1, swizzle::kPanelColumns};
  return {1, 1, rows, swizzle::kPanelColumns};
}

/// The launch of the kernel for `op` with `cfg`: one block per work item,
/// or (`persist`) at most one per SM; with `ws` the tensor maps of Q, K
/// and V (and with `tmastore` of O); heads read and written where `heads`
/// says.
static KernelLaunch attentionLaunch(AttentionOp op, const AttentionConfig &cfg,
                                    int64_t smCount,
                                    const AttentionHeads &heads) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  int64_t D = qType.getDimSize(3);
  Tiles tiles(cfg, D);
  int64_t items = qType.getDimSize(0) * qType.getDimSize(1) *
                  llvm::divideCeil(qType.getDimSize(2), tiles.blockM);
  KernelLaunch launch = attentionLaunchFor(
      op, cfg.persistent ? std::min(items, smCount) : items,
      tiles.threads + (cfg.warpSpecialized ? kWarpgroupSize : 0));
  bool dropoutStages =
      op.getDropoutP().convertToDouble() > 0.0 &&
      drawsThroughStage(
          cast<RankedTensorType>(op.getKey().getType()).getDimSize(2),
          tiles.nTiles);
  launch.sharedMemory =
      SharedLayout(cfg, D, qType.getElementType().getIntOrFloatBitWidth() / 8,
                   dropoutStages)
          .totalBytes();
  // The tensors the kernel reads and writes in place of the op's own.
  const HeadLayout *inputs[] = {&heads.q, &heads.k, &heads.v};
  for (auto [i, layout] : llvm::enumerate(inputs))
    if (layout->tensor)
      launch.operands[i] = layout->tensor;
  if (heads.out.tensor)
    launch.results[0] = heads.out.tensor;
  // One 64-column panel per box.
  if (cfg.warpSpecialized)
    launch.tensorMaps = {{0, headBox(heads.q, tiles.blockM)},
                         {1, headBox(heads.k, tiles.blockN)},
                         {2, headBox(heads.v, tiles.blockN)}};
  if (cfg.tmaStore)
    launch.tensorMaps.push_back({static_cast<unsigned>(op->getNumOperands()),
                                 headBox(heads.out, kWarpgroupRows)});
  if (cfg.persistent) {
    launch.persistentWork = items;
    launch.persistentCtasPerSM = 1;
  }
  return launch;
}

FailureOr<KernelLaunch> sinter::gpu_kernels::buildAttentionMMAKernel(
    AttentionOp op, gpu::GPUModuleOp module, StringRef name,
    const AttentionConfig &cfg, int64_t smCount, const AttentionHeads &heads) {
  KernelLaunch launch = attentionLaunch(op, cfg, smCount, heads);
  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  // A register cap (ptxas .maxnreg) trades spills for blocks per SM. With
  // `ws` the producer gives its registers to the consumers (setmaxnreg;
  // see registerSplit).
  int64_t maxRegs = cfg.maxRegs ? cfg.maxRegs : registerSplit(cfg).launch;
  if (maxRegs)
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  b.getI32IntegerAttr(static_cast<int32_t>(maxRegs)));
  b.setInsertionPointToStart(&func.getBody().front());
  MMAKernel(op, cfg, heads, b, func, launch).build();
  return launch;
}
