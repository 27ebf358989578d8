//===- sinter-opt.cpp - Sinter's optimizer driver -------------------------===//
//
// Part of the Sinter project.
//
// An mlir-opt with every upstream dialect, pass, extension and LLVM IR
// translation plus Sinter's dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "sinter/InitAll.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  llvm::setBugReportMsg(
      "PLEASE report Sinter bugs with the input IR (reduce it with "
      "`mlir-reduce` if you can) and the full sinter-opt command line.\n");
  mlir::registerAllPasses();
  sinter::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  sinter::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "Sinter optimizer driver: upstream MLIR plus the sinter dialect and "
      "its fusion and lowering passes.\n\n"
      "Examples:\n"
      "  sinter-opt model.mlir --sinter-fusion-pipeline\n"
      "  sinter-opt kernel.mlir --verify-diagnostics\n\n"
      "Report bugs with the input IR and the full command line.\n",
      registry));
}
