//===- SharedLayout.h - Shared memory of the attention kernels --*- C++ -*-===//
//
// Part of the Sinter project.
//
// Where the tensor-core attention kernel keeps its tiles and barriers in
// dynamic shared memory, the 128-byte swizzle its wgmma tiles use, and the
// wgmma matrix descriptor that reads them, as named fields.
//
//   [1024 B of slack (wgmma: the tiles start 1024-aligned)]
//   [Q: BM rows][K: stages x BN rows][V: stages x BN rows][O: BM rows, only
//    persist+tmastore][mbarriers: 8 bytes each][dropout: the consumer
//    warps' stages of Philox draws (DropoutStage.h)]
//
// mma.sync tiles are row-major with rows padded by 16 bytes (ldmatrix's
// eight row addresses then fall in distinct banks); wgmma tiles are
// 64-column panels in the 128-byte swizzle (below).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_SHAREDLAYOUT_H
#define SINTER_LIB_GPU_ATTENTION_SHAREDLAYOUT_H

#include "Config.h"

#include <cstdint>

namespace sinter::gpu_kernels::attention {

/// wgmma's 128-byte swizzle, for 2-byte elements (bf16/f16). A tile is
/// split into 64-column panels of `rows` x 128 bytes; 16-byte chunk c (0..7)
/// of row r of a panel sits at r * 128 + ((c ^ (r % 8)) * 16). The pattern
/// repeats every 8 rows (an "atom" of 1024 bytes), so tiles start
/// 1024-aligned.
namespace swizzle {
inline constexpr int64_t kRowBytes = 128;
inline constexpr int64_t kChunkBytes = 16;
inline constexpr int64_t kChunksPerRow = kRowBytes / kChunkBytes; // 8
inline constexpr int64_t kAtomRows = 8;
inline constexpr int64_t kAtomBytes = kAtomRows * kRowBytes;        // 1024
inline constexpr int64_t kElementBytes = 2;                         // bf16/f16
inline constexpr int64_t kPanelColumns = kRowBytes / kElementBytes; // 64
inline constexpr int64_t kChunkElements = kChunkBytes / kElementBytes;
/// Bytes a k16 step of a wgmma moves along a K-major row.
inline constexpr int64_t kKStepBytes = 16 * kElementBytes; // 32
inline constexpr int64_t kKStepsPerPanel = kPanelColumns / 16;
/// Byte offset of k16 step `kstep` in a K-major tile of `rows` rows: the
/// step's 32 bytes within its 64-column panel, panels `rows` x 128 bytes
/// apart.
inline constexpr int64_t kStepOffset(int64_t kstep, int64_t rows) {
  return (kstep / kKStepsPerPanel) * rows * kRowBytes +
         (kstep % kKStepsPerPanel) * kKStepBytes;
}
/// Byte offset of the k16 step `kstep` (rows 16 kstep..) of an N-major
/// tile (its K along the rows).
inline constexpr int64_t kRowStepOffset(int64_t kstep) {
  return kstep * 16 * kRowBytes;
}
} // namespace swizzle

/// The wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
/// Format"): 64 bits, addresses and byte offsets stored >> 4.
///   bits  0-13  start address
///   bits 16-29  leading dimension byte offset (LBO)
///   bits 32-45  stride dimension byte offset (SBO)
///   bits 49-51  matrix base offset (0: the tiles are 1024-aligned)
///   bits 62-63  swizzle mode
/// The kernel builds it as two 32-bit halves: the low one holds the start
/// address and the LBO, the high one the SBO, base offset and swizzle, a
/// constant. Shared addresses stay below 2^18, so adding an offset to the
/// low half never carries out of the 14-bit start field: one 32-bit add per
/// k-step.
struct WgmmaDescriptor {
  enum class Swizzle : uint32_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };
  static constexpr unsigned kEncodeShift = 4;
  static constexpr unsigned kStartAddressBits = 14;
  /// The part of a shared address the start field holds (before >> 4).
  static constexpr uint32_t kAddressMask =
      (1u << (kStartAddressBits + kEncodeShift)) - 1; // 0x3FFFF
  static constexpr unsigned kLeadingByteOffsetShift = 16;
  // Fields of the high half (bit positions minus 32).
  static constexpr unsigned kStrideByteOffsetShift = 32 - 32;
  static constexpr unsigned kBaseOffsetShift = 49 - 32;
  static constexpr unsigned kSwizzleShift = 62 - 32;

