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

namespace mlir {
class RewritePatternSet;
} // namespace mlir

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
      llvm::cl::desc("16-byte vectors each thread of a softmax/norm kernel "
                     "holds (sets the lanes per row; default 2)"),
      llvm::cl::value_desc("n"),
      llvm::cl::init(::sinter::cuda_defaults::kRowVectors)};
  Option<int64_t> rowBlock{
      *this, "row-block",
      llvm::cl::desc("threads per block in softmax/norm kernels"),
      llvm::cl::init(::sinter::cuda_defaults::kRowBlock)};
  Option<bool> combineLaunches{
      *this, "combine-launches",
      llvm::cl::desc("Run independent elementwise kernels (a model's weight "
                     "casts) as one launch (sinter-combine-launches)"),
      llvm::cl::init(true)};
  Option<int64_t> fusedVectors{
      *this, "fused-vectors",
      llvm::cl::desc("16-byte vectors per thread in sinter.fused kernels"),
      llvm::cl::init(::sinter::cuda_defaults::kFusedVectors)};
  Option<std::string> attentionConfig{
      *this, "attention-config",
      llvm::cl::desc(
          "Tile configuration of every attention kernel, overriding the "
          "table shipped with the compiler: "
          "'[wgmma,][pipe,[mbar,[pp,][ws,[persist,][tmastore,]]]]warps=W,"
          "mtiles=M,bn=N[,maxregs=R]' (tensor cores; W warps of 16*M query "
          "rows each, N keys per K/V tile: 16, 32, 64, 128, with wgmma also "
          "160, 176, 192; sm_90a: wgmma = warpgroup MMA, pipe = two K/V "
          "stages with S of tile t overlapping P V of tile t-1, mbar = "
          "mbarriers instead of a barrier per tile, pp = warpgroups take "
          "turns at the tensor cores, ws = warp specialization: a producer "
          "warpgroup loads Q, K and V with TMA and gives its registers to "
          "the W = 8 or 12 consumer warps, persist = one block per SM "
          "(sm-count) looping over the work items, tmastore = O written "
          "through shared memory and stored with TMA; R caps registers per "
          "thread, not with ws) or 'cuda-cores'; a rejected configuration "
          "is reported with the rule it breaks"),
      llvm::cl::value_desc("config"), llvm::cl::init("")};
  Option<std::string> cacheHints{
      *this, "cache-hints",
      llvm::cl::desc("Cache policy of the 16-byte loads/stores of data "
                     "touched once (norm/softmax rows, AdamW state): 'none' "
                     "(default), 'evict-first' (L1::no_allocate + L2 "
                     "evict_first policy), 'no-allocate' (loads "
                     "L1::no_allocate), 'l2-256b' (loads with the L2::256B "
                     "prefetch size) or 'streaming' (ld/st.global.cs); any "
                     "hint raises sm_8x's PTX version to 7.4"),
      llvm::cl::value_desc("hint"), llvm::cl::init("none")};
  Option<int64_t> rowPersistent{
      *this, "row-persistent",
      llvm::cl::desc("Softmax/norm kernels: 0 (default) = one block per row "
                     "group, 1 = persistent grid sized to the chip whose "
                     "blocks loop over the rows, weight and bias loaded "
                     "once, 2 = as 1 with the next row loaded before the "
                     "current one is reduced and stored, 3 = as 2 with the "
                     "weight and bias loaded per row"),
      llvm::cl::value_desc("0|1|2|3"),
      llvm::cl::init(::sinter::cuda_defaults::kRowPersistent)};
  Option<int64_t> adamwPersistent{
      *this, "adamw-persistent",
      llvm::cl::desc("AdamW: 0 = up to 1024 blocks, 1 = persistent grid sized "
                     "to the chip with equal chunks per block, 2 (default) = "
                     "as 1 with the next chunk loaded before the current one "
                     "is updated"),
      llvm::cl::value_desc("0|1|2"),
      llvm::cl::init(::sinter::cuda_defaults::kAdamWPersistent)};
  Option<int64_t> persistentCtas{
      *this, "persistent-ctas",
      llvm::cl::desc("Blocks per SM that the persistent grids of "
                     "row-persistent/adamw-persistent count on (the kernels' "
                     ".minnctapersm, which caps their registers); 0 "
                     "(default): 1024 threads' worth"),
      llvm::cl::value_desc("n"),
      llvm::cl::init(::sinter::cuda_defaults::kPersistentCtas)};
  Option<int64_t> smCount{
      *this, "sm-count",
      llvm::cl::desc("SMs the persistent grids are sized for (0, the "
                     "default: the chip's usual count, e.g. 132 for sm_90, "
                     "108 for sm_80, 148 for sm_100, and the runtime sizes "
                     "them again for the device it runs on; N pins the "
                     "grids to N SMs)"),
      llvm::cl::value_desc("n"),
      llvm::cl::init(::sinter::cuda_defaults::kSmCount)};
  Option<std::string> matmul{
      *this, "matmul",
      llvm::cl::desc("How unfused matmuls run: 'cublas' (default: a "
                     "cuBLASLt library call when the runtime finds "
                     "libcublasLt, with the CUDA-core kernel as its "
                     "fallback) or 'kernel' (the CUDA-core kernel alone)"),
      llvm::cl::value_desc("cublas|kernel"), llvm::cl::init("cublas")};
  Option<std::string> attentionBackward{
      *this, "attention-backward",
      llvm::cl::desc("Form of the tensor-core attention backward's key-tile "
                     "kernel: 'wgmma' (default: warpgroup MMA from "
                     "shared-memory descriptors on sm_90a, mma.sync before "
                     "it) or 'mma-sync' (FlashAttention-2's form on every "
                     "chip)"),
      llvm::cl::value_desc("wgmma|mma-sync"), llvm::cl::init("wgmma")};
  Option<unsigned> codegenThreads{
      *this, "codegen-threads",
      llvm::cl::desc("Groups of kernels LLVM compiles in parallel (sinterc "
                     "and the C API; lib/GPU/SerializeInParts.cpp): each "
                     "group a copy of the kernels' module, their PTX joined "
                     "into one file for one ptxas. 0 (default) = one per "
                     "CPU, at most 16; 1 = the module whole"),
      llvm::cl::value_desc("n"), llvm::cl::init(0)};
  Option<unsigned> ptxasThreads{
      *this, "ptxas-threads",
      llvm::cl::desc("Threads ptxas optimizes the kernels on (its "
                     "--split-compile, where the toolkit's ptxas knows it): "
                     "0 (default) = one per CPU, 1 = one, N = N. The "
                     "cubin's code is the same for every count; its symbol "
                     "table's order differs from a single thread's"),
      llvm::cl::value_desc("n"), llvm::cl::init(0)};
  Option<int64_t> padMinFlops{
      *this, "pad-min-flops",
      llvm::cl::desc("Library-call matmuls of at least this many "
                     "floating-point operations (2 M N K) whose rows are not "
                     "16-byte aligned (a vocabulary's logits) are padded "
                     "for cuBLASLt's aligned kernels (sinter-pad-matmuls); "
                     "default 1e9"),
      llvm::cl::value_desc("n"),
      llvm::cl::init(::sinter::cuda_defaults::kPadMinFlops)};
};

