//===- Config.h - Tile configurations of the attention kernels --*- C++ -*-===//
//
// Part of the Sinter project.
//
// What a tensor-core attention configuration (AttentionConfig, Kernels.h)
// implies beyond its fields: the tile sizes every part of the kernel
// derives from it, and how `ws` splits the register file.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_CONFIG_H
#define SINTER_LIB_GPU_ATTENTION_CONFIG_H

#include "Kernels.h"
#include "TargetInfo.h"

namespace sinter::gpu_kernels::attention {

/// Threads of a warpgroup (wgmma's unit: four warps of TargetInfo.h's
/// kWarpSize).
inline constexpr int64_t kWarpgroupSize = 4 * kWarpSize;
/// Query rows of one m-tile (mma.sync m16n8k16: 16 rows per warp).
inline constexpr int64_t kMTileRows = 16;
/// Query rows of one warpgroup's wgmma (m64nNk16).
inline constexpr int64_t kWarpgroupRows = 64;

/// Registers per thread the fragments (O, S and P) may take in forms
/// without `ws`'s split, of the 255 a thread has: the rest hold addresses,
/// row statistics and the loop.
inline constexpr int64_t kTileRegisterBudget = 240;
/// The producer warpgroup of `ws` only issues TMA copies: it keeps the
/// fewest registers setmaxnreg allows.
inline constexpr int64_t kProducerRegisters = kSetMaxNRegMin;

/// How far (log2 units) a row's max may exceed its reference before the
/// accumulators are rescaled (docs/Rationale.md, "Lazy rescaling").
inline constexpr double kLazyRescale = 8.0;

/// The tile sizes of one configuration on one op.
struct Tiles {
  Tiles(const AttentionConfig &cfg, int64_t headDim);
  int64_t warps;      // W: warps of the consumers
  int64_t mTiles;     // MT: 16-row m-tiles per warp
  int64_t blockN;     // BN: keys per K/V tile
  int64_t blockM;     // BM: query rows per block (16 * MT * W)
  int64_t threads;    // T: consumer threads (32 * W)
  int64_t nTiles;     // NT: 8-key n-tiles of S per m-tile
  int64_t dTiles;     // DT: 8-column n-tiles of O per m-tile
  int64_t kSteps;     // KS: k16 steps of S = Q K^T
  int64_t stages;     // K/V buffers (two with `pipe`)
  int64_t warpgroups; // consumer warpgroups (W / 4)
};

/// How `ws` splits the register file: the kernel launches at `launch`
/// registers per thread (ptxas .maxnreg), then the producer warpgroup
/// drops to `producer` and the consumers rise to `consumer` (setmaxnreg).
/// Two consumer warpgroups and a producer (384 threads) launch at 168 and
/// rise to 240; three (512 threads) at 128 and rise to 160. Forms without
/// the split keep the tile budget as `consumer` and no launch cap (launch
/// = 0).
struct RegisterSplit {
  int64_t launch = 0, producer = 0, consumer = 0;
};
RegisterSplit registerSplit(const AttentionConfig &cfg);

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_CONFIG_H
