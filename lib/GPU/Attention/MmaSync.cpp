//===- MmaSync.cpp - Attention's GEMMs on mma.sync (sm_80) ----------------===//
//
// Part of the Sinter project.
//
// S = Q K^T and O += P V with mma.sync.m16n8k16 (row.col, f32
// accumulators). Q, K and V are row-major tiles in shared memory, rows
// padded by 16 bytes, read with ldmatrix.x4: K as the "column-major" B
// operand needs no transpose, V is read with ldmatrix.trans. P stays in
// registers: the accumulator layout of two adjacent n-tiles of S is the A
// layout of one k-step of P V.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

Value FragmentBuilder::ldmatrix(Value smem, Value r, Value c, bool transpose) {
  return nvgpu::LdMatrixOp::create(b, frag4x2, smem, ValueRange{r, c},
                                   b.getBoolAttr(transpose),
                                   b.getI32IntegerAttr(4));
}

FragmentBuilder::LdmatrixLanes FragmentBuilder::ldmatrixLanes(Value lane) {
  Value l8 = arith::RemUIOp::create(b, lane, kb.idx(8));
  Value m1 = arith::RemUIOp::create(
      b, arith::DivUIOp::create(b, lane, kb.idx(8)), kb.idx(2));
  Value m2 = arith::DivUIOp::create(b, lane, kb.idx(16));
  return {add(l8, mul(m1, 8)), mul(m2, 8), add(l8, mul(m2, 8)), mul(m1, 8)};
}

Value FragmentBuilder::half(Value x4, int64_t h) {
  return vector::ExtractStridedSliceOp::create(
      b, x4, ArrayRef<int64_t>{2 * h, 0}, ArrayRef<int64_t>{2, 2},
      ArrayRef<int64_t>{1, 1});
}

/// The 32-bit registers of `n` element pairs of `frag`: i32 for bf16,
/// vector<2xf16> for f16.
static SmallVector<Value> mmaRegisters(ImplicitLocOpBuilder &b, Type elt,
                                       Value frag, int64_t n) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i) {
    Value r = vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{i});
    if (elt.isBF16())
      r = LLVM::BitcastOp::create(b, b.getI32Type(), r);
    out.push_back(r);
  }
  return out;
}

Value FragmentBuilder::mma(Value a, Value bFrag, Value c) {
  // Through NVVM: nvgpu.mma.sync does not lower bf16.
  SmallVector<Value> cs;
  for (int64_t i = 0; i < 4; ++i)
    cs.push_back(
        vector::ExtractOp::create(b, c, ArrayRef<int64_t>{i / 2, i % 2}));
  Type f32 = b.getF32Type();
  auto resType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes ptx =
      elt.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value d = NVVM::MmaOp::create(
      b, resType, mmaRegisters(b, elt, a, 4), mmaRegisters(b, elt, bFrag, 2),
      cs, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptx, ptx},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> ds;
  for (int64_t i = 0; i < 4; ++i)
    ds.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{i}));
  return vector::FromElementsOp::create(b, acc2x2, ds);
}

SmallVector<Value> MMAKernel::mmaS(Value kTile) {
  SmallVector<Value> S(MT * NT, mb.zeroAcc());
  for (int64_t kstep = 0; kstep < KS; ++kstep) {
    SmallVector<Value> A;
    for (int64_t mt = 0; mt < MT; ++mt)
      A.push_back(mb.ldmatrix(qs, mb.add(mb.add(warpRow, rowA), 16 * mt),
                              mb.add(colA, 16 * kstep), false));
    for (int64_t np = 0; np < NT / 2; ++np) {
      Value bk = mb.ldmatrix(kTile, mb.add(rowK, 16 * np),
                             mb.add(colK, 16 * kstep), false);
      Value b0 = mb.half(bk, 0), b1 = mb.half(bk, 1);
      for (int64_t mt = 0; mt < MT; ++mt) {
        S[mt * NT + 2 * np] = mb.mma(A[mt], b0, S[mt * NT + 2 * np]);
        S[mt * NT + 2 * np + 1] = mb.mma(A[mt], b1, S[mt * NT + 2 * np + 1]);
      }
    }
  }
  return S;
}

SmallVector<Value, 4> MMAKernel::pOperand(ArrayRef<Value> S, int64_t mt,
                                          int64_t kk) {
  // P packed to the operand type in the A layout: the A registers of k-step
  // kk of m-tile mt are rows r of P's fragments 2kk and 2kk+1 (a0a1: row,
  // k lo; a2a3: row+8, k lo; a4a5: row, k hi; a6a7: row+8, k hi), two
  // elements each.
  SmallVector<Value, 4> regs;
  for (int64_t part = 0; part < 4; ++part)
    regs.push_back(arith::TruncFOp::create(
        b, mb.elt2, mb.row(S[mt * NT + 2 * kk + part / 2], part % 2)));
  return regs;
}

SmallVector<Value> MMAKernel::mmaPV(SmallVector<Value> O, ArrayRef<Value> S,
                                    Value vTile) {
  for (int64_t kk = 0; kk < NT / 2; ++kk) {
    SmallVector<Value> A;
    for (int64_t mt = 0; mt < MT; ++mt) {
      Value frag = arith::ConstantOp::create(
          b, mb.frag4x2,
          DenseElementsAttr::get(mb.frag4x2, b.getZeroAttr(mb.elt)));
      for (auto [part, pe] : llvm::enumerate(pOperand(S, mt, kk)))
        frag = vector::InsertOp::create(
            b, pe, frag, ArrayRef<int64_t>{static_cast<int64_t>(part)});
      A.push_back(frag);
    }
    for (int64_t nd = 0; nd < DT / 2; ++nd) {
      Value bv = mb.ldmatrix(vTile, mb.add(rowA, 16 * kk),
                             mb.add(colA, 16 * nd), /*transpose=*/true);
      Value b0 = mb.half(bv, 0), b1 = mb.half(bv, 1);
      for (int64_t mt = 0; mt < MT; ++mt) {
        O[mt * DT + 2 * nd] = mb.mma(A[mt], b0, O[mt * DT + 2 * nd]);
        O[mt * DT + 2 * nd + 1] = mb.mma(A[mt], b1, O[mt * DT + 2 * nd + 1]);
      }
    }
  }
  return O;
}
