//===- NVVMPipeline.cpp - sinter ops to PTX and cubin ---------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "TargetInfo.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/GPU/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

std::string sinter::ptxFeaturesForChip(StringRef chip) {
  // The lowest PTX ISA version that knows the chip (sm_90a's
  // wgmma/setmaxnreg need 8.0, which is sm_90's).
  using namespace gpu_kernels;
  return ptxFeature(chipInfo(smVersionOf(chip)).ptxVersion);
}

std::string sinter::findCUDAToolkit() {
  for (const char *var :
       {"SINTER_CUDA_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *dir = std::getenv(var);
        dir && *dir && llvm::sys::fs::is_directory(dir))
      return dir;
  if (llvm::sys::fs::exists("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  return "";
}

sinter::OutlineCUDAKernelsOptions
sinter::outlineOptions(const NVVMPipelineOptions &options) {
  OutlineCUDAKernelsOptions outline;
  outline.rowVectors = options.rowVectors;
  outline.fusedVectors = options.fusedVectors;
  outline.rowBlock = options.rowBlock;
  outline.chip = options.chip;
  outline.attentionConfig = options.attentionConfig;
  outline.cacheHints = options.cacheHints;
  outline.rowPersistent = options.rowPersistent;
  outline.adamwPersistent = options.adamwPersistent;
  outline.persistentCtas = options.persistentCtas;
  outline.smCount = options.smCount;
  outline.matmul = options.matmul;
  outline.attentionBackward = options.attentionBackward;
  return outline;
}

void sinter::buildCUDAOutliningPipeline(OpPassManager &pm,
                                        const NVVMPipelineOptions &options) {
  // Large matmuls with misaligned rows (a vocabulary's logits) are padded
  // for cuBLASLt's aligned kernels; their pads and slices then lower below.
  if (StringRef(options.matmul).trim() == "cublas") {
    PadMatmulsOptions pad;
    pad.minFlops = options.padMinFlops;
    pm.addNestedPass<func::FuncOp>(createPadMatmuls(pad));
  }
  // A logsumexp's two passes over the logits (a cross-entropy) as one.
  pm.addNestedPass<func::FuncOp>(createOnlineLogSumExp());
  // Tensor ops left between kernels become generics the kernels run.
  TensorOpsToLinalgOptions tensorOps;
  tensorOps.chip = options.chip;
  pm.addNestedPass<func::FuncOp>(createTensorOpsToLinalg(tensorOps));
  pm.addPass(createCanonicalizerPass());
  // One value per returned tensor, each its own buffer (after the
  // canonicalization, which would fold the copies away).
  pm.addNestedPass<func::FuncOp>(sinter::createCopyAliasedResults());
  // One kernel per sinter op, launched from the host functions.
  pm.addPass(createOutlineCUDAKernels(outlineOptions(options)));
  // Independent elementwise kernels (the weights' casts) as one launch.
  if (options.combineLaunches)
    pm.addPass(createCombineLaunches());
}

void sinter::buildNVVMLoweringPipeline(OpPassManager &pm,
                                       const NVVMPipelineOptions &options) {
  // The CUDA toolkit provides libdevice (math functions); find it here
  // rather than rely on the environment of whoever runs the compiler.
  std::string toolkit = findCUDAToolkit();
  // Record the chip and PTX version the kernels are compiled for.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = ptxFeaturesForChip(options.chip);
  // Cache-policy qualifiers (L1::no_allocate, L2::cache_hint, L2::256B,
  // createpolicy) need PTX ISA 7.4; sm_80 and sm_86 know older ones.
  const gpu_kernels::ChipInfo &chip =
      gpu_kernels::chipInfo(gpu_kernels::smVersionOf(options.chip));
  if (StringRef(options.cacheHints).trim() != "none" &&
      chip.ptxVersion < gpu_kernels::kCacheHintPtxVersion)
    target.features =
        gpu_kernels::ptxFeature(gpu_kernels::kCacheHintPtxVersion);
  target.optLevel = options.optLevel;
  if (!toolkit.empty()) {
    SmallString<256> libdevice(toolkit);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(libdevice))
      target.linkLibs.push_back(libdevice.str().str());
  }
  // ptxas' optimizations on several threads (the same code; Ptxas.cpp).
  target.cmdOptions = ptxasCommandOptions(toolkit, options.ptxasThreads);
  pm.addPass(createGpuNVVMAttachTarget(target));
  // Device side: memref views to pointer arithmetic, structured control flow
  // to branches, then gpu/arith/math/vector to NVVM. Kernels take bare
  // pointers: every buffer has a static shape, so a launch passes one
  // pointer per buffer and no descriptors.
  // The passes that rewrite one kernel at a time run on each kernel (in
  // parallel where the context has threads); gpu-to-nvvm, which turns
  // gpu.funcs into llvm.funcs and declares what they call, on the module.
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  OpPassManager &kernels = device.nest<gpu::GPUFuncOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  OpPassManager &lowered = device.nest<LLVM::LLVMFuncOp>();
  lowered.addPass(createConvertVectorToLLVMPass());
  lowered.addPass(createCanonicalizerPass());
  lowered.addPass(createCSEPass());
  // Tensor-map parameters (TMA descriptors) passed by value, in place.
  device.addPass(createNVVMTensorMapParams());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void sinter::buildNVVMPipeline(OpPassManager &pm,
                               const NVVMPipelineOptions &options) {
  buildCUDAOutliningPipeline(pm, options);
  buildNVVMLoweringPipeline(pm, options);
  // Serialize through ptxas (bin) or stop at PTX (isa); the toolkit
  // provides ptxas.
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = findCUDAToolkit();
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void sinter::registerSinterGPUPipelines() {
  PassPipelineRegistration<NVVMPipelineOptions>(
      "sinter-lower-to-nvvm",
      "Compile sinter ops to CUDA kernels: outline one kernel per op, lower "
      "to NVVM and serialize to cubin (format=bin) or PTX (format=isa) for "
      "the given chip",
      buildNVVMPipeline);
}
