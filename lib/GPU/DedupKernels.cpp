//===- DedupKernels.cpp - One kernel for each distinct body ---------------===//
//
// Part of the Sinter project.
//
// A model's layers repeat: the 12 blocks of GPT-2 outline 12 copies of
// every kernel, identical but for their names, and each copy costs its
// share of the NVVM lowering, LLVM's optimization, PTX emission and ptxas.
// Kernels whose functions are identical but for the symbol name are merged
// into the first, and their launches call it.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The text of `kernel` with its name left out: equal for two kernels
/// exactly when merging them changes nothing but which name is launched.
static std::string bodyKey(gpu::GPUFuncOp kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  std::string name = (Twine("sym_name = \"") + kernel.getName() + "\"").str();
  size_t at = text.find(name);
  if (at != std::string::npos)
    text.erase(at, name.size());
  return text;
}

unsigned sinter::gpu_kernels::dedupKernels(ModuleOp module) {
  unsigned merged = 0;
  for (auto kernels :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
    llvm::StringMap<gpu::GPUFuncOp> first;
    llvm::DenseMap<StringAttr, StringAttr> renamed;
    SmallVector<gpu::GPUFuncOp> duplicates;
    for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
      auto [it, inserted] = first.try_emplace(bodyKey(kernel), kernel);
      if (inserted)
        continue;
      renamed[kernel.getNameAttr()] = it->second.getNameAttr();
      duplicates.push_back(kernel);
    }
    if (duplicates.empty())
      continue;
    // Launches name kernels as @module::@kernel.
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != kernels.getSymNameAttr())
        return;
      auto it = renamed.find(launch.getKernelName());
      if (it != renamed.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            kernels.getSymNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUFuncOp copy : duplicates)
      copy.erase();
    merged += duplicates.size();
  }
  return merged;
}
