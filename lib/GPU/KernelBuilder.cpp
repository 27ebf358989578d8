//===- KernelBuilder.cpp - Helpers to write CUDA kernels in MLIR ----------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "sinter/Conversion/Philox.h"
#include "llvm/ADT/StringSwitch.h"

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

Value sinter::gpu_kernels::kernelScalarOperand(Value scalar) {
  if (auto extract = scalar.getDefiningOp<tensor::ExtractOp>();
      extract && extract.getTensor().getType().getRank() == 0 &&
      extract.getTensor().getType().getElementType() == scalar.getType())
    return extract.getTensor();
  return scalar;
}

Value sinter::gpu_kernels::scalarInKernel(ImplicitLocOpBuilder &b, Value arg) {
  if (isa<MemRefType>(arg.getType()))
    return memref::LoadOp::create(b, arg, ValueRange{});
  return arg;
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
Value KernelBuilder::gridDim() {
  return gpu::GridDimOp::create(b, gpu::Dimension::x);
}

Value KernelBuilder::flatten(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  if (type.getRank() == 0) // A scalar: one element.
    return memref::ExpandShapeOp::create(b, ArrayRef<int64_t>{1}, memref,
                                         ArrayRef<ReassociationIndices>{});
  SmallVector<ReassociationIndices> reassoc(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    reassoc[0].push_back(i);
  return memref::CollapseShapeOp::create(b, memref, reassoc);
}

Value KernelBuilder::splat(Value scalar, int64_t width) {
  return vector::BroadcastOp::create(
      b, VectorType::get({width}, scalar.getType()), scalar);
}

std::optional<CacheHint> sinter::gpu_kernels::parseCacheHint(StringRef text) {
  return llvm::StringSwitch<std::optional<CacheHint>>(text.trim())
      .Case("none", CacheHint::None)
      .Case("evict-first", CacheHint::EvictFirst)
      .Case("no-allocate", CacheHint::NoAllocate)
      .Case("l2-256b", CacheHint::L2Prefetch256B)
      .Case("streaming", CacheHint::Streaming)
      .Default(std::nullopt);
}

bool KernelBuilder::hinted(Value memref, int64_t bytes, bool aligned,
                           bool isStore) {
  if (!aligned || bytes != 16)
    return false;
  if (!cast<MemRefType>(memref.getType()).getLayout().isIdentity())
    return false;
  switch (hint) {
  case CacheHint::None:
    return false;
  case CacheHint::EvictFirst:
  case CacheHint::Streaming:
    return true;
  case CacheHint::NoAllocate:
  case CacheHint::L2Prefetch256B:
    return !isStore; // load-only hints
  }
  return false;
}

Value KernelBuilder::evictFirstPolicy() {
  if (policy)
    return policy;
  OpBuilder::InsertionGuard guard(b);
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto func = dyn_cast<gpu::GPUFuncOp>(parent);
  if (!func)
    func = parent->getParentOfType<gpu::GPUFuncOp>();
  b.setInsertionPointToStart(&func.getBody().front());
  // Fraction 1.0: every line the hinted accesses touch is evict-first.
  policy =
      LLVM::InlineAsmOp::create(
          b, b.getI64Type(), ValueRange{},
          "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l",
          /*has_side_effects=*/false, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr())
          .getRes();
  return policy;
}

/// The global-space address of element `index` of the 1-D identity-layout
/// `memref`: its aligned pointer converted to the global space (cvta.to.global,
/// once per buffer) plus the byte offset.
static Value globalAddress(OpBuilder &ob, Location loc, Value memref,
                           Value index) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  MLIRContext *ctx = ob.getContext();
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(ob, loc, memref);
  Value generic = LLVM::IntToPtrOp::create(
      ob, loc, LLVM::LLVMPointerType::get(ctx),
      arith::IndexCastOp::create(ob, loc, ob.getI64Type(), base).getResult());
  Value global = LLVM::AddrSpaceCastOp::create(
      ob, loc, LLVM::LLVMPointerType::get(ctx, /*global=*/1), generic);
  Value bytes = arith::MulIOp::create(
      ob, loc, index,
      arith::ConstantIndexOp::create(ob, loc, elt.getIntOrFloatBitWidth() / 8));
  return LLVM::GEPOp::create(
      ob, loc, global.getType(), ob.getI8Type(), global,
      ValueRange{arith::IndexCastOp::create(ob, loc, ob.getI64Type(), bytes)
                     .getResult()});
}

static LLVM::InlineAsmOp inlinePTX(OpBuilder &ob, Location loc, Type result,
                                   ValueRange operands, StringRef text,
                                   StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      ob, loc, result, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ob.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

Value KernelBuilder::load(Value memref, Value index, int64_t width, Value pred,
                          double fill, bool aligned, bool stream, bool toF32) {
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  auto vecType = VectorType::get({width}, elt);
  auto f32VecType = VectorType::get({width}, b.getF32Type());
  int64_t bytes = width * elt.getIntOrFloatBitWidth() / 8;
  bool useHint = stream && hinted(memref, bytes, aligned, /*isStore=*/false);
  Value pol =
      useHint && hint == CacheHint::EvictFirst ? evictFirstPolicy() : Value();
  // 16 bytes as four b32 registers, reinterpreted as the element vector.
  auto emitHintedLoad = [&](OpBuilder &ob, Location loc) -> Value {
    SmallVector<Value> operands = {globalAddress(ob, loc, memref, index)};
    StringRef text, constraints = "=r,=r,=r,=r,l";
    switch (hint) {
    case CacheHint::EvictFirst:
      text = "ld.global.L1::no_allocate.L2::cache_hint.v4.b32 "
             "{$0, $1, $2, $3}, [$4], $5;";
      constraints = "=r,=r,=r,=r,l,l";
      operands.push_back(pol);
      break;
    case CacheHint::NoAllocate:
      text = "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4];";
      break;
    case CacheHint::L2Prefetch256B:
      text = "ld.global.L2::256B.v4.b32 {$0, $1, $2, $3}, [$4];";
      break;
    case CacheHint::Streaming:
      text = "ld.global.cs.v4.b32 {$0, $1, $2, $3}, [$4];";
      break;
    case CacheHint::None:
      llvm_unreachable("no hinted load without a hint");
    }
    Type i32 = ob.getI32Type();
    auto words =
        LLVM::LLVMStructType::getLiteral(ob.getContext(), {i32, i32, i32, i32});
    Value res = inlinePTX(ob, loc, words, operands, text, constraints).getRes();
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 4; ++i)
      parts.push_back(LLVM::ExtractValueOp::create(ob, loc, res, i));
    Value v = vector::FromElementsOp::create(ob, loc, VectorType::get({4}, i32),
                                             parts);
    return vector::BitCastOp::create(ob, loc, vecType, v);
  };
  auto emitLoad = [&](OpBuilder &ob, Location loc) -> Value {
    Value v;
    if (useHint) {
      v = emitHintedLoad(ob, loc);
    } else {
      auto load = vector::LoadOp::create(ob, loc, vecType, memref, index);
      if (aligned)
        load.setAlignment(std::min<int64_t>(bytes, 16));
      v = load;
    }
    if (toF32 && !elt.isF32())
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
        VectorType t = toF32 ? f32VecType : vecType;
        Value c = arith::ConstantOp::create(
            ob, loc, t,
            DenseElementsAttr::get(
                t, ob.getFloatAttr(t.getElementType(), fill).getValue()));
        scf::YieldOp::create(ob, loc, c);
      });
  return ifOp.getResult(0);
}

