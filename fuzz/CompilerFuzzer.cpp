//===- CompilerFuzzer.cpp - libFuzzer target over the compiler front ------===//
//
// Part of the Sinter project.
//
// One input is one MLIR source. It goes where sinterc and sinter.compile
// send it: the pre-parse scan, parsing, verification and the module checks
// (parseForCompilation), the fusion pipeline, then the CUDA backend up to
// the artifact's manifest (sinter-outline-cuda-kernels, every kernel
// generator, the planner: planCUDAManifest). Only PTX codegen and ptxas,
// upstream's, are left out. Diagnostics are expected and dropped; a crash,
// a sanitizer report or a stack overflow is a finding. The input runs on
// the fuzzer's ordinary stack (not runOnCompilerStack), so that recursion
// the scan's limits do not bound shows up as an overflow here.
//
//===----------------------------------------------------------------------===//

#include "sinter/GPU/CUDAArtifact.h"
#include "sinter/Pipelines/Pipelines.h"
#include "sinter/Target/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdlib>

static const mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry;
    sinter::registerCompilerDialects(*reg);
    return reg;
  }();
  return *r;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(registry(), mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  sinter::ArgumentNames names;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      sinter::parseForCompilation(sourceMgr, context, &names);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  sinter::buildFusionPipeline(pm, sinter::FusionOptions());
  if (mlir::failed(pm.run(*module)))
    return 0;
  sinter::NVVMPipelineOptions options;
  // sm_90a takes every kernel family (wgmma attention); SINTER_FUZZ_CHIP
  // picks another.
  const char *chip = std::getenv("SINTER_FUZZ_CHIP");
  options.chip = chip && *chip ? chip : "sm_90a";
  (void)sinter::planCUDAManifest(*module, options, &names);
  return 0;
}
