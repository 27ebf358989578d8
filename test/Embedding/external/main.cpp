// A user's tool that embeds Sinter: parse IR with sinter ops in a registry of
// its own, verify it and run a pass pipeline on it.

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/InitAll.h"
#include "sinter/Pipelines/Pipelines.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  sinter::registerAllDialects(registry);
  sinter::registerAllPasses();
  mlir::MLIRContext context(registry);

  const char *ir = R"mlir(
    func.func @block(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
      %y = sinter.rms_norm %x weight(%w : tensor<64xf32>)
          : tensor<4x64xf32> -> tensor<4x64xf32>
      %e = tensor.empty() : tensor<4x64xf32>
      %s = linalg.softmax dimension(1) ins(%y : tensor<4x64xf32>)
          outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
      return %s : tensor<4x64xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  if (!module) {
    llvm::errs() << "embed-sinter: failed to parse\n";
    return 1;
  }
  int count = 0;
  module->walk([&](sinter::RMSNormOp) { ++count; });
  llvm::outs() << "parsed " << count << " sinter.rms_norm\n";

  // The fusion pipeline as a C++ function: linalg.softmax is raised.
  mlir::PassManager pm(&context);
  sinter::buildFusionPipeline(pm, sinter::FusionOptions());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
