//===- CPUPipeline.cpp - Lowering of tensor programs to host LLVM ---------===//
//
// Part of the Sinter project.
//
// The `sinter-lower-to-cpu` pipeline. Every stage is an upstream pass (or
// Sinter's sinter-lower-to-loops); the comment on each says why it is there
// and why it sits where it does.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CPU/CPUPipeline.h"
#include "sinter/Target/CPU/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "sinter/Conversion/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "llvm/TargetParser/Host.h"

using namespace mlir;

/// The matmul register tile for the host: 16 of the 32 AVX-512 registers
/// hold an 8 x 32 f32 tile of C; with 16 AVX (or NEON-sized) registers, 12
/// hold a 6 x 16 tile. Both leave room for a row of B and a broadcast.
static sinter::VectorizeMatmulsPassOptions hostMatmulTile() {
  sinter::VectorizeMatmulsPassOptions tile;
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f")) {
    tile.rows = 8;
    tile.cols = 32;
  } else {
    tile.rows = 6;
    tile.cols = 16;
  }
  return tile;
}

void sinter::buildCPUPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options) {
  // Sinter ops become scf/tensor/linalg/arith/math on tensors, so that one
  // upstream bufferization and loop lowering handle fused and unfused code
  // alike.
  pm.addPass(sinter::createLowerToLoopsPass());

  // Drop private functions nothing calls (they would only be compiled).
  pm.addPass(createSymbolDCEPass());

  // Tensor-level cleanups: fold the reshapes, casts and constant index
  // arithmetic left by the frontend and by sinter-lower-to-loops, and reuse
  // destination tensors, so that bufferization writes in place instead of
  // allocating and copying.
  //
  // One canonicalization is left out here: promoting a single-iteration
  // scf.forall on tensors maps its results to its shared_outs in the order
  // of the parallel_insert_slice ops, not of the outputs, and so swaps the
  // results of loops (like multi-tensor AdamW's) that insert in another
  // order. After bufferization the loops have no results and it is safe.
  pm.addPass(createCanonicalizerPass(
      GreedyRewriteConfig(),
      /*disabledPatterns=*/{
          "(anonymous namespace)::ForallOpSingleOrZeroIterationDimsFolder"}));
  pm.addPass(createCSEPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  // One value per returned tensor (the calling convention gives each
  // result its own buffer); after the last canonicalization on tensors,
  // which would fold the copies away.
  pm.addNestedPass<func::FuncOp>(sinter::createCopyAliasedResults());

  // Tensors to buffers across the whole module, function signatures
  // included. Identity layouts at function boundaries make every argument a
  // plain dense row-major buffer, which is what callers (the Python package,
  // the C API users) hand over.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.bufferAlignment = options.bufferAlignment;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));

  // The calling convention: callers allocate the results. Every returned
  // buffer becomes a trailing output argument (inputs first, then outputs),
  // and a statically shaped result allocation is replaced by the output
  // argument itself so that the kernel writes there without a copy.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));

  // Free every temporary buffer the kernels allocate (ownership-based
  // deallocation, then its simplifications), so repeated calls do not leak.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCanonicalizerPass());

  // Request `_mlir_ciface_<name>` wrappers for the public functions: they
  // take each memref as a pointer to its descriptor, which is the ABI the
  // Python package and the C API rely on. (Declarations of C functions keep
  // their plain names.)
  if (options.emitCInterface)
    pm.addPass(sinter::createExportEntryPointsPass());

  // Leftover f32/f64 matmuls: register-tiled vector micro-kernels for their
  // full tiles (sinter-cpu-vectorize-matmuls), sized for the host's vector
  // registers, since the artifact runs where it is compiled.
  pm.addNestedPass<func::FuncOp>(
      sinter::createVectorizeMatmulsPass(hostMatmulTile()));
  // Structured ops on buffers to scf loops (the path for ops left unfused,
  // and for the matmul strips that do not fill a tile), with reductions
  // moved outside the output's contiguous loop first so that they
  // vectorize (sinter-cpu-interchange-reductions).
  pm.addNestedPass<func::FuncOp>(sinter::createInterchangeReductionsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Subviews, reshapes and collapses into explicit base/offset/stride
  // arithmetic (which it emits as affine.apply, hence before lower-affine).
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Structured control flow to the CFG that the LLVM dialect expresses.
  pm.addPass(createSCFToControlFlowPass());

  // Low-precision floats. libm has f32/f64 entry points only, so math on
  // f16/bf16 is computed in f32. LLVM has no portable bf16 arithmetic, so
  // bf16 arithmetic is emulated in f32 and the bf16<->f32 conversions are
  // expanded into integer bit manipulation (no compiler-rt helper needed).
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));

  // Math: first whatever has an LLVM intrinsic or a short expansion (exp,
  // log, sqrt, rsqrt = 1/sqrt, fma, abs, ...), which LLVM vectorizes or
  // turns into libm calls itself; then the rest (erf, tanh, ...) as calls
  // into the system libm, linked by `cc -shared ... -lm`. In the other order
  // rsqrt would become a call to a `rsqrtf` that libm does not have.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());

  // Everything else to the LLVM dialect. Memrefs go first so that the other
  // conversions see the LLVM descriptor types; func last because it rewrites
  // signatures and creates the C-interface wrappers.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // Drop the casts the partial conversions left between them.
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void sinter::registerCPUPipeline() {
  registerSinterCPUPasses();
  PassPipelineRegistration<CPUPipelineOptions>(
      "sinter-lower-to-cpu",
      "Lower sinter ops and linalg-on-tensors to the LLVM dialect for the "
      "host CPU (all-memref calling convention: inputs, then outputs)",
      [](OpPassManager &pm, const CPUPipelineOptions &options) {
        buildCPUPipeline(pm, options);
      });
}
