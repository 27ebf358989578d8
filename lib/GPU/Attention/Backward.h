//===- Backward.h - The tensor-core attention backward ----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The attention backward pass in two MMA forms (BackwardMMA): on sm_90a the
// main kernel's five products run on wgmma (one warpgroup, m64n64k16, K/V
// and Q/dO in 128-byte-swizzled shared memory, BackwardWgmma.cpp); elsewhere,
// or with attention-backward=mma-sync, FlashAttention-2's form on
// mma.sync.m16n8k16 (sm_80 and later). Both take bf16/f16 operands and f32
// accumulators, as three launches (kernels <name>,
// <name>_1 and <name>_2, the outliner's names for an op's launches):
//
//  1. prepare: delta[i] = sum_d dO[i,d] O[i,d] per query row, and an f32
//     accumulator of dQ set to zero;
//  2. the main kernel: one block of kWarps warps per (batch, key/value
//     head, tile of BN keys). K and V of the tile stay in shared memory;
//     each warp owns 16 keys. The block walks the query tiles (BM rows) of
//     every query head of its group that see a key of the tile (causal:
//     from KeyVisibility::buildQueryBegin on), and per tile, from the
//     transposed products so that the keys are the fragments' rows:
//
//       S^T  = K Q^T            P^T = exp(scale S^T - lse)   (hidden: 0)
//       dP^T = V dO^T           dS^T = P^T (dP^T - delta)
//       dV  += P^T dO           dK  += dS^T Q                (registers)
//       dQ  += dS K             (dS^T through shared memory, f32 atomics;
//                                with wgmma, each warp's 16 rows staged in
//                                shared memory and added by bulk reductions)
//
//     P^T and dS^T are rounded to the operand type for the products, as
//     FlashAttention and cuDNN round them (the op's contract); an additive
//     mask is read in place through its broadcast strides and added to the
//     scores (its gradient takes the reference form); dropout's mask is
//     regenerated from the Philox stream (BackwardDropout.cpp);
//  3. finish: dQ = scale * the accumulator, rounded once.
//
// dK and dV of a key/value head sum over the query heads of its group in
// registers (no atomics). dQ's atomics make the order of its sums vary: a
// `deterministic` op instead gets dQ from a third kernel with the queries
// as rows (BackwardQueryKernel.cpp: one block per 64-query tile walks the
// key tiles its rows see, recomputes P and dS, and sums dS K in registers),
// and the main kernel leaves dQ out. Nothing of size
// Sq x Skv is stored. Why FA2's structure first: docs/Rationale.md,
// "Attention backward on the tensor cores".
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_BACKWARD_H
#define SINTER_LIB_GPU_ATTENTION_BACKWARD_H

#include "Config.h"
#include "DropoutStage.h"
#include "Fragments.h"

#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace sinter::gpu_kernels::attention {

/// Which tiles a block of the backward owns: a key tile (the main kernel:
/// dK, dV and, with atomics, dQ) or a query tile (`deterministic`'s dQ).
enum class BackwardRole { KeyTiles, QueryTiles };

/// How the key-tile kernel multiplies: mma.sync on ldmatrix fragments of
/// padded tiles (sm_80 and later), or wgmma on descriptors of tiles in the
/// 128-byte swizzle (sm_90a; BackwardWgmma.cpp). The query-tile kernel is
/// mma.sync's.
enum class BackwardMMA { MmaSync, Wgmma };