void KernelBuilder::store(Value memref, Value index, Value value, Value pred,
                          bool aligned, bool stream) {
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  auto vecType = cast<VectorType>(value.getType());
  int64_t width = vecType.getNumElements();
  int64_t bytes = width * elt.getIntOrFloatBitWidth() / 8;
  bool useHint = stream && hinted(memref, bytes, aligned, /*isStore=*/true);
  Value pol =
      useHint && hint == CacheHint::EvictFirst ? evictFirstPolicy() : Value();
  auto emitStore = [&](OpBuilder &ob, Location loc) {
    Value v = value;
    if (!elt.isF32())
      v = arith::TruncFOp::create(ob, loc, VectorType::get({width}, elt), v);
    if (!useHint) {
      auto store = vector::StoreOp::create(ob, loc, v, memref, index);
      if (aligned)
        store.setAlignment(std::min<int64_t>(bytes, 16));
      return;
    }
    Type i32 = ob.getI32Type();
    Value words =
        vector::BitCastOp::create(ob, loc, VectorType::get({4}, i32), v);
    SmallVector<Value> operands = {globalAddress(ob, loc, memref, index)};
    for (int64_t i = 0; i < 4; ++i)
      operands.push_back(
          vector::ExtractOp::create(ob, loc, words, ArrayRef<int64_t>{i}));
    StringRef text, constraints = "l,r,r,r,r,~{memory}";
    if (hint == CacheHint::EvictFirst) {
      text = "st.global.L2::cache_hint.v4.b32 [$0], {$1, $2, $3, $4}, $5;";
      constraints = "l,r,r,r,r,l,~{memory}";
      operands.push_back(pol);
    } else {
      assert(hint == CacheHint::Streaming && "load-only hint on a store");
      text = "st.global.cs.v4.b32 [$0], {$1, $2, $3, $4};";
    }
    inlinePTX(ob, loc, Type(), operands, text, constraints);
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

Value KernelBuilder::loadF32(Value memref, Value index, int64_t width,
                             Value pred, double fill, bool aligned) {
  return load(memref, index, width, pred, fill, aligned, /*stream=*/false);
}

void KernelBuilder::storeF32(Value memref, Value index, Value value, Value pred,
                             bool aligned) {
  store(memref, index, value, pred, aligned, /*stream=*/false);
}

Value KernelBuilder::streamLoadF32(Value memref, Value index, int64_t width,
                                   Value pred) {
  return load(memref, index, width, pred, 0.0, /*aligned=*/true,
              /*stream=*/true);
}

void KernelBuilder::streamStoreF32(Value memref, Value index, Value value,
                                   Value pred) {
  store(memref, index, value, pred, /*aligned=*/true, /*stream=*/true);
}

SmallVector<Value> KernelBuilder::loadAll(ArrayRef<Value> memrefs,
                                          ArrayRef<Value> indices,
                                          int64_t width, Value pred, bool toF32,
                                          bool stream) {
  auto loadAll = [&]() {
    SmallVector<Value> vs;
    for (auto [m, i] : llvm::zip_equal(memrefs, indices))
      vs.push_back(
          load(m, i, width, Value(), 0.0, /*aligned=*/true, stream, toF32));
    return vs;
  };
  if (!pred)
    return loadAll();
  SmallVector<Type> types;
  for (Value m : memrefs)
    types.push_back(VectorType::get(
        {width}, toF32 ? b.getF32Type()
                       : cast<MemRefType>(m.getType()).getElementType()));
  auto ifOp = scf::IfOp::create(b, types, pred, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, loadAll());
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  SmallVector<Value> zeros;
  for (Type t : types)
    zeros.push_back(arith::ConstantOp::create(
        b, t,
        DenseElementsAttr::get(cast<VectorType>(t),
                               b.getZeroAttr(getElementTypeOrSelf(t)))));
  scf::YieldOp::create(b, zeros);
  return SmallVector<Value>(ifOp.getResults());
}

Value KernelBuilder::extF32(Value vec) {
  auto type = cast<VectorType>(vec.getType());
  if (type.getElementType().isF32())
    return vec;
  return arith::ExtFOp::create(
      b, VectorType::get(type.getShape(), b.getF32Type()), vec);
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
  return groupReduceAll({value}, kind, groupSize, lane, groupIndex, {smem})[0];
}

SmallVector<Value> KernelBuilder::groupReduceAll(ArrayRef<Value> values,
                                                 ReduceKind kind,
                                                 int64_t groupSize, Value lane,
                                                 Value groupIndex,
                                                 ArrayRef<Value> smems) {
  // Butterfly within a warp: xor offsets below the group size stay inside
  // the group, and every lane ends up with the group's result.
  SmallVector<Value> acc(values);
  for (int64_t off = std::min<int64_t>(groupSize, kWarpSize) / 2; off >= 1;
       off /= 2)
    for (Value &v : acc) {
      auto shfl = gpu::ShuffleOp::create(b, v, static_cast<int32_t>(off),
                                         static_cast<int32_t>(kWarpSize),
                                         gpu::ShuffleMode::XOR);
      v = combine(kind, v, shfl.getShuffleResult());
    }
  if (groupSize <= kWarpSize)
    return acc;
  // Across the warps of the group: lane 0 of each warp publishes its
  // values, then every lane combines the group's slots.
  int64_t warps = groupSize / kWarpSize;
  Value c32 = idx(kWarpSize);
  Value warpInGroup = arith::DivUIOp::create(b, lane, c32);
  Value laneInWarp = arith::RemUIOp::create(b, lane, c32);
  Value base = arith::MulIOp::create(b, groupIndex, idx(warps));
  Value slot = arith::AddIOp::create(b, base, warpInGroup);
  Value isLeader =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, laneInWarp, idx(0));
  scf::IfOp::create(b, isLeader, [&](OpBuilder &ob, Location loc) {
    for (auto [v, smem] : llvm::zip_equal(acc, smems))
      memref::StoreOp::create(ob, loc, v, smem, ValueRange{slot});
    scf::YieldOp::create(ob, loc);
  });
  gpu::BarrierOp::create(b);
  SmallVector<Value> out;
  for (Value smem : smems) {
    Value total;
    for (int64_t w = 0; w < warps; ++w) {
      Value at = arith::AddIOp::create(b, base, idx(w));
      Value v = memref::LoadOp::create(b, smem, ValueRange{at});
      total = total ? combine(kind, total, v) : v;
    }
    out.push_back(total);
  }
  return out;
}

SmallVector<Value> KernelBuilder::callAsm(StringRef text, StringRef cons,
                                          ArrayRef<Value> operands,
                                          ArrayRef<Type> types) {
  Type resType;
  if (types.size() == 1)
    resType = types[0];
  else if (!types.empty())
    resType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto op = LLVM::InlineAsmOp::create(
      b, resType, operands, text, cons, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  if (types.size() == 1)
    out.push_back(op.getResult(0));
  else
    for (size_t i = 0; i < types.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(
          b, op.getResult(0), ArrayRef<int64_t>{static_cast<int64_t>(i)}));
  return out;
}

Value KernelBuilder::sharedAddress(Value memref, Value byteOffset) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value at = arith::AddIOp::create(b, base, byteOffset);
  return arith::IndexCastOp::create(b, b.getI32Type(), at);
}

// The mbarrier helpers stay inline PTX on 32-bit shared-window addresses
// ("r" operands of the .shared forms). MLIR 22's nvvm.mbarrier.* and
// nvvm.cp.async.mbarrier.arrive take an !llvm.ptr<3>, which NVPTX keeps in
// 64 bits (no short pointers): each barrier address is then widened and
// masked (cvt.u64.u32, and.b64) and ptxas's register counts move (204 ->
// 208 on a D64 `ws` attention kernel; bench/ptx_snapshot.py). Upstream's
// nvvm.mbarrier.try_wait.parity also needs a suspend-time hint (ticks),
// which this wait does not give.
void KernelBuilder::mbarrierInit(Value bar, Value count) {
  callAsm("mbarrier.init.shared.b64 [$0], $1;", "r,r,~{memory}", {bar, count},
          {});
}

void KernelBuilder::mbarrierInitFence() {
  NVVM::FenceMbarrierInitOp::create(b);
}

void KernelBuilder::mbarrierWait(Value bar, Value parity) {
  // Labels are local to the braces: the wait may appear many times.
  callAsm("{\n.reg .pred p;\nWAIT:\n"
          "mbarrier.try_wait.parity.shared.b64 p, [$0], $1;\n"
          "@!p bra WAIT;\n}",
          "r,r,~{memory}", {bar, parity}, {});
}

void KernelBuilder::mbarrierArrive(Value bar) {
  callAsm("{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [$0];\n}",
          "r,~{memory}", {bar}, {});
}

void KernelBuilder::mbarrierCopyArrive(Value bar) {
  callAsm("cp.async.mbarrier.arrive.noinc.shared.b64 [$0];", "r,~{memory}",
          {bar}, {});
}

void KernelBuilder::mbarrierArriveExpectTx(Value bar, Value bytes) {
  callAsm("{\n.reg .b64 st;\n"
          "mbarrier.arrive.expect_tx.shared::cta.b64 st, [$0], $1;\n}",
          "r,r,~{memory}", {bar, bytes}, {});
}

// Inline PTX: upstream NVVM has the bulk reduction only in its tensor-map
// form (nvvm.cp.async.bulk.tensor.reduce); the plain shared-to-global copy
// (nvvm.cp.async.bulk.global.shared.cta) does not reduce.
void KernelBuilder::bulkReduceAddF32(Value dst, Value index, Value src,
                                     Value bytes) {
  callAsm("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
          "[$0], [$1], $2;",
          "l,r,r,~{memory}",
          {globalAddress(b, b.getLoc(), dst, index), src, bytes}, {});
}

void KernelBuilder::fenceProxyAsync() {
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

Operation *sinter::gpu_kernels::cloneForDevice(OpBuilder &b, Operation &op,
                                               IRMapping &mapping) {
  if (auto abs = dyn_cast<math::AbsIOp>(op)) {
    // |x| = x < 0 ? 0 - x : x
    Location loc = abs.getLoc();
    Value x = mapping.lookupOrDefault(abs.getOperand());
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
    Value neg = arith::SubIOp::create(b, loc, zero, x);
    Value lt =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
    auto sel = arith::SelectOp::create(b, loc, lt, neg, x);
    mapping.map(abs.getResult(), sel.getResult());
    return sel;
  }
  if (auto pow = dyn_cast<math::FPowIOp>(op);
      pow && isa<IntegerType>(pow.getRhs().getType()) &&
      pow.getRhs().getType().getIntOrFloatBitWidth() > 32) {
    // The NVVM lowering calls libdevice's __nv_powif, whose exponent is an
    // i32; torch-mlir's (aten.pow by an integer scalar) is an i64, which
    // the call would pass as garbage. Clamped into i32, keeping its parity
    // (the sign of a negative base): |x|^(2^30) already overflows or
    // underflows for every |x| != 1, as the wider exponent does.
    Location loc = pow.getLoc();
    Value e = mapping.lookupOrDefault(pow.getRhs());
    Type wide = e.getType();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(wide, v));
    };
    Value odd = arith::AndIOp::create(b, loc, e, cst(1));
    Value bound = arith::AddIOp::create(b, loc, cst(int64_t(1) << 30), odd);
    Value negBound = arith::SubIOp::create(b, loc, cst(0), bound);
    Value clamped = arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, e, bound), negBound);
    Value e32 = arith::TruncIOp::create(b, loc, b.getI32Type(), clamped);
    auto narrow = math::FPowIOp::create(
        b, loc, mapping.lookupOrDefault(pow.getLhs()), e32);
    mapping.map(pow.getResult(), narrow.getResult());
    return narrow;
  }
  return b.clone(op, mapping);
}

