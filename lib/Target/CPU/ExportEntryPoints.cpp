//===- ExportEntryPoints.cpp - C-interface wrappers for entry points ------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace sinter {
#define GEN_PASS_DEF_EXPORTENTRYPOINTSPASS
#include "sinter/Target/CPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {
struct ExportEntryPointsPass
    : public sinter::impl::ExportEntryPointsPassBase<ExportEntryPointsPass> {
  void runOnOperation() override {
    StringRef attrName = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr(attrName, UnitAttr::get(&getContext()));
  }
};
} // namespace