/// The tiles of the backward kernel at head dim D.
struct BackwardTiles {
  BackwardTiles(int64_t headDim, BackwardMMA mma, bool deterministic);
  static constexpr int64_t kWarps = 4;
  static constexpr int64_t kThreads = kWarps * kWarpSize;
  /// Keys per block: 16 per warp (the m16 rows of S^T).
  static constexpr int64_t kBlockN = kWarps * kMTileRows;
  /// Query rows per step of the key-tile kernel (blockM below).
  static constexpr int64_t kBlockM = 32;
  /// With wgmma: 64, the N of S^T = K Q^T and the M of dQ = dS K (one
  /// warpgroup's m64).
  static constexpr int64_t kWgmmaBlockM = kWarpgroupRows;
  /// Queries per block of the query-tile kernel: 16 per warp.
  static constexpr int64_t kBlockQ = kWarps * kMTileRows;
  int64_t D;
  BackwardMMA mma;
  /// Query rows per step (mma.sync): 32. At D > 64 the dK and dV accumulators
  /// (2 x D/2 f32 per thread) leave no room for more S^T and dP^T; at D64, 64
  /// rows measured 5% slower on the H200 (GPT-2's causal shape 0.335 ->
  /// 0.318 ms with 32, B16 H16 S1024 1.40 -> 1.35 ms; bench/NOTES.md): the
  /// causal diagonal is skipped at a finer grain, at the same registers.
  int64_t blockM;
  /// 8-query n-tiles of S^T per warp; k16 steps over D; 8-column tiles of D.
  int64_t qTiles, kSteps, dTiles;
  /// dQ = dS K: the warps split BM rows into 16-row groups and, when fewer
  /// groups than warps, D into column slices.
  int64_t dqRowGroups, dqColumnSlices, dqSliceTiles;
  /// Elements per shared row of Q, dO, K, V and of dS: mma.sync pads them
  /// by 16 bytes (D + 8, BN + 8), which spreads ldmatrix's rows over the
  /// banks; wgmma's swizzled panels are unpadded.
  int64_t rowElements, dsRowElements;
  /// wgmma with atomics: f32 elements per row of the dQ tile staged in
  /// shared memory for its bulk reduction (D + 8: a warp's 8-byte fragment
  /// stores then fill distinct banks); 0 without the staging.
  int64_t dqStageRowElements;
  /// wgmma: the query tile's lse and delta (BM f32 each) are copied into
  /// shared memory with its Q and dO, so that the scores' epilogue does not
  /// wait on global loads.
  bool stagesRowStatistics;
  /// Stages of the query tile (Q, dO and their staged lse/delta). wgmma: 2,
  /// tile i + 1 copied into one while tile i is multiplied from the other;
  /// dQ's f32 tile is staged in the consumed stage's place once dV and dK
  /// have read its Q and dO. mma.sync: 1, the next tile copied during dQ.
  int64_t queryStages;
  /// Bytes of one query stage of `role`'s kernel: its Q and dO, or dQ's
  /// staged tile where larger; wgmma rounds it to the swizzle's atom, so
  /// that every stage's panels stay aligned.
  int64_t stageBytes(BackwardRole role, int64_t eltBytes) const;
  /// With dropout: each warp's 512-byte stage of Philox draws.
  static int64_t dropoutStageBytes(bool dropout);
  /// The tiles' bytes (from the aligned base; the draw stage follows).
  int64_t tileBytes(BackwardRole role, int64_t eltBytes) const;
  int64_t sharedBytes(BackwardRole role, int64_t eltBytes, bool dropout) const;
};

