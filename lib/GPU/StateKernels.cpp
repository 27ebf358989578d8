//===- StateKernels.cpp - Model state across calls (ml_program) -----------===//
//
// Part of the Sinter project.
//
// torch-mlir keeps the state a model carries from one call to the next (the
// seed of its RNG in train mode) in `ml_program.global`s, read and written
// by `ml_program.global_load` / `global_store`. On the CUDA target each
// such global becomes a mutable global of the kernel module (device memory
// that lives as long as the loaded artifact, initialized from the global's
// value), and each load or store a copy kernel between it and a buffer. The
// launches run in program order on one stream, so every load sees the
// stores before it, within a call and across calls, as on the CPU.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>

using namespace mlir;
using namespace sinter::gpu_kernels;

/// Threads per block of the copy kernels (the state is a few elements).
static constexpr int64_t kCopyBlock = 256;

/// The device global holding `global`'s value, created in `module` at its
/// first use: `sinter_state_<name>`, 16-byte aligned, initialized from the
/// global's value (zero when it has none).
static FailureOr<memref::GlobalOp> deviceGlobalFor(ml_program::GlobalOp global,
                                                   gpu::GPUModuleOp module) {
  std::string name = ("sinter_state_" + global.getSymName()).str();
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;
  auto type = dyn_cast<RankedTensorType>(global.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return global.emitOpError("holds ")
           << global.getType()
           << "; the CUDA target keeps statically shaped integer or float "
              "tensors as model state";
  Attribute init;
  if (auto value = dyn_cast_or_null<DenseElementsAttr>(global.getValueAttr()))
    init = value;
  else
    init = DenseElementsAttr::get(
        type, OpBuilder(global).getZeroAttr(type.getElementType()));
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  return memref::GlobalOp::create(
      b, global.getLoc(), name, b.getStringAttr("private"),
      MemRefType::get(type.getShape(), type.getElementType()), init,
      /*constant=*/false, b.getI64IntegerAttr(kMaxVectorAccessBytes));
}

/// `to[i] = from[i]` for the `count` elements of two buffers of one shape,
/// one thread per element.
static void emitCopy(ImplicitLocOpBuilder &b, Value from, Value to,
                     int64_t count) {
  KernelBuilder kb(b);
  Value flatFrom = kb.flatten(from), flatTo = kb.flatten(to);
  Value tid = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(kCopyBlock)),
      kb.threadId());
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid, kb.idx(count));
  auto guard = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  Value v = memref::LoadOp::create(b, flatFrom, ValueRange{tid});
  memref::StoreOp::create(b, v, flatTo, ValueRange{tid});
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildStateKernel(Operation *op, gpu::GPUModuleOp module,
                                      StringRef name) {
  auto load = dyn_cast<ml_program::GlobalLoadOp>(op);
  auto store = dyn_cast<ml_program::GlobalStoreOp>(op);
  if (!load && !store)
    return op->emitOpError("is not an ml_program global load or store");
  SymbolRefAttr symbol = load ? load.getGlobal() : store.getGlobal();
  auto global =
      SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(op, symbol);
  if (!global)
    return op->emitOpError("names no ml_program.global: ") << symbol;
  if (store && !global.getIsMutable())
    return op->emitOpError("stores into an immutable global");
  FailureOr<memref::GlobalOp> device = deviceGlobalFor(global, module);
  if (failed(device))
    return failure();
  MemRefType memType = device->getType();
  int64_t count = std::max<int64_t>(1, memType.getNumElements());

  KernelLaunch launch = launchFor(op, llvm::divideCeil(count, kCopyBlock),
                                  std::min<int64_t>(count, kCopyBlock));
  ImplicitLocOpBuilder b(op->getLoc(), op->getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  b.setInsertionPointToStart(&func.getBody().front());
  Value state = memref::GetGlobalOp::create(b, memType, device->getSymName());
  // A load's kernel takes its result buffer; a store's the stored value.
  Value buffer = func.getArgument(0);
  if (load)
    emitCopy(b, state, buffer, count);
  else
    emitCopy(b, buffer, state, count);
  return launch;
}
