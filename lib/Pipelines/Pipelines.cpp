//===- Pipelines.cpp - Sinter's fusion pipeline ---------------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Pipelines/Pipelines.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void sinter::buildTosaLoweringPipeline(mlir::OpPassManager &pm) {
  using namespace mlir;
  // TOSA input becomes linalg-on-tensors with the upstream passes: named ops
  // (matmul, ...) first, then elementwise and reductions, then the remaining
  // reshapes/slices (tensor) and constants (arith). On IR without TOSA these
  // passes change nothing.
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
}

void sinter::buildFusionPipeline(mlir::OpPassManager &pm,
                                 const FusionOptions &options) {
  using namespace mlir;
  // 0. Sinter ops a frontend asked for by calls (the torch backend's
  //    attention custom ops) become the ops.
  pm.addPass(createRaiseCustomCalls());
  // 1. TOSA input becomes linalg-on-tensors.
  if (options.lowerTosa)
    buildTosaLoweringPipeline(pm);
  // 2. Normalise: rewrite frontend idioms (argmax-carrying max reductions,
  //    casts of f64 constants, fpowi, f64 statistics, scalar 0-d math) into
  //    one spelling each, then fold reshapes and constants and dedupe
  //    fills/empties, so that the matchers see one canonical subgraph.
  pm.addPass(createNormalizeFrontend());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 3. Raise. Attention first: it consumes its softmax from the raw chain, so
  //    a softmax that belongs to an attention is never raised on its own.
  // Dropout on the probabilities, and in elementwise chains, is raised to
  // Sinter's Philox dropout only when the user accepts other random bits.
  RaiseAttentionOptions attention;
  attention.allowRngChange = options.allowRngChange;
  pm.addPass(createRaiseAttention(attention));
  // The remaining softmaxes (not inside an attention).
  pm.addPass(createRaiseSoftmax());
  // Norms before generic elementwise fusion, which would otherwise swallow
  // their elementwise parts (normalisation, affine) into sinter.fused.
  pm.addPass(createRaiseNorms());
  // AdamW updates are elementwise too; group them before the generic fuser.
  pm.addPass(createRaiseAdamW());
  // The leftover reductions compute their elementwise producers (a
  // cross-entropy's log-sum-exp reads the bf16 logits, not an f32 copy).
  pm.addPass(createFuseReductionProducers());
  // Whatever elementwise chains remain (bias+GELU, residual adds, ...).
  FuseElementwiseOptions elementwise;
  elementwise.allowRngChange = options.allowRngChange;
  pm.addPass(createFuseElementwise(elementwise));
  // 4. Clean up what the raising left dead or duplicated (empties, fills,
  //    reshapes of reshapes).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 5. The report, last, so that it sees every fusion.
  if (!options.reportFile.empty() || options.reportSummary) {
    FusionReportOptions report;
    report.file = options.reportFile;
    report.summary = options.reportSummary;
    pm.addPass(createFusionReport(report));
  }
}

void sinter::registerSinterPipelines() {
  mlir::PassPipelineRegistration<FusionOptions>(
      "sinter-fusion-pipeline",
      "Lower TOSA to linalg, normalise, and raise attention, softmax, norms, "
      "AdamW and elementwise chains into sinter ops (add "
      "--sinter-fusion-report=FILE.json after it for a JSON report)",
      buildFusionPipeline);
}