class BackwardKernel : AttentionShape {
public:
  /// `heads`: where dO, Q, K and V are read (planAttentionBackwardHeads).
  BackwardKernel(AttentionBackwardOp op, BackwardRole role, BackwardMMA mma,
                 mlir::ImplicitLocOpBuilder &b, mlir::gpu::GPUFuncOp func,
                 int64_t smVersion, const AttentionHeads &heads);
  /// Builds the kernel's body at the builder's insertion point. Its
  /// arguments: dO, Q, K, V, lse, delta, then for key tiles dQ's f32
  /// accumulator (not when `deterministic`), dK and dV; for query tiles dQ.
  void build();

private:
  // The block's work and the thread's place.
  void setupSharedMemory();
  mlir::Value tile(int64_t byteOffset, int64_t rows, int64_t rowElements);
  mlir::Value tile(mlir::Value byteOffset, int64_t rows, int64_t rowElements);
  mlir::Value f32Tile(mlir::Value byteOffset, int64_t elements);
  /// The shared tiles of the query stage that holds tile `item`: Q, dO,
  /// and with wgmma the staged lse/delta and dQ's stage (null where the
  /// kernel has none).
  struct QueryStage {
    mlir::Value q, dO, stats, dqStage;
  };
  QueryStage queryStage(mlir::Value item);
  void setupThreads();
  void coords();
  // Loads: 16-byte cp.async copies, rows past the sequence zero-filled.
  void copyRows(mlir::Value src, const OperandRows &from, mlir::Value row0,
                int64_t rows, int64_t seqLen, mlir::Value dst);
  /// The rows of query head `bhq` (batch * Hq + head) of Q or dO (`layout`).
  OperandRows queryRows(const HeadLayout &layout, mlir::Value bhq);
  /// The rows of the block's key/value head of K or V (`layout`).
  OperandRows keyRows(const HeadLayout &layout);
  void issueQueryTile(mlir::Value item, const QueryStage &to);
  /// Tile item + 1 into its stage, when there is one.
  void issueNextQueryTile(mlir::Value item);
  void copyRowStatistics(mlir::Value bhq, mlir::Value q0, mlir::Value to);
  void queryItem(mlir::Value item, mlir::Value &bhq, mlir::Value &q0);
  // The products (mma.sync, one warp's 16 keys).
  llvm::SmallVector<mlir::Value> keysTimesQueryTile(mlir::Value keyTile,
                                                    mlir::Value queryTile);
  llvm::SmallVector<mlir::Value>
  accumulate(llvm::SmallVector<mlir::Value> acc,
             llvm::ArrayRef<mlir::Value> transposedScores,
             mlir::Value queryTile);
  mlir::Value aOperand(llvm::ArrayRef<mlir::Value> tiles, int64_t kk);
  // Probabilities and their gradient.
  /// From `staged` (a stage's lse/delta), or global memory when null.
  void rowStatistics(mlir::Value bhq, mlir::Value q0, mlir::Value staged,
                     llvm::SmallVector<mlir::Value> &lse,
                     llvm::SmallVector<mlir::Value> &delta);
  mlir::Value seesKey(mlir::Value query, mlir::Value key);
  mlir::Value visible(mlir::Value q0, int64_t nt, int64_t r, int64_t c);
  mlir::Value scaledLse(mlir::Value lse2);
  mlir::Value maskPair(mlir::Value bhq, mlir::Value i, mlir::Value j,
                       bool alongQueries);
  // Dropout (BackwardDropout.cpp): the keep decisions of a step's scores,
  // per (n-tile, fragment row) a vector<2xi1>, drawn per pair of n-tiles.
  bool dropoutStaged() const;
  void setupDropout(mlir::Value seedArg, int64_t byteOffset);
  mlir::Value dropoutOffset(mlir::Value bhq, mlir::Value query,
                            mlir::Value key);
  /// Of n-tiles 2 np and 2 np + 1: [2 (nt - 2 np) + r].
  llvm::SmallVector<mlir::Value> dropoutKeeps(mlir::Value bhq, mlir::Value q0,
                                              mlir::Value kv0, int64_t np);
  mlir::Value keptGradient(mlir::Value keep, mlir::Value dP);
  mlir::Value keptProbability(mlir::Value keep, mlir::Value p);
  double keptScale() const;
  void scoreGradients(llvm::SmallVector<mlir::Value> &S,
                      llvm::SmallVector<mlir::Value> &dP, mlir::Value bhq,
                      mlir::Value q0, llvm::ArrayRef<mlir::Value> lse,
                      llvm::ArrayRef<mlir::Value> delta);
  // dQ.
  void storeTransposed(llvm::ArrayRef<mlir::Value> dS);
  void storeTransposedStmatrix(llvm::ArrayRef<mlir::Value> dS);
  void accumulateQueryGradient(mlir::Value bhq, mlir::Value q0);
  // The query-tile kernel (BackwardQueryKernel.cpp).
  void buildQueryGradient();
  void queryCoords(mlir::Value &bhq, mlir::Value &q0, mlir::Value &keyTiles);
  mlir::Value visibleInRow(mlir::Value q0, mlir::Value kv0, int64_t nt,
                           int64_t r, int64_t c);
  void rowGradients(llvm::SmallVector<mlir::Value> &S,
                    llvm::SmallVector<mlir::Value> &dP, mlir::Value bhq,
                    mlir::Value q0, mlir::Value kv0,
                    llvm::ArrayRef<mlir::Value> lse2,
                    llvm::ArrayRef<mlir::Value> deltas);
  void storeQueryGradient(llvm::ArrayRef<mlir::Value> acc, mlir::Value bhq,
                          mlir::Value q0);
  // The key-tile kernel on wgmma (BackwardWgmma.cpp).
  void mainLoopWgmma();
  void prefetchQueryTile(mlir::Value item);
  llvm::SmallVector<mlir::Value> issueTransposedScores(mlir::Value keyTile,
                                                       mlir::Value queryTile);
  llvm::SmallVector<mlir::Value>
  issueAccumulate(llvm::ArrayRef<mlir::Value> acc,
                  llvm::ArrayRef<mlir::Value> aRegs, mlir::Value queryTile);
  llvm::SmallVector<mlir::Value>
  operandRegisters(llvm::ArrayRef<mlir::Value> transposedScores);
  void storeScoreGradientSwizzled(llvm::ArrayRef<mlir::Value> dS);
  void queryGradientWgmma(mlir::Value bhq, mlir::Value q0, mlir::Value dqStage);
  void reduceQueryGradient(llvm::ArrayRef<mlir::Value> acc, mlir::Value bhq,
                           mlir::Value q0, mlir::Value dqStage);
  // dQ's f32 atomic adds of a thread's fragments (rows row0.., columns
  // col0.. of the query tile at q0).
  void addQueryGradient(llvm::ArrayRef<mlir::Value> acc, mlir::Value row0,
                        mlir::Value col0, mlir::Value bhq, mlir::Value q0);
  // The loop and the results.
  void mainLoop();
  void storeKeyGradients(llvm::ArrayRef<mlir::Value> dK,
                         llvm::ArrayRef<mlir::Value> dV);

