//===- sinter-lsp-server.cpp - Language server for Sinter IR --------------===//
//
// Part of the Sinter project.
//
// The MLIR language server with every upstream dialect plus sinter, so that
// editors (VS Code's MLIR extension, clangd-style LSP clients) offer
// diagnostics, hover and go-to-definition on files that use sinter ops.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "sinter/InitAll.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  sinter::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
