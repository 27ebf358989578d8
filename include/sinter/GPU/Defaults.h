//===- Defaults.h - Defaults of the CUDA kernels' tuning knobs --*- C++ -*-===//
//
// Part of the Sinter project.
//
// One place for the defaults of the memory-bound kernels' tile options: the
// pass options (Passes.td), the sinter-lower-to-nvvm pipeline options
// (Passes.h, which sinterc's flags, the C API's option string and
// sinter.compile(**options) also set: sinter/Target/CompileOptions.h) and
// the kernels' Tuning all read them from here. Each value is what
// bench/NOTES.md measured best on the H200.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_DEFAULTS_H
#define SINTER_GPU_DEFAULTS_H

#include <cstdint>

namespace sinter::cuda_defaults {
/// 16-byte vectors per thread in softmax/norm kernels (2 ties 4, 2026-11-29).
inline constexpr int64_t kRowVectors = 2;
/// 16-byte vectors per thread in sinter.fused kernels.
inline constexpr int64_t kFusedVectors = 2;
/// Threads per block of a softmax/norm kernel.
inline constexpr int64_t kRowBlock = 256;
/// Softmax/norm kernels: one block per row group (persistent forms lost).
inline constexpr int64_t kRowPersistent = 0;
/// AdamW: the persistent grid that prefetches its next chunk (93% of copy).
inline constexpr int64_t kAdamWPersistent = 2;
/// Blocks per SM the persistent grids count on (0: 1024 threads' worth).
inline constexpr int64_t kPersistentCtas = 0;
/// SMs the persistent grids are sized for (0: by chip).
inline constexpr int64_t kSmCount = 0;
/// Library-call matmuls with misaligned rows are padded from this many
/// floating-point operations (sinter-pad-matmuls): GPT-2's lm_head (6e9 at
/// B1 T1024) is, a head's 1e6-element GEMM is not.
inline constexpr int64_t kPadMinFlops = 1000000000;
} // namespace sinter::cuda_defaults

#endif // SINTER_GPU_DEFAULTS_H
