//===- MMAKernel.h - The tensor-core attention kernel -----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// FlashAttention-2's forward pass on the tensor cores of sm_80 and later
// (mma.sync.m16n8k16, bf16/f16 operands, f32 accumulators), and on sm_90a
// on warpgroup MMA (`wgmma` configurations):
//
//  * one block of `warps` warps per (batch, query head, tile of BM query
//    rows), BM = 16 * mTiles * warps; each warp owns 16 * mTiles rows
//    (wgmma: each warpgroup 64);
//  * Q (BM x D), K and V (BN x D each) live in dynamic shared memory
//    (SharedLayout.h): mma.sync tiles arrive with cp.async (rows past the
//    sequence zero-filled by the copy itself) and are read with ldmatrix;
//    wgmma tiles are 64-column panels in the 128-byte swizzle, read through
//    matrix descriptors, loaded by the threads' cp.async or (`ws`) by a
//    producer warpgroup with TMA;
//  * per key tile: S = Q K^T (MmaSync.cpp, Wgmma.cpp); online softmax on
//    the accumulator fragments in registers (Softmax.cpp); the f32
//    probabilities are packed to bf16/f16 and reused in place as the A
//    operand of O += P V (the m16n8k16 accumulator layout of two adjacent
//    n-tiles is the A layout of one k-step), V read transposed;
//  * the loops over key tiles (MainLoop.cpp): one stage (V of tile t loads
//    while S of tile t is computed, K of tile t+1 while P V of tile t is),
//    or two (`pipe`: S of tile t overlapping P V of tile t-1), with
//    mbarriers (`mbar`), ping-pong between warpgroups (`pp`), a producer
//    warpgroup (`ws`, Producer.cpp) and persistent blocks (`persist`);
//    causal blocks stop at their last visible key tile, and only tiles
//    that cross the diagonal or the sequence end pay for the per-element
//    mask; heavy causal blocks are scheduled first;
//  * O / l and the logsumexp leave from registers or, with `tmastore`,
//    through shared memory and TMA (Epilogue.cpp).
//
// Peak memory is O(S): nothing of size Sq x Skv is ever materialised. Why
// each form exists: docs/Rationale.md, "Attention on Hopper".
//
// MMAKernel holds the values of one kernel under construction; its methods
// are spread over the files of this folder, one seam each.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_MMAKERNEL_H
#define SINTER_LIB_GPU_ATTENTION_MMAKERNEL_H

#include "Config.h"
#include "DropoutStage.h"
#include "Fragments.h"
#include "SharedLayout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <string>

namespace sinter::gpu_kernels::attention {

/// The accumulators a key loop carries per thread: O's tiles [mt][dt], and
/// each row's reference max m and sum l [mt][r].
struct RowState {
  llvm::SmallVector<mlir::Value> O, M, L;
};

class MMAKernel : AttentionShape {
public:
  MMAKernel(AttentionOp op, const AttentionConfig &cfg,
            const AttentionHeads &heads, mlir::ImplicitLocOpBuilder &b,
            mlir::gpu::GPUFuncOp func, const KernelLaunch &launch);
  /// Builds the kernel's body at the builder's insertion point.
  void build();

private:
  // Kernel.cpp: the block's place in the work, its threads, its tiles.
  void setupSharedMemory();
  mlir::Value view(mlir::Value byteOffset, int64_t rows);
  mlir::Value stageTile(int64_t base, mlir::Value t);
  mlir::Value kTile(mlir::Value t);
  mlir::Value vTile(mlir::Value t);
  void setupThreads();
  void setupFragmentAddresses();
  void coords(mlir::Value item);
  /// The rows of (batch, `head`) of an operand laid out as `layout`, whose
  /// dense form starts at flat row `seqBase` of `seqLen`-row heads.
  OperandRows rowsOf(const HeadLayout &layout, mlir::Value seqBase,
                     mlir::Value head, int64_t seqLen);
  void itemRange();
  mlir::Value warpUniform(mlir::Value v);
  void ifThen(mlir::Value cond, llvm::function_ref<void()> body);
  /// Named barrier `firstId + wg` of `threads` threads (bar.sync or
  /// bar.arrive), with the id an immediate.
  enum class BarrierAction { Sync, Arrive };
  void perWarpgroupBarrier(mlir::Value wg, BarrierAction action,
                           int64_t firstId, int64_t threads);
  /// Query row of fragment row (mt, r), key of fragment column (nt, c) of
  /// the key tile at kv0.
  mlir::Value rowOf(int64_t mt, int64_t r);
  mlir::Value keyOf(mlir::Value kv0, int64_t nt, int64_t c);

