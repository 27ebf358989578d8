//===- TargetInfo.h - Facts about the NVIDIA chips --------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// One table of what the CUDA backend needs to know about each chip: its
// usual SM count, the lowest PTX ISA that knows it, the shared memory a
// block may have, and the limits of an SM. Every kernel generator and the
// NVVM pipeline take these numbers from here (TargetInfo.cpp holds the
// table, with the source of each figure).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_TARGETINFO_H
#define SINTER_LIB_GPU_TARGETINFO_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace sinter::gpu_kernels {

struct ChipInfo {
  /// The first sm_ version the row describes (it holds up to the next row).
  int64_t smVersion;
  /// The part the SM count is of.
  const char *part;
  /// SMs of that part: the default size of the persistent grids (the
  /// runtime sizes them again for the device it runs on).
  int64_t smCount;
  /// The lowest PTX ISA version that knows the chip, times ten (80: 8.0).
  int64_t ptxVersion;
  /// Dynamic shared memory one block may opt into, bytes.
  int64_t maxSharedMemoryPerBlock;
  /// Resident threads and blocks per SM.
  int64_t maxThreadsPerSM;
  int64_t maxBlocksPerSM;
  /// 32-bit registers of an SM.
  int64_t registersPerSM;
};

/// The row of the table that describes sm_`smVersion`: the one with the
/// highest smVersion at or below it; chips before sm_80 get sm_80's row
/// with sm_90's PTX ISA and SM count (the kernels that need more than
/// they have refuse them by feature, not by this table).
const ChipInfo &chipInfo(int64_t smVersion);

/// Facts of every chip from sm_80 on.
inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
/// Statically allocated shared memory of a block (above it, a kernel must
/// opt into dynamic shared memory).
inline constexpr int64_t kMaxStaticSharedMemoryPerBlock = 48 * 1024;
inline constexpr int64_t kMaxRegistersPerThread = 255;
/// Bytes of kernel parameters every CUDA version accepts (CUDA 12.1 raised
/// it to 32764 on Volta and newer).
inline constexpr int64_t kKernelParamBytes = 4096;
/// setmaxnreg (sm_90a): the counts a warpgroup may ask for, in steps of 8.
inline constexpr int64_t kSetMaxNRegMin = 24;
inline constexpr int64_t kSetMaxNRegMax = 256;
inline constexpr int64_t kSetMaxNRegStep = 8;
/// The widest global access of one thread (ld/st.global.v4.b32), and the
/// alignment it needs.
inline constexpr int64_t kMaxVectorAccessBytes = 16;
/// cuBLASLt's fast GEMM kernels need every matrix's rows (its leading
/// dimension) at a multiple of this; others take sm_75 `align1` kernels
/// (sinter-pad-matmuls, InPlaceOperands.cpp).
inline constexpr int64_t kLibraryGemmRowAlignmentBytes = 16;
/// PTX ISA of the cache-policy qualifiers (L1::no_allocate, L2::cache_hint,
/// L2::256B, createpolicy), times ten.
inline constexpr int64_t kCacheHintPtxVersion = 74;

/// Warpgroup MMA (wgmma.mma_async) and its descriptors: sm_90a alone (the
/// "a" features are not carried to later chips).
inline constexpr bool hasWgmma(int64_t smVersion, bool archSpecific) {
  return smVersion == 90 && archSpecific;
}

/// The NVPTX target feature of a PTX ISA version ("+ptx80").
std::string ptxFeature(int64_t ptxVersion);
/// The sm_ version of a chip name ("sm_90a" -> 90); 0 when it has none.
int64_t smVersionOf(llvm::StringRef chip);

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_TARGETINFO_H
