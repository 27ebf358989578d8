//===- KernelBuilder.cpp - Helpers to write CUDA kernels in MLIR ----------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace sinter::gpu_kernels;

gpu::GPUFuncOp sinter::gpu_kernels::createKernel(ImplicitLocOpBuilder &b,
                                                 gpu::GPUModuleOp module,
                                                 StringRef name,
                                                 TypeRange argTypes,
                                                 int64_t blockSize) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(
      b, name, b.getFunctionType(argTypes, /*results=*/{}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(blockSize), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b);
  return func;
}

Value KernelBuilder::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
Value KernelBuilder::i32(int32_t v) {
  return arith::ConstantIntOp::create(b, v, 32);
}
Value KernelBuilder::f32(double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}
Value KernelBuilder::threadId() {
  return gpu::ThreadIdOp::create(b, gpu::Dimension::x);
}
Value KernelBuilder::blockId() {
  return gpu::BlockIdOp::create(b, gpu::Dimension::x);
}

Value KernelBuilder::flatten(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  SmallVector<ReassociationIndices> reassoc(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    reassoc[0].push_back(i);
  return memref::CollapseShapeOp::create(b, memref, reassoc);
}

Value KernelBuilder::splat(Value scalar, int64_t width) {
  return vector::BroadcastOp::create(
      b, VectorType::get({width}, scalar.getType()), scalar);
}

Value KernelBuilder::loadF32(Value memref, Value index, int64_t width,
                             Value pred, double fill, bool aligned) {
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  auto vecType = VectorType::get({width}, elt);
  auto f32VecType = VectorType::get({width}, b.getF32Type());
  int64_t bytes = width * elt.getIntOrFloatBitWidth() / 8;
  auto emitLoad = [&](OpBuilder &ob, Location loc) -> Value {
    auto load = vector::LoadOp::create(ob, loc, vecType, memref, index);
    if (aligned)
      load.setAlignment(std::min<int64_t>(bytes, 16));
    Value v = load;
    if (!elt.isF32())
      v = arith::ExtFOp::create(ob, loc, f32VecType, v);
    return v;
  };
  if (!pred)
    return emitLoad(b, b.getLoc());
  auto ifOp = scf::IfOp::create(
      b, pred,
      [&](OpBuilder &ob, Location loc) {
        scf::YieldOp::create(ob, loc, emitLoad(ob, loc));
      },
      [&](OpBuilder &ob, Location loc) {
        Value c = arith::ConstantOp::create(
            ob, loc, f32VecType,
            DenseElementsAttr::get(f32VecType,
                                   ob.getF32FloatAttr(fill).getValue()));
        scf::YieldOp::create(ob, loc, c);
      });
  return ifOp.getResult(0);
}

void KernelBuilder::storeF32(Value memref, Value index, Value value, Value pred,
                             bool aligned) {
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  auto vecType = cast<VectorType>(value.getType());
  int64_t width = vecType.getNumElements();
  int64_t bytes = width * elt.getIntOrFloatBitWidth() / 8;
  auto emitStore = [&](OpBuilder &ob, Location loc) {
    Value v = value;
    if (!elt.isF32())
      v = arith::TruncFOp::create(ob, loc, VectorType::get({width}, elt), v);
    auto store = vector::StoreOp::create(ob, loc, v, memref, index);
    if (aligned)
      store.setAlignment(std::min<int64_t>(bytes, 16));
  };
  if (!pred) {
    emitStore(b, b.getLoc());
    return;
  }
  scf::IfOp::create(b, pred, [&](OpBuilder &ob, Location loc) {
    emitStore(ob, loc);
    scf::YieldOp::create(ob, loc);
  });
}

Value KernelBuilder::combine(ReduceKind kind, Value x, Value y) {
  if (kind == ReduceKind::Sum)
    return arith::AddFOp::create(b, x, y);
  return arith::MaximumFOp::create(b, x, y);
}

Value KernelBuilder::reduceVector(ReduceKind kind, Value vec) {
  auto k = kind == ReduceKind::Sum ? vector::CombiningKind::ADD
                                   : vector::CombiningKind::MAXIMUMF;
  return vector::ReductionOp::create(b, k, vec);
}

Value KernelBuilder::groupReduce(Value value, ReduceKind kind,
                                 int64_t groupSize, Value lane,
                                 Value groupIndex, Value smem) {
  // Butterfly within a warp: xor offsets below the group size stay inside
  // the group, and every lane ends up with the group's result.
  for (int64_t off = std::min<int64_t>(groupSize, 32) / 2; off >= 1; off /= 2) {
    auto shfl = gpu::ShuffleOp::create(b, value, static_cast<int32_t>(off), 32,
                                       gpu::ShuffleMode::XOR);
    value = combine(kind, value, shfl.getShuffleResult());
  }
  if (groupSize <= 32)
    return value;
  // Across the warps of the group: lane 0 of each warp publishes its value,
  // then every lane combines the group's slots.
  int64_t warps = groupSize / 32;
  Value c32 = idx(32);
  Value warpInGroup = arith::DivUIOp::create(b, lane, c32);
  Value laneInWarp = arith::RemUIOp::create(b, lane, c32);
  Value base = arith::MulIOp::create(b, groupIndex, idx(warps));
  Value slot = arith::AddIOp::create(b, base, warpInGroup);
  Value isLeader =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, laneInWarp, idx(0));
  scf::IfOp::create(b, isLeader, [&](OpBuilder &ob, Location loc) {
    memref::StoreOp::create(ob, loc, value, smem, ValueRange{slot});
    scf::YieldOp::create(ob, loc);
  });
  gpu::BarrierOp::create(b);
  Value acc;
  for (int64_t w = 0; w < warps; ++w) {
    Value at = arith::AddIOp::create(b, base, idx(w));
    Value v = memref::LoadOp::create(b, smem, ValueRange{at});
    acc = acc ? combine(kind, acc, v) : v;
  }
  return acc;
}
