//===- OutlineCUDAKernels.cpp - sinter ops to kernels and launches --------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "sinter/GPU/Passes.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {
#define GEN_PASS_DEF_OUTLINECUDAKERNELS
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

static constexpr StringLiteral kKernelModuleName = "sinter_kernels";

/// Dispatches to the kernel generator of `op`'s family; most ops are one
/// launch.
static FailureOr<SmallVector<KernelLaunch>>
buildKernels(Operation *op, gpu::GPUModuleOp module, StringRef name,
             const Tuning &tuning) {
  auto one = [](FailureOr<KernelLaunch> l)
      -> FailureOr<SmallVector<KernelLaunch>> {
    if (failed(l))
      return failure();
    SmallVector<KernelLaunch> v;
    v.push_back(std::move(*l));
    return v;
  };
  if (isa<LayerNormOp, RMSNormOp>(op))
    return one(buildNormKernel(op, module, name, tuning));
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return one(buildSoftmaxKernel(softmax, module, name, tuning));
  if (auto fused = dyn_cast<FusedOp>(op))
    return one(buildFusedKernel(fused, module, name, tuning));
  if (auto attention = dyn_cast<AttentionOp>(op))
    return one(buildAttentionKernel(attention, module, name));
  if (auto adamw = dyn_cast<AdamWOp>(op))
    return buildAdamWKernels(adamw, module, name);
  return op->emitOpError("is not supported by the CUDA backend yet");
}

/// Checks that every tensor `op` touches has a static shape.
static LogicalResult checkStatic(Operation *op) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape())
      return op->emitOpError("the CUDA backend needs static shapes, got ")
             << rt;
  return success();
}

namespace {
struct OutlineCUDAKernelsPass
    : public sinter::impl::OutlineCUDAKernelsBase<OutlineCUDAKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (rowVectors < 1 || fusedVectors < 1) {
      getOperation().emitError(
          "sinter-outline-cuda-kernels: row-vectors and fused-vectors must "
          "be at least 1");
      return signalPassFailure();
    }
    Tuning tuning{rowVectors, fusedVectors};
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<SinterDialect>(op->getDialect()) &&
          !isa<YieldOp, DropoutOp>(op) && !op->getParentOfType<FusedOp>())
        ops.push_back(op);
    });
    if (ops.empty())
      return;

    OpBuilder mb(module.getBodyRegion());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    mb.getUnitAttr());
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
    if (!kernels) {
      mb.setInsertionPointToEnd(module.getBody());
      kernels = gpu::GPUModuleOp::create(mb, module.getLoc(), kKernelModuleName);
    }

    unsigned counter = 0;
    for (Operation *op : ops) {
      if (failed(checkStatic(op)))
        return signalPassFailure();
      std::string name = (op->getName().stripDialect() + "_" +
                          std::to_string(counter++))
                             .str();
      FailureOr<SmallVector<KernelLaunch>> launches =
          buildKernels(op, kernels, name, tuning);
      if (failed(launches))
        return signalPassFailure();
      OpBuilder b(op);
      for (const KernelLaunch &launch : *launches)
        emitLaunch(b, op->getLoc(), launch);
      op->erase();
    }
  }

  /// Emits buffers for the operands and results of `launch`, the launch
  /// itself, and replaces the results' uses by the written buffers.
  void emitLaunch(OpBuilder &b, Location loc, const KernelLaunch &launch) {
    llvm::SmallDenseSet<unsigned> written;
    for (auto &[result, index] : launch.inPlace)
      written.insert(index);
    SmallVector<Value> args;
    for (auto [i, v] : llvm::enumerate(launch.operands)) {
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        args.push_back(bufferization::ToBufferOp::create(
            b, loc, MemRefType::get(t.getShape(), t.getElementType()), v,
            /*read_only=*/!written.contains(i)));
      else
        args.push_back(v);
    }
    SmallVector<Value> resultBuffers;
    for (Value r : launch.results) {
      auto t = cast<RankedTensorType>(r.getType());
      Value buf = memref::AllocOp::create(
          b, loc, MemRefType::get(t.getShape(), t.getElementType()));
      resultBuffers.push_back(buf);
      args.push_back(buf);
    }
    Value grid = arith::ConstantIndexOp::create(b, loc, launch.grid);
    Value block = arith::ConstantIndexOp::create(b, loc, launch.block);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::LaunchFuncOp::create(b, loc, launch.kernel,
                              gpu::KernelDim3{grid, one, one},
                              gpu::KernelDim3{block, one, one},
                              /*dynamicSharedMemorySize=*/Value(), args);
    auto replace = [&](Value r, Value buf) {
      Value t = bufferization::ToTensorOp::create(
          b, loc, r.getType(), buf, /*restrict=*/true, /*writable=*/true);
      r.replaceAllUsesWith(t);
    };
    for (auto [r, buf] : llvm::zip(launch.results, resultBuffers))
      replace(r, buf);
    for (auto &[r, index] : launch.inPlace)
      replace(r, args[index]);
  }
};
} // namespace
