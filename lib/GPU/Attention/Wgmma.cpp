//===- Wgmma.cpp - Attention's GEMMs on warpgroup MMA (sm_90a) ------------===//
//
// Part of the Sinter project.
//
// S = Q K^T is D/16 wgmma m64nBNk16 per warpgroup, both operands read from
// shared memory by descriptor (SharedLayout.h); O += P V is BN/16 wgmma
// m64nDk16 with P from registers (the m64nNk16 A layout is mma.sync's, per
// warp) and V read N-major. The GEMMs are issued and committed, not waited
// for: the accumulators pass through wgmma.fence and wgmma.wait_group as
// tied operands, so nothing touches them while a wgmma is in flight.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

SmallVector<Value> FragmentBuilder::asmTied(StringRef text,
                                            ArrayRef<Value> vals) {
  // Inline PTX `text` with `vals` passed through as tied in/out operands:
  // it orders the values after (and their later uses after) the
  // instruction, e.g. reading accumulators only after wgmma.wait_group.
  // MLIR 22's nvvm.wgmma.fence.aligned and nvvm.wgmma.wait.group.sync.aligned
  // take no operands, so they cannot say which registers they order (CUTLASS's
  // warpgroup_fence_operand); with them LLVM may read an accumulator before
  // the wait or write a fragment after the fence.
  std::string cons;
  SmallVector<Type> types;
  for (Value v : vals) {
    cons += std::string(cons.empty() ? "" : ",") +
            (v.getType().isF32() ? "=f" : "=r");
    types.push_back(v.getType());
  }
  for (size_t i = 0; i < vals.size(); ++i)
    cons += "," + std::to_string(i);
  if (vals.empty())
    cons = "~{memory}";
  return callAsm(text, cons, vals, types);
}

