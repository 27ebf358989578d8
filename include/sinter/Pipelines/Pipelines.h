//===- Pipelines.h - Sinter's fusion pipeline -------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The fusion pipeline: TOSA lowered to linalg, normalised, then every
// raising/fusion pass in a sound order. Embedders call
//
//   sinter::FusionOptions options;
//   options.reportFile = "fusion.json";
//   sinter::buildFusionPipeline(pm, options);
//
// on a pass manager anchored on the module.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_PIPELINES_PIPELINES_H
#define SINTER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace sinter {

/// Options of `sinter-fusion-pipeline`.
struct FusionOptions : public mlir::PassPipelineOptions<FusionOptions> {
  Option<bool> lowerTosa{
      *this, "lower-tosa",
      llvm::cl::desc("Lower TOSA input to linalg-on-tensors first"),
      llvm::cl::init(true)};
  Option<std::string> reportFile{
      *this, "report",
      llvm::cl::desc("Write the JSON fusion report to this file ('-' for "
                     "stdout); empty: no report"),
      llvm::cl::init("")};
  Option<bool> reportSummary{
      *this, "report-summary",
      llvm::cl::desc("Print a one-line-per-pattern fusion summary to stderr"),
      llvm::cl::init(false)};
  Option<bool> allowRngChange{
      *this, "allow-rng-change",
      llvm::cl::desc(
          "Raise dropout drawn from the frontend's random generator into "
          "Sinter's Philox dropout (sinter.dropout, sinter.attention's "
          "dropout_p): same distribution, other random bits"),
      llvm::cl::init(false)};
};

/// Appends the fusion pipeline to `pm` (anchored on the module).
void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options);

/// Appends the upstream TOSA-to-linalg lowering (the first step of the
/// fusion pipeline; compiling with fusion off runs it alone).
void buildTosaLoweringPipeline(mlir::OpPassManager &pm);

/// Registers `sinter-fusion-pipeline` with the global pass registry.
void registerSinterPipelines();

} // namespace sinter

#endif // SINTER_PIPELINES_PIPELINES_H