  // Producer.cpp: loads (cp.async, TMA), mbarriers, the producer warpgroup.
  void setupCopies();
  void copyTile(mlir::Value src, const OperandRows &srcRows, mlir::Value row0,
                int64_t rows, int64_t seqLen, mlir::Value dst);
  void copyPass(mlir::Value src, const OperandRows &srcRows, mlir::Value row0,
                int64_t rows, int64_t seqLen, mlir::Value dst, int64_t pass);
  void waitAll(int32_t pending = 0);
  mlir::Value barAddr(int kind, mlir::Value tile);
  mlir::Value parity(mlir::Value tile);
  void barWait(int kind, mlir::Value tile);
  void barArrive(int kind, mlir::Value tile);
  void copyArrive(int kind, mlir::Value tile);
  mlir::Value qUse(mlir::Value j);
  mlir::Value gt(mlir::Value t);
  void tmaTile(mlir::Value map, const HeadLayout &layout, mlir::Value dst,
               int64_t rows, mlir::Value row0, mlir::Value head, int kind,
               mlir::Value tile);
  /// A TMA box's coordinates {column, row0, head, batch} in the order of
  /// the tensor map over `layout`'s tensor, innermost first, as i32.
  llvm::SmallVector<mlir::Value, 4> boxCoordinates(const HeadLayout &layout,
                                                   mlir::Value col,
                                                   mlir::Value row0,
                                                   mlir::Value head);
  void initBarriers();
  void producerWarpgroup();
  void producerLoads();

  // MmaSync.cpp: S = Q K^T and O += P V on mma.sync.
  llvm::SmallVector<mlir::Value> mmaS(mlir::Value kTile);
  llvm::SmallVector<mlir::Value, 4> pOperand(llvm::ArrayRef<mlir::Value> S,
                                             int64_t mt, int64_t kk);
  llvm::SmallVector<mlir::Value> mmaPV(llvm::SmallVector<mlir::Value> O,
                                       llvm::ArrayRef<mlir::Value> S,
                                       mlir::Value vTile);

  // Wgmma.cpp: the same on wgmma.
  llvm::SmallVector<mlir::Value> issueS(mlir::Value kTile);
  llvm::SmallVector<mlir::Value> pRegisters(llvm::ArrayRef<mlir::Value> S);
  llvm::SmallVector<mlir::Value> issuePV(llvm::ArrayRef<mlir::Value> acc,
                                         llvm::ArrayRef<mlir::Value> pRegs,
                                         mlir::Value vTile);
  std::pair<llvm::SmallVector<mlir::Value>, llvm::SmallVector<mlir::Value>>
  fenceOP(llvm::ArrayRef<mlir::Value> O, llvm::ArrayRef<mlir::Value> pRegs);
  llvm::SmallVector<mlir::Value> waitGroup(int pending,
                                           llvm::ArrayRef<mlir::Value> acc);
  void commitGroup();

  // Softmax.cpp: masks and the online softmax.
  llvm::SmallVector<mlir::Value>
  maskScores(llvm::SmallVector<mlir::Value> S, mlir::Value kv0,
             llvm::ArrayRef<mlir::Value> maskTile = {});
  mlir::Value tileNeedsMask(mlir::Value kv0);
  llvm::SmallVector<mlir::Value> hideKeys(llvm::ArrayRef<mlir::Value> S,
                                          mlir::Value kv0);
  mlir::Value softmax(llvm::SmallVector<mlir::Value> &S, RowState &st,
                      mlir::Value kv0, llvm::SmallVector<mlir::Value> &alpha);
  void softmaxRow(llvm::SmallVector<mlir::Value> &S, RowState &st,
                  mlir::Value kv0, int64_t mt, int64_t r, mlir::Value &alpha,
                  mlir::Value &anyGrow);
  llvm::SmallVector<mlir::Value> rescale(llvm::SmallVector<mlir::Value> O,
                                         mlir::Value anyGrow,
                                         llvm::ArrayRef<mlir::Value> alpha);

