//===- sinter-opt.cpp - Sinter's optimizer driver -------------------------===//
//
// Part of the Sinter project.
//
// An mlir-opt with every upstream dialect, pass, extension and LLVM IR
// translation plus Sinter's dialect, passes and pipelines. Its input is
// scanned before MLIR parses it, and it is processed on a large stack
// (sinter/Target/InputGuard.h), as sinterc's and the C API's are.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "sinter/InitAll.h"
#include "sinter/Target/InputGuard.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

/// The pre-parse scan of the whole input (every split of a
/// --split-input-file input at once), reported as MLIR errors.
static mlir::LogicalResult scanInput(const llvm::MemoryBuffer &input,
                                     mlir::DialectRegistry &registry) {
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getBuffer(),
                                       input.getBufferIdentifier(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return sinter::checkSourceBeforeParsing(sourceMgr, context);
}

namespace sinter {
/// TestReturnValue.cpp: sinter-test-return-value, for bisecting.
void registerTestReturnValuePass();
/// TestFusedBackward.cpp: sinter-test-fused-backward.
void registerTestFusedBackwardPass();
} // namespace sinter

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::setBugReportMsg(
      "PLEASE report Sinter bugs with the input IR (reduce it with "
      "`mlir-reduce` if you can) and the full sinter-opt command line.\n");
  mlir::registerAllPasses();
  sinter::registerAllPasses();
  sinter::registerTestReturnValuePass();
  sinter::registerTestFusedBackwardPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  sinter::registerAllDialects(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "Sinter optimizer driver: upstream MLIR plus the sinter dialect and "
      "its fusion and lowering passes.\n\n"
      "Examples:\n"
      "  sinter-opt model.mlir --sinter-fusion-pipeline\n"
      "  sinter-opt kernel.mlir --verify-diagnostics\n\n"
      "Report bugs with the input IR and the full command line.\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(scanInput(*input, registry)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  mlir::LogicalResult result = mlir::failure();
  sinter::runOnCompilerStack([&] {
    result =
        mlir::MlirOptMain(output->os(), std::move(input), registry, config);
  });
  if (mlir::failed(result))
    return 1;
  output->keep();
  return 0;
}
