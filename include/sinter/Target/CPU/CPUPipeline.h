//===- CPUPipeline.h - Lowering of tensor programs to host LLVM -*- C++ -*-===//
//
// Part of the Sinter project.
//
// The CPU backend's pass pipeline: from sinter ops and linalg-on-tensors to
// the LLVM dialect with the all-memref calling convention (inputs, then one
// caller-allocated output buffer per result) and `_mlir_ciface_<name>`
// wrappers for every public function.
//
//   mlir::PassManager pm(&context);
//   sinter::buildCPUPipeline(pm, sinter::CPUPipelineOptions());
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CPU_CPUPIPELINE_H
#define SINTER_TARGET_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace sinter {

/// Options of the `sinter-lower-to-cpu` pipeline.
struct CPUPipelineOptions
    : public mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every function a `_mlir_ciface_<name>` wrapper "
                     "taking memref descriptors by pointer"),
      llvm::cl::init(true)};
  Option<unsigned> bufferAlignment{
      *this, "buffer-alignment",
      llvm::cl::desc("Alignment in bytes of buffers allocated by kernels"),
      llvm::cl::init(64)};
};

/// Appends the CPU lowering to `pm` (which must be anchored on the module).
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options);

/// Registers `sinter-lower-to-cpu` and the CPU backend's passes with the
/// global pass registry.
void registerCPUPipeline();

} // namespace sinter

#endif // SINTER_TARGET_CPU_CPUPIPELINE_H