/// The CUDA toolkit directory (ptxas, libdevice): $SINTER_CUDA_PATH,
/// $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, else /usr/local/cuda; "" if none.
std::string findCUDAToolkit();

/// The ptxas options of `ptxas-threads` = `threads` for the toolkit's ptxas
/// (or the one on $PATH): "--split-compile N" where that ptxas knows the
/// option, else (and for one thread) none.
std::string ptxasCommandOptions(llvm::StringRef toolkit, unsigned threads);

/// PTX feature string for `chip` (sm_90a needs PTX 8.0, sm_89 7.8, ...).
std::string ptxFeaturesForChip(llvm::StringRef chip);

/// The rewrites of `sinter-tensor-ops-to-linalg` (concat, insert_slice, pad
/// and host scalar extracts as gathering generics).
void populateTensorOpsToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// sinter.softmax over a non-trailing axis as three generics (max, sum of
/// exponentials, normalize) for the general path; part of
/// `sinter-tensor-ops-to-linalg`.
void populateSoftmaxAnyAxisPatterns(mlir::RewritePatternSet &patterns);

/// The rewrite of `sinter-online-logsumexp`: a logsumexp's max and
/// sum-of-exponentials reductions as one online reduction and a fixup.
void populateOnlineLogSumExpPatterns(mlir::RewritePatternSet &patterns);

/// The options of sinter-outline-cuda-kernels within `options`.
OutlineCUDAKernelsOptions outlineOptions(const NVVMPipelineOptions &options);

/// The host side of the CUDA pipeline: tensor ops between kernels to
/// generics, then one kernel per sinter op (or leftover linalg op) outlined
/// into the `gpu.module` and launched from the host functions.
void buildCUDAOutliningPipeline(mlir::OpPassManager &pm,
                                const NVVMPipelineOptions &options);

/// The device side: attach the NVVM target of `options.chip` and lower the
/// outlined kernels to the NVVM/LLVM dialects (everything before
/// serialization).
void buildNVVMLoweringPipeline(mlir::OpPassManager &pm,
                               const NVVMPipelineOptions &options);

/// sinter ops -> CUDA kernels -> NVVM -> PTX/cubin: the two pipelines above,
/// then `gpu-module-to-binary` in `options.format`.
void buildNVVMPipeline(mlir::OpPassManager &pm,
                       const NVVMPipelineOptions &options);

/// Registers the `sinter-lower-to-nvvm` pipeline. (The backend's passes are
/// registered by the generated `registerSinterGPUPasses()`.)
void registerSinterGPUPipelines();

} // namespace sinter

#endif // SINTER_GPU_PASSES_H