SmallVector<std::pair<Value, Value>>
sinter::gpu_kernels::cloneConstantsAbove(OpBuilder &b, Block &body) {
  llvm::SetVector<Value> above;
  body.walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && !body.findAncestorOpInBlock(*def) &&
          matchPattern(v, m_Constant()))
        above.insert(v);
  });
  SmallVector<std::pair<Value, Value>> cloned;
  for (Value v : above)
    cloned.push_back({v, b.clone(*v.getDefiningOp())->getResult(0)});
  return cloned;
}

void sinter::gpu_kernels::cloneElementOp(OpBuilder &b, Operation &op,
                                         IRMapping &mapping, bool fastTanh) {
  auto tanh = dyn_cast<math::TanhOp>(op);
  if (fastTanh && tanh && tanh.getType().isF32()) {
    // llvm.tanh with `afn` selects PTX tanh.approx.f32.
    auto approx = LLVM::TanhOp::create(
        b, tanh.getLoc(), mapping.lookup(tanh.getOperand()),
        LLVM::FastmathFlagsAttr::get(b.getContext(), LLVM::FastmathFlags::afn));
    mapping.map(tanh.getResult(), approx.getResult());
    return;
  }
  cloneForDevice(b, op, mapping);
}

namespace {
/// The high and low words of `m * x` for an i32 `x` on NVVM.
std::pair<Value, Value> nvvmMulHiLo(OpBuilder &b, Location loc, uint32_t m,
                                    Value x) {
  Type i32 = b.getI32Type();
  if (matchPattern(x, m_Zero())) {
    // The first round's zero counter words.
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    return {zero, zero};
  }
  Value mc = arith::ConstantIntOp::create(b, loc, i32, APInt(32, m));
  Value hi =
      LLVM::CallIntrinsicOp::create(
          b, loc, i32, b.getStringAttr("llvm.nvvm.mulhi.ui"), ValueRange{x, mc})
          .getResult(0);
  return {hi, arith::MulIOp::create(b, loc, x, mc)};
}
} // namespace

std::array<Value, 4> sinter::gpu_kernels::buildPhiloxOnGPU(OpBuilder &b,
                                                           Location loc,
                                                           Value counterI64,
                                                           Value seedI64) {
  return buildPhilox4x32(b, loc, counterI64, seedI64, nvvmMulHiLo);
}

Value sinter::gpu_kernels::buildPhiloxKeepOnGPU(OpBuilder &b, Location loc,
                                                Value offsetI64, Value seedI64,
                                                double p) {
  return buildPhiloxKeep(b, loc, offsetI64, seedI64, p, nvvmMulHiLo);
}