SmallVector<Value> FragmentBuilder::wgmma(int64_t n, ArrayRef<Value> acc,
                                          ArrayRef<Value> aRegs, Value descA,
                                          Value descB, bool accumulate,
                                          bool transB) {
  // Inline PTX: MLIR 22's nvvm.wgmma.mma_async has only the form with A in
  // shared memory (a descriptor); P V takes A from registers. (That op is
  // itself a PTX-builder op, inline asm after convert-nvvm-to-llvm, so S
  // through it would still be inline PTX; both GEMMs share this one.)
  int64_t nAcc = static_cast<int64_t>(acc.size());
  std::string ty = elt.isBF16() ? "bf16" : "f16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                     std::to_string(nAcc) +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(n) + "k16.f32." + ty + "." + ty + " {";
  for (int64_t i = 0; i < nAcc; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, ";
  SmallVector<Value> operands{
      arith::ConstantIntOp::create(b, accumulate ? 1 : 0, 32)};
  std::string cons;
  for (int64_t i = 0; i < nAcc; ++i)
    cons += i ? ",=f" : "=f";
  cons += ",r";
  int64_t next = nAcc + 1;
  if (!aRegs.empty()) {
    text += "{";
    for (size_t i = 0; i < aRegs.size(); ++i) {
      text += (i ? ", $" : "$") + std::to_string(next++);
      operands.push_back(aRegs[i]);
      cons += ",r";
    }
    text += "}, ";
  } else {
    text += "$" + std::to_string(next++) + ", ";
    operands.push_back(descA);
    cons += ",l";
  }
  // scale-d p, imm-scale-a 1, imm-scale-b 1, then imm-trans-a (descriptor
  // A only) and imm-trans-b.
  text += "$" + std::to_string(next++) + ", p, 1, 1";
  operands.push_back(descB);
  cons += ",l";
  text += aRegs.empty() ? ", 0" : "";
  text += transB ? ", 1;\n}" : ", 0;\n}";
  for (int64_t i = 0; i < nAcc; ++i) {
    operands.push_back(acc[i]);
    cons += "," + std::to_string(i);
  }
  SmallVector<Type> types(nAcc, b.getF32Type());
  return callAsm(text, cons, operands, types);
}

Value FragmentBuilder::descriptor(Value tile, int64_t byteOffset,
                                  const WgmmaDescriptor &layout,
                                  Value rowOffset) {
  // The start address (low half) of `tile` plus `rowOffset` (bytes, a
  // value) and `byteOffset`; the tiles are 1024-aligned, so the base
  // offset is 0.
  Value addr = arith::IndexCastOp::create(
      b, b.getI32Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, tile));
  if (rowOffset)
    addr = arith::AddIOp::create(b, addr, rowOffset);
  Value lo = arith::ShRUIOp::create(
      b,
      arith::AndIOp::create(
          b, addr, kb.i32(static_cast<int32_t>(WgmmaDescriptor::kAddressMask))),
      kb.i32(WgmmaDescriptor::kEncodeShift));
  lo = arith::OrIOp::create(b, lo, kb.i32(layout.lowConstant()));
  if (byteOffset)
    lo = arith::AddIOp::create(
        b, lo,
        kb.i32(static_cast<int32_t>(WgmmaDescriptor::encode(byteOffset))));
  Value lo64 = arith::ExtUIOp::create(b, b.getI64Type(), lo);
  return arith::OrIOp::create(
      b, lo64, arith::ConstantIntOp::create(b, layout.high() << 32, 64));
}

SmallVector<Value> MMAKernel::issueS(Value kTile) {
  // One warpgroup-wide m64nBNk16 per 16 head-dim columns: Q of this
  // warpgroup's 64 rows and K straight from shared memory.
  Value wg = wgIdxU;
  Value qOff = arith::IndexCastOp::create(
      b, b.getI32Type(), mb.mul(wg, kWarpgroupRows * swizzle::kRowBytes));
  SmallVector<Value> acc = mb.flatten(SmallVector<Value>(NT, mb.zeroAcc()));
  for (int64_t kstep = 0; kstep < KS; ++kstep) {
    Value dq =
        mb.descriptor(qs, swizzle::kStepOffset(kstep, BM), kKMajor, qOff);
    Value dk = mb.descriptor(kTile, swizzle::kStepOffset(kstep, BN), kKMajor);
    acc = mb.wgmma(BN, acc, {}, dq, dk, kstep > 0, /*transB=*/false);
  }
  commitGroup();
  return acc;
}

SmallVector<Value> MMAKernel::pRegisters(ArrayRef<Value> S) {
  // P in the A layout (one m-tile) as 32-bit registers.
  SmallVector<Value> regs;
  for (int64_t kk = 0; kk < NT / 2; ++kk)
    for (Value pe : pOperand(S, /*mt=*/0, kk))
      regs.push_back(LLVM::BitcastOp::create(b, b.getI32Type(), pe));
  return regs;
}

SmallVector<Value> MMAKernel::issuePV(ArrayRef<Value> acc,
                                      ArrayRef<Value> pRegs, Value vTile) {
  // One m64nDk16 per 16 keys. `acc` and `pRegs` must have passed a
  // wgmma.fence since ordinary instructions last wrote them.
  SmallVector<Value> out(acc);
  for (int64_t kk = 0; kk < NT / 2; ++kk) {
    Value dv = mb.descriptor(vTile, swizzle::kRowStepOffset(kk), nMajor(BN));
    out = mb.wgmma(D, out, pRegs.slice(4 * kk, 4), Value(), dv, true,
                   /*transB=*/true);
  }
  commitGroup();
  return out;
}

std::pair<SmallVector<Value>, SmallVector<Value>>
MMAKernel::fenceOP(ArrayRef<Value> O, ArrayRef<Value> pRegs) {
  // O's accumulators and the P registers through one wgmma.fence:
  // registers written by ordinary instructions (rescaled O, packed P) reach
  // wgmma only after it.
  SmallVector<Value> vals = mb.flatten(O);
  vals.append(pRegs.begin(), pRegs.end());
  SmallVector<Value> regs = mb.asmTied("wgmma.fence.sync.aligned;", vals);
  return std::make_pair(SmallVector<Value>(regs.begin(), regs.begin() + 4 * DT),
                        SmallVector<Value>(regs.begin() + 4 * DT, regs.end()));
}

SmallVector<Value> MMAKernel::waitGroup(int pending, ArrayRef<Value> acc) {
  return mb.asmTied(
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";", acc);
}

void MMAKernel::commitGroup() { NVVM::WgmmaGroupSyncAlignedOp::create(b); }
