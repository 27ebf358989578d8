//===- CompileKernels.h - The CUDA pipeline in timed stages -----*- C++ -*-===//
//
// Part of the Sinter project.
//
// The CUDA pipeline of buildNVVMPipeline run as separately timed stages
// (outline, nvvm, serialize), with the kernel census of the outlined module,
// and one serialization that yields both the PTX and the cubin.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_COMPILEKERNELS_H
#define SINTER_LIB_GPU_COMPILEKERNELS_H

#include "sinter/GPU/CUDAArtifact.h"

#include <map>
#include <string>

namespace sinter {

/// Which path each launch of the host functions took after outlining:
/// library calls (cuBLASLt), the tuned kernel families (sinter ops and the
/// tiled matmul) and the general path (leftover generics, reductions and
/// tensor copies), counted by family (the kernel's name without its index).
struct KernelCensus {
  std::map<std::string, unsigned> library, tuned, general;
  /// Launches of sinter-combine-launches' kernels, and the kernels they
  /// replaced (counted by family above).
  unsigned combinedLaunches = 0, combinedKernels = 0;

  /// "48 library calls (cublas_gemm 48); 266 tuned kernels (fused 229, ...);
  /// 87 general-path kernels (generic 51, ...)".
  std::string summary() const;
};

/// Counts the launches of `module`'s host functions (after outlining).
KernelCensus takeKernelCensus(mlir::ModuleOp module);

/// What one serialization of the kernels gave.
struct CompiledKernels {
  std::string ptx;
  /// The cubin; empty when only PTX was asked for.
  std::string cubin;
};

/// Outlines, lowers and serializes the kernels of `module` in place, as
/// buildNVVMPipeline does, reporting each stage through `onStage`. With
/// `withCubin` the kernels go through ptxas too; the PTX is kept either way
/// (the serializer's ISA), so the two come from one LLVM compilation.
mlir::FailureOr<CompiledKernels>
compileKernels(mlir::ModuleOp module, const NVVMPipelineOptions &options,
               bool withCubin, const StageCallback &onStage);

} // namespace sinter

#endif // SINTER_LIB_GPU_COMPILEKERNELS_H