  // Mask.cpp: the additive mask's values of a key tile.
  bool maskByPairs() const;
  bool maskLoadedAhead() const;
  llvm::SmallVector<mlir::Value> loadMask(mlir::Value kv0);
  void addMask(llvm::SmallVector<mlir::Value> &S,
               llvm::ArrayRef<mlir::Value> maskTile);

  // Dropout.cpp: dropout of P (after the row sums) from the Philox stream.
  void dropout(llvm::SmallVector<mlir::Value> &S, mlir::Value kv0);
  mlir::Value dropoutRow(int64_t mt, int64_t r);
  mlir::Value keepP(mlir::Value pc, mlir::Value keep);
  void dropoutElements(llvm::SmallVector<mlir::Value> &S, mlir::Value kv0);
  void dropoutGroups(llvm::SmallVector<mlir::Value> &S, mlir::Value kv0);

  /// 1 / (1 - dropout_p), which the epilogue folds into 1 / l.
  double dropoutKeptScale() const;

  // MainLoop.cpp: the loops over key tiles.
  void singleStage();
  void singleStageBody(mlir::scf::ForOp loop);
  void twoStage();
  mlir::scf::ForOp itemLoop(bool uniform);
  void consumerSetup();
  mlir::scf::IfOp prologue(int64_t nP);
  void namedBarrier(BarrierAction action, mlir::Value wgOfTurn);
  void steadyStateBody(mlir::scf::ForOp loop);
  void consumerLoads(mlir::Value t, mlir::Value kv0, mlir::Value tPrev);
  void lastPV(llvm::ArrayRef<mlir::Value> Olast,
              llvm::ArrayRef<mlir::Value> Plast);

  // Epilogue.cpp: O / l, the logsumexp, the O stores.
  void epilogue();
  void storeRow(int64_t mt, int64_t r);
  void stageOForTma(int64_t mt, int64_t r, mlir::Value inv2);
  void storeOTma();
  void wgBarrier();
  void storesRead();

  // The op and its shape.
  AttentionOp op;
  const AttentionConfig &cfg;
  /// Where Q, K, V and O live (dense, or heads in place).
  const AttentionHeads &heads;
  /// Which keys each query row sees.
  KeyVisibility visibility;
  int64_t eltBytes;
  Tiles tiles;
  int64_t W, MT, BN, BM, T, P, NT, DT, KS, stages;
  bool WG, WS, PERSIST, MB, tmaStore;
  int64_t mTilesPerHead; // query tiles of one head
  SharedLayout layout;

  // The kernel under construction.
  mlir::ImplicitLocOpBuilder &b;
  mlir::gpu::GPUFuncOp func;
  const KernelLaunch &launch;
  FragmentBuilder mb;
  KernelBuilder &kb;

  // Buffers.
  mlir::Value q, k, v, mask, seed, out, lseOut;
  mlir::Value smem, smemPad, qs, os;
  /// With dropout exchanged through stages (drawsThroughStage).
  std::optional<DropoutStage> drawStage;
  // The work item (set per item with `persist`).
  mlir::Value bid, mTile, h, batch, g, q0, bhq, bhkv, qSeqBase, kvSeqBase;
  mlir::Value tileEnd, maskBase;
  OperandRows qRows, kRows, vRows, oRows;
  llvm::SmallVector<int64_t> maskStride;
  int64_t keyTiles;
  // The thread's place.
  mlir::Value tid, warp, wgIdxU, wgLead, lane, quadRow, quadCol, warpRow;
  mlir::Value rowA, colA, rowK, colK; // ldmatrix row addresses
  int64_t chunks, vecElems;           // 16-byte copies per row, elements each
  mlir::Value chunkRow, chunkCol, wgPanelOff, wgRowInAtom;
  mlir::Value cScale, negInf;
  // The loops.
  RowState init, final;
  mlir::scf::ForOp consumerItems;    // `persist`: the consumers' item loop
  mlir::Value any, tileBase, itemNo; // two-stage: per work item
  mlir::Value barBase;
  llvm::SmallVector<mlir::Value> tensorMaps;
};

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_MMAKERNEL_H
