//===- TensorMapParams.cpp - Tensor maps as by-value kernel params --------===//
//
// Part of the Sinter project.
//
// A CUDA tensor map is read by the Tensor Memory Accelerator from the
// parameter space of the launch when the kernel declares it a 128-byte,
// 64-aligned, by-value grid-constant parameter (CUDA's __grid_constant__
// const CUtensorMap). The GPU-to-NVVM conversion does not carry argument
// attributes of that kind from gpu.func to llvm.func, so the kernel builders
// list the parameters in kTensorMapParamsAttrName and this pass sets them on
// the lowered function.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "sinter/GPU/Passes.h"

namespace sinter {
#define GEN_PASS_DEF_NVVMTENSORMAPPARAMS
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {
struct NVVMTensorMapParams
    : sinter::impl::NVVMTensorMapParamsBase<NVVMTensorMapParams> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto params = func->getAttrOfType<DenseI64ArrayAttr>(
          sinter::gpu_kernels::kTensorMapParamsAttrName);
      if (!params)
        return;
      for (int64_t i : params.asArrayRef()) {
        if (i < 0 || i >= static_cast<int64_t>(func.getNumArguments()) ||
            !isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
          func.emitOpError("tensor-map parameter ")
              << i << " is not a pointer parameter of the kernel";
          return signalPassFailure();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(ctx, 8), 128)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      func->removeAttr(sinter::gpu_kernels::kTensorMapParamsAttrName);
    });
  }
};
} // namespace
