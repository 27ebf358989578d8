//===- VectorizeMatmuls.cpp - Register-tiled leftover matmuls -------------===//
//
// Part of the Sinter project.
//
// See the pass description (include/sinter/Target/CPU/Passes.td). The full
// rows x cols tiles of C get a register-tiled micro-kernel; the strips
// that do not fill a tile (right and bottom) stay linalg.matmul on
// subviews, for the scalar path that follows.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace sinter {
#define GEN_PASS_DEF_VECTORIZEMATMULSPASS
#include "sinter/Target/CPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {
/// Whether `op` (a linalg.matmul, or a linalg.batch_matmul with `rank`
/// 3) is one the micro-kernel can take: buffers, one f32 or f64 element
/// type throughout, the default maps, and operands whose rows are
/// contiguous (vector loads and stores need a unit stride in the last
/// dimension).
template <typename OpTy> bool isPlain(OpTy op, int64_t rank) {
  if (!op.hasPureBufferSemantics() || op.hasUserDefinedMaps())
    return false;
  Type elt;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || type.getRank() != rank || !type.isLastDimUnitStride())
      return false;
    if (elt && type.getElementType() != elt)
      return false;
    elt = type.getElementType();
  }
  return elt && (elt.isF32() || elt.isF64());
}

struct VectorizeMatmulsPass
    : public sinter::impl::VectorizeMatmulsPassBase<VectorizeMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (rows < 1 || cols < 1) {
      getOperation().emitError("sinter-cpu-vectorize-matmuls: rows and cols "
                               "must be positive");
      return signalPassFailure();
    }
    SmallVector<linalg::MatmulOp> ops;
    SmallVector<linalg::BatchMatmulOp> batched;
    getOperation().walk([&](Operation *op) {
      if (auto mm = dyn_cast<linalg::MatmulOp>(op); mm && isPlain(mm, 2))
        ops.push_back(mm);
      if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op);
          bmm && isPlain(bmm, 3))
        batched.push_back(bmm);
    });
    for (linalg::BatchMatmulOp op : batched)
      ops.push_back(unbatch(op));
    for (linalg::MatmulOp op : ops)
      rewrite(op);
  }

  /// A loop over the batch around a linalg.matmul on each batch's
  /// matrices (rank-reducing subviews: their rows stay contiguous).
  linalg::MatmulOp unbatch(linalg::BatchMatmulOp op) {
    ImplicitLocOpBuilder b(op.getLoc(), op);
    Value zero = arith::ConstantIndexOp::create(b, 0);
    Value one = arith::ConstantIndexOp::create(b, 1);
    Value c = op.getDpsInitOperand(0)->get();
    auto loop =
        scf::ForOp::create(b, zero, memref::DimOp::create(b, c, zero), one);
    b.setInsertionPointToStart(loop.getBody());
    auto matrix = [&](Value v) -> Value {
      auto type = cast<MemRefType>(v.getType());
      SmallVector<OpFoldResult> offsets{loop.getInductionVar(),
                                        b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, b.getLoc(), v);
      sizes[0] = b.getIndexAttr(1);
      SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
      auto reduced = memref::SubViewOp::inferRankReducedResultType(
          {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes,
          strides);
      return memref::SubViewOp::create(b, cast<MemRefType>(reduced), v, offsets,
                                       sizes, strides);
    };
    Value a = matrix(op.getDpsInputOperand(0)->get());
    Value bm = matrix(op.getDpsInputOperand(1)->get());
    Value cm = matrix(c);
    auto mm = linalg::MatmulOp::create(b, ValueRange{a, bm}, ValueRange{cm});
    op.erase();
    return mm;
  }

  /// C[i:i+R, j:j+N] += A[i:i+R, :] B[:, j:j+N] for every full tile (j
  /// outer, so that a column panel of B stays in cache across the rows),
  /// then the two strips left over as linalg.matmul.
  void rewrite(linalg::MatmulOp op) {
    ImplicitLocOpBuilder b(op.getLoc(), op);
    Value a = op.getDpsInputOperand(0)->get();
    Value bm = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    Type elt = cast<MemRefType>(c.getType()).getElementType();
    // The tile's width in elements: `cols` f32 lanes, as many bytes in f64.
    const int64_t R = rows,
                  N = elt.isF64() ? std::max<int64_t>(1, cols / 2) : cols;
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, v);
    };
    Value zero = idx(0), one = idx(1), tileRows = idx(R), tileCols = idx(N);
    SmallVector<Value> rowOffsets;
    for (int64_t r = 1; r < R; ++r)
      rowOffsets.push_back(idx(r));
    Value m = memref::DimOp::create(b, c, zero);
    Value n = memref::DimOp::create(b, c, one);
    Value k = memref::DimOp::create(b, a, one);
    // The extents the full tiles cover: m - m % R, n - n % N.
    Value mFull =
        arith::SubIOp::create(b, m, arith::RemUIOp::create(b, m, tileRows));
    Value nFull =
        arith::SubIOp::create(b, n, arith::RemUIOp::create(b, n, tileCols));
    VectorType vec = VectorType::get({N}, elt);
    auto jLoop = scf::ForOp::create(b, zero, nFull, tileCols);
    b.setInsertionPointToStart(jLoop.getBody());
    Value j = jLoop.getInductionVar();
    auto iLoop = scf::ForOp::create(b, zero, mFull, tileRows);
    b.setInsertionPointToStart(iLoop.getBody());
    Value i = iLoop.getInductionVar();
    SmallVector<Value> rowIdx{i};
    for (Value r : rowOffsets)
      rowIdx.push_back(arith::AddIOp::create(b, i, r));
    SmallVector<Value> acc;
    for (Value row : rowIdx)
      acc.push_back(vector::LoadOp::create(b, vec, c, ValueRange{row, j}));
    // One step of k: a row of B, and per row of the tile one FMA with a
    // broadcast element of A (in k order, as the loops accumulated).
    auto kLoop = scf::ForOp::create(b, zero, k, one, acc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      Value row = vector::LoadOp::create(b, vec, bm, ValueRange{kk, j});
      SmallVector<Value> next;
      for (int64_t r = 0; r < R; ++r) {
        Value x = memref::LoadOp::create(b, a, ValueRange{rowIdx[r], kk});
        Value splat = vector::BroadcastOp::create(b, vec, x);
        next.push_back(
            vector::FMAOp::create(b, splat, row, kLoop.getRegionIterArgs()[r]));
      }
      scf::YieldOp::create(b, next);
    }
    for (int64_t r = 0; r < R; ++r)
      vector::StoreOp::create(b, kLoop.getResult(r), c,
                              ValueRange{rowIdx[r], j});
    // The strips: columns past nFull over the full rows, then the rows
    // past mFull over every column (either may be empty).
    b.setInsertionPoint(op);
    OpFoldResult origin = b.getIndexAttr(0), unit = b.getIndexAttr(1);
    auto sub = [&](Value v, OpFoldResult r0, OpFoldResult rs, OpFoldResult c0,
                   OpFoldResult cs) -> Value {
      return memref::SubViewOp::create(b, v, ArrayRef<OpFoldResult>{r0, c0},
                                       ArrayRef<OpFoldResult>{rs, cs},
                                       ArrayRef<OpFoldResult>{unit, unit});
    };
    Value nRest = arith::SubIOp::create(b, n, nFull);
    Value mRest = arith::SubIOp::create(b, m, mFull);
    Value rightA = sub(a, origin, mFull, origin, k);
    Value rightB = sub(bm, origin, k, nFull, nRest);
    Value rightC = sub(c, origin, mFull, nFull, nRest);
    linalg::MatmulOp::create(b, ValueRange{rightA, rightB}, ValueRange{rightC});
    Value bottomA = sub(a, mFull, mRest, origin, k);
    Value bottomC = sub(c, mFull, mRest, origin, n);
    linalg::MatmulOp::create(b, ValueRange{bottomA, bm}, ValueRange{bottomC});
    op.erase();
  }
};
} // namespace
