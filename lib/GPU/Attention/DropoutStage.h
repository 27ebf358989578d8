//===- DropoutStage.h - Philox words to fragments through smem --*- C++ -*-===//
//
// Part of the Sinter project.
//
// The attention kernels' exchange of dropout draws (Philox.h): one Philox
// call draws the 16-bit numbers of eight consecutive keys of one query,
// 16 bytes, but an MMA accumulator fragment holds per 8-column n-tile a
// 16-bit pair of two rows, so a call's draws belong to four lanes (queries
// as rows: the forward, the backward's query-tile kernel) or eight
// (keys as rows: the backward's key-tile kernel). A warp's 16 rows by two
// n-tiles are 32 calls, one per lane: each lane stores its 16 bytes into a
// 512-byte stage of its own warp, and one ldmatrix.x4 -- transposed when
// the keys are the rows -- reads back the words of the lane's fragments,
// the exchange ldmatrix does for 16-bit operands anyway.
//
//   stage of a warp: 16 query rows x 2 chunks of 8 keys (16 bytes); the
//   two chunks trade places in rows 4-7 and 12-15, so that ldmatrix's eight
//   rows (32 bytes apart) and a quarter-warp's stores each hit all banks.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_DROPOUTSTAGE_H
#define SINTER_LIB_GPU_ATTENTION_DROPOUTSTAGE_H

#include "KernelBuilder.h"
#include "sinter/Conversion/Philox.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/SmallVector.h"

namespace sinter::gpu_kernels::attention {

/// Whether a kernel whose fragments span `nTiles` n-tiles of 8 columns
/// exchanges draws through its stages: a call's eight keys never straddle
/// a row (Skv % 8 == 0) and the n-tiles pair up. Otherwise one call per
/// score.
bool drawsThroughStage(int64_t Skv, int64_t nTiles);

class DropoutStage {
public:
  /// Query rows of a warp's stage (a fragment's 16 rows).
  static constexpr int64_t kRows = 16;
  /// 16-byte chunks per row: the draws of one call each.
  static constexpr int64_t kChunks = 2;
  static constexpr int64_t kChunkBytes = 16;
  static constexpr int64_t kBytesPerWarp = kRows * kChunks * kChunkBytes;
  /// Keys (score columns) of a row: a pair of 8-column n-tiles, the draws
  /// of kChunks calls.
  static constexpr int64_t kColumns = kChunks * kPhiloxDraws;

  /// The stages of `warps` warps at byte `offset` of the dynamic shared
  /// memory `smem` (i8).
  DropoutStage(mlir::ImplicitLocOpBuilder &b, KernelBuilder &kb,
               mlir::Value smem, mlir::Value offset, int64_t warps);

  /// The lane's call: query row lane % 16 of the stage, keys of chunk
  /// lane / 16.
  mlir::Value callRow(mlir::Value lane);
  mlir::Value callChunk(mlir::Value lane);

  /// Draws Philox call `counter` (the lane's, above) under `seed`, exchanges
  /// through warp `warp`'s stage and returns the lane's four words: word m
  /// is ldmatrix's matrix m, stage rows 8 (m / 2).. and chunk m % 2, read
  /// transposed (`keysAsRows`: a pair of draws of two queries, one key) or
  /// not (two keys of one query). Element c of a fragment pair is half c.
  llvm::SmallVector<mlir::Value, 4> exchange(mlir::Value counter,
                                             mlir::Value seed, mlir::Value warp,
                                             mlir::Value lane, bool keysAsRows);

private:
  mlir::Value chunkAt(mlir::Value row, mlir::Value chunk);

  mlir::ImplicitLocOpBuilder &b;
  KernelBuilder &kb;
  /// The same bytes as i32 words (the lanes' stores) and as 16-bit
  /// elements (ldmatrix; f16 only names their width).
  mlir::Value words, halves;
};

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_DROPOUTSTAGE_H