  int64_t leadingByteOffset;
  int64_t strideByteOffset;
  Swizzle swizzle = Swizzle::B128;
  int64_t baseOffset = 0;

  static constexpr int64_t encode(int64_t bytes) {
    return bytes >> kEncodeShift;
  }
  /// The low half's constant part (the LBO field).
  constexpr int32_t lowConstant() const {
    return static_cast<int32_t>(encode(leadingByteOffset)
                                << kLeadingByteOffsetShift);
  }
  /// The high half (SBO, base offset, swizzle).
  constexpr int64_t high() const {
    return encode(strideByteOffset) << kStrideByteOffsetShift |
           baseOffset << kBaseOffsetShift |
           static_cast<int64_t>(swizzle) << kSwizzleShift;
  }
};

/// The two operand layouts the kernel reads by descriptor.
/// K-major (Q and K of S = Q K^T): 8-row groups one atom apart (SBO), LBO
/// unused (encoded 1); a k16 step moves the start 32 bytes, the next panel
/// `rows` x 128 bytes.
inline constexpr WgmmaDescriptor kKMajor{16, swizzle::kAtomBytes};
/// N-major (V of P V, read transposed): 64-column panels `rows` x 128 bytes
/// apart (LBO), 8-key groups one atom apart (SBO).
inline constexpr WgmmaDescriptor nMajor(int64_t rows) {
  return WgmmaDescriptor{rows * swizzle::kRowBytes, swizzle::kAtomBytes};
}

/// The mbarriers of the `mbar` forms, two 8-byte words per kind (one per
/// stage; Q's use the first): full[K|V] complete when a stage's tile
/// landed, empty[K|V] when the consumers are done reading it; with `ws`,
/// Q's full, and with `persist` Q's empty.
enum BarrierKind {
  FullK = 0,
  FullV = 1,
  EmptyK = 2,
  EmptyV = 3,
  FullQ = 4,
  EmptyQ = 5
};
inline constexpr int64_t kBarrierBytes = 8;
inline constexpr int64_t kBarrierKindBytes = 2 * kBarrierBytes;

/// Byte offsets (from the aligned start) of the kernel's shared memory.
struct SharedLayout {
  /// `dropoutStages`: with dropout exchanged through stages
  /// (drawsThroughStage), one per consumer warp.
  SharedLayout(const AttentionConfig &cfg, int64_t headDim, int64_t eltBytes,
               bool dropoutStages = false);

  /// Elements per tile row (mma.sync rows are padded by 16 bytes).
  int64_t rowElements() const { return rowElems; }
  int64_t kTile(int64_t stage) const {
    return bm * rowBytes() + stage * tileBytes();
  }
  int64_t vTile(int64_t stage) const {
    return kTile(0) + (stages + stage) * tileBytes();
  }
  /// O's own tile (persist + tmastore; otherwise O reuses Q's).
  int64_t oTile() const { return (bm + 2 * stages * bn) * rowBytes(); }
  int64_t barriers() const { return oTile() + oRows * rowBytes(); }
  /// The dropout stages, after the barriers.
  int64_t dropoutStages() const { return barriers() + barrierBytes(); }
  /// Bytes of one K or V stage.
  int64_t tileBytes() const { return bn * rowBytes(); }
  /// Rows of O's own tile (0 when it has none).
  int64_t oTileRows() const { return oRows; }
  /// The dynamic shared memory a block asks for.
  int64_t totalBytes() const;

private:
  int64_t rowBytes() const { return rowElems * eltBytes; }
  int64_t barrierBytes() const;
  int64_t bm, bn, stages, oRows, rowElems, eltBytes, dropoutBytes;
  bool wgmma, mbarriers, warpSpecialized;
};

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_SHAREDLAYOUT_H
