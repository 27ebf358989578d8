//===- InitAll.cpp - Register Sinter's dialects and passes ----------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "sinter/Conversion/Passes.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h"
#include "sinter/GPU/Passes.h"
#include "sinter/Pipelines/Pipelines.h"
#include "sinter/Target/CPU/CPUPipeline.h"

void sinter::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<sinter::SinterDialect, sinter::tm_tensor::TMTensorDialect,
                  mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect>();
}

void sinter::registerAllPasses() {
  registerSinterConversionPasses();
  sinter::registerCPUPipeline();
  registerSinterGPUPasses();
  registerSinterGPUPipelines();
  registerSinterTransformsPasses();
  sinter::registerSinterPipelines();
}