  AttentionBackwardOp op;
  AttentionHeads heads;
  BackwardRole role;
  BackwardMMA mmaKind;
  bool deterministic;
  KeyVisibility visibility;
  /// sm_90's stmatrix writes dS^T transposed (before: 2-byte stores).
  bool stmatrix;
  /// The additive mask's strides over [B, Hq, Sq, Skv] (0: broadcast).
  llvm::SmallVector<int64_t> maskStride;
  int64_t eltBytes;
  BackwardTiles tiles;
  int64_t BM, BN, QT, DT, KS;
  mlir::ImplicitLocOpBuilder &b;
  mlir::gpu::GPUFuncOp func;
  FragmentBuilder mb;
  KernelBuilder &kb;

  // Buffers (flat) and shared tiles.
  mlir::Value dOut, q, k, v, lse, delta, mask, seed, dqAcc, dK, dV, dQ;
  /// With dropout (Skv % 8 == 0): the warps' stages of Philox draws.
  std::optional<DropoutStage> drawStage;
  /// qs and dos: the first query stage's tiles.
  mlir::Value smem, smemPad, ks, vs, qs, dos, dss;
  /// Byte offsets of the first query stage and (stagesRowStatistics) of
  /// the stages' lse/delta: per stage lse (BM f32), then delta (BM f32).
  int64_t stagesAt = 0, statsAt = 0;
  // The block's key tile and head.
  mlir::Value batch, hkv, n0, kvSeqBase, firstTile, queryTiles, items;
  // The thread.
  mlir::Value tid, warp, lane, quadRow, quadCol, warpKey;
  mlir::Value rowA, colA, rowK, colK; // ldmatrix row addresses
  mlir::Value chunkRow, chunkCol;
  // wgmma: a copied chunk's swizzled place in its row, and its panel.
  mlir::Value swizzledChunk, chunkPanel;
  int64_t chunks, vecElems;
  mlir::Value cScale, log2e;
};

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_BACKWARD_H
