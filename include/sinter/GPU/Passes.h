//===- Passes.h - Sinter's CUDA backend passes ------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_PASSES_H
#define SINTER_GPU_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "sinter/GPU/Defaults.h"

#include <memory>
#include <string>

namespace sinter {

#define GEN_PASS_DECL
#include "sinter/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sinter/GPU/Passes.h.inc"

/// Options of the CUDA lowering pipeline.
struct NVVMPipelineOptions
    : public mlir::PassPipelineOptions<NVVMPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture: sm_80, sm_89, "
                                          "sm_90a ..."),
                           llvm::cl::init("sm_90a")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu-module-to-binary emits: bin (cubin through "
                     "ptxas), isa (PTX text) or fatbin"),
      llvm::cl::init("bin")};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("NVPTX optimisation level"),
                            llvm::cl::init(3)};
  Option<int64_t> rowVectors{
      *this, "row-vectors",
      llvm::cl::desc("16-byte vectors per thread in softmax/norm kernels"),
      llvm::cl::init(::sinter::cuda_defaults::kRowVectors)};
  Option<int64_t> rowBlock{
      *this, "row-block",
      llvm::cl::desc("threads per block in softmax/norm kernels"),
      llvm::cl::init(::sinter::cuda_defaults::kRowBlock)};
  Option<int64_t> fusedVectors{
      *this, "fused-vectors",
      llvm::cl::desc("16-byte vectors per thread in sinter.fused kernels"),
      llvm::cl::init(::sinter::cuda_defaults::kFusedVectors)};
  Option<std::string> attentionConfig{
      *this, "attention-config",
      llvm::cl::desc("Attention tile configuration overriding the shipped "
                     "table: 'warps=4,mtiles=1,bn=64' or 'cuda-cores'"),
      llvm::cl::init("")};
  Option<std::string> cacheHints{
      *this, "cache-hints",
      llvm::cl::desc("Cache policy of the 16-byte loads/stores of data "
                     "touched once (norm/softmax rows, AdamW state): none, "
                     "evict-first, no-allocate, l2-256b or streaming; any "
                     "hint raises sm_8x's PTX version to 7.4"),
      llvm::cl::init("none")};
  Option<int64_t> rowPersistent{
      *this, "row-persistent",
      llvm::cl::desc("Softmax/norm kernels: 0 = one block per row group, 1 = "
                     "persistent grid sized to the chip, weight and bias "
                     "loaded once, 2 = as 1 with the next row prefetched, "
                     "3 = as 2 with the weight and bias loaded per row"),
      llvm::cl::init(::sinter::cuda_defaults::kRowPersistent)};
  Option<int64_t> adamwPersistent{
      *this, "adamw-persistent",
      llvm::cl::desc("AdamW: 0 = up to 1024 blocks, 1 = persistent grid sized "
                     "to the chip, 2 (default) = as 1 with the next chunk "
                     "prefetched"),
      llvm::cl::init(::sinter::cuda_defaults::kAdamWPersistent)};
  Option<int64_t> persistentCtas{
      *this, "persistent-ctas",
      llvm::cl::desc("Blocks per SM the persistent grids count on (0: 1024 "
                     "threads' worth)"),
      llvm::cl::init(::sinter::cuda_defaults::kPersistentCtas)};
  Option<int64_t> smCount{
      *this, "sm-count",
      llvm::cl::desc("SMs of the chip, for the persistent grids (0: by chip)"),
      llvm::cl::init(::sinter::cuda_defaults::kSmCount)};
  Option<std::string> matmul{
      *this, "matmul",
      llvm::cl::desc("How unfused matmuls run: 'cublas' (a cuBLASLt library "
                     "call with the CUDA-core kernel as its fallback) or "
                     "'kernel' (the CUDA-core kernel alone)"),
      llvm::cl::init("cublas")};
};

/// The CUDA toolkit directory (ptxas, libdevice): $SINTER_CUDA_PATH,
/// $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, else /usr/local/cuda; "" if none.
std::string findCUDAToolkit();

/// PTX feature string for `chip` (sm_90a needs PTX 8.0, sm_89 7.8, ...).
std::string ptxFeaturesForChip(llvm::StringRef chip);

/// sinter ops -> CUDA kernels -> NVVM -> PTX/cubin: outline every sinter op
/// into a kernel, lower the kernels to NVVM and serialize them.
void buildNVVMPipeline(mlir::OpPassManager &pm,
                       const NVVMPipelineOptions &options);

/// Registers the `sinter-lower-to-nvvm` pipeline. (The backend's passes are
/// registered by the generated `registerSinterGPUPasses()`.)
void registerSinterGPUPipelines();

} // namespace sinter

#endif // SINTER_GPU_PASSES_H
