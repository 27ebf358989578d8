//===- RowKernels.cpp - Softmax, LayerNorm and RMSNorm on CUDA ------------===//
//
// Part of the Sinter project.
//
// One row (the normalized trailing dimensions, flattened) per group of
// `threadsPerRow` lanes; small rows share a block. The row is read once into
// registers with 16-byte loads, reduced in f32 (warp shuffles, shared memory
// across warps) and written once. LayerNorm's variance is the mean of squared
// deviations from the mean, computed from the registers (two exact passes,
// no E[x^2] - E[x]^2).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

FailureOr<RowConfig>
sinter::gpu_kernels::chooseRowConfig(Operation *op, int64_t rows, int64_t cols,
                                     Type elt, const Tuning &tuning) {
  RowConfig c;
  c.rows = rows;
  c.cols = cols;
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  c.vec = 16 / bytes;
  while (c.vec > 1 && cols % c.vec != 0)
    c.vec /= 2;
  c.nvec = cols / c.vec;
  // Aim for `rowVectors` 16-byte vectors in flight per thread.
  c.threadsPerRow = std::min<int64_t>(
      1024, llvm::PowerOf2Ceil(std::max<int64_t>(
                1, llvm::divideCeil(c.nvec,
                                    std::max<int64_t>(1, tuning.rowVectors)))));
  c.perThread = llvm::divideCeil(c.nvec, c.threadsPerRow);
  if (c.perThread > 32)
    return op->emitOpError("rows of ")
           << cols << " elements exceed what the register-resident CUDA row "
           << "kernel holds (" << 32 * 1024 * c.vec << ")";
  c.rowsPerBlock = c.threadsPerRow >= tuning.rowBlock
                       ? 1
                       : tuning.rowBlock / c.threadsPerRow;
  c.block = c.threadsPerRow * c.rowsPerBlock;
  c.grid = llvm::divideCeil(rows, c.rowsPerBlock);
  return c;
}

namespace {
/// The per-thread view of one row: indices and predicates of its vectors.
struct RowThread {
  Value lane, rowInBlock, row, rowValid;
  SmallVector<Value> colIndex; // element index in the row, per vector
  SmallVector<Value> pred;     // null when always in bounds
};
} // namespace

static RowThread setupRow(KernelBuilder &kb, const RowConfig &c) {
  ImplicitLocOpBuilder &b = kb.builder();
  RowThread t;
  Value tid = kb.threadId();
  t.lane = arith::RemUIOp::create(b, tid, kb.idx(c.threadsPerRow));
  t.rowInBlock = arith::DivUIOp::create(b, tid, kb.idx(c.threadsPerRow));
  t.row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(c.rowsPerBlock)),
      t.rowInBlock);
  if (c.rows % c.rowsPerBlock != 0)
    t.rowValid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, t.row,
                                       kb.idx(c.rows));
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value v = arith::AddIOp::create(b, kb.idx(k * c.threadsPerRow), t.lane);
    t.colIndex.push_back(arith::MulIOp::create(b, v, kb.idx(c.vec)));
    Value p = t.rowValid;
    if ((k + 1) * c.threadsPerRow > c.nvec) {
      Value inRow = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v,
                                          kb.idx(c.nvec));
      p = p ? arith::AndIOp::create(b, p, inRow).getResult() : inRow;
    }
    t.pred.push_back(p);
  }
  return t;
}

/// Zeroes the lanes of `vec` whose vector is out of bounds.
static Value maskVec(KernelBuilder &kb, Value vec, Value pred, double fill) {
  if (!pred)
    return vec;
  ImplicitLocOpBuilder &b = kb.builder();
  int64_t n = cast<VectorType>(vec.getType()).getNumElements();
  return arith::SelectOp::create(b, pred, vec, kb.splat(kb.f32(fill), n));
}

static Value rowBase(KernelBuilder &kb, const RowConfig &c, Value row) {
  return arith::MulIOp::create(kb.builder(), row, kb.idx(c.cols));
}

static MemRefType smemType(MLIRContext *ctx, const RowConfig &c) {
  auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get({std::max<int64_t>(1, c.block / 32)},
                         Float32Type::get(ctx), MemRefLayoutAttrInterface(),
                         ws);
}

/// Writes a per-row statistic from lane 0 of the row.
static void storeRowStat(KernelBuilder &kb, const RowThread &t, Value memref,
                         Value value) {
  ImplicitLocOpBuilder &b = kb.builder();
  Value isLead =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, t.lane, kb.idx(0));
  Value p = t.rowValid
                ? arith::AndIOp::create(b, isLead, t.rowValid).getResult()
                : isLead;
  scf::IfOp::create(b, p, [&](OpBuilder &ob, Location loc) {
    memref::StoreOp::create(ob, loc, value, memref, ValueRange{t.row});
    scf::YieldOp::create(ob, loc);
  });
}

/// Creates the kernel of a row op: arguments are its operands then its
/// results, two shared-memory reduction buffers; positions `b` in the body.
static std::tuple<KernelLaunch, Value, Value>
startRowKernel(ImplicitLocOpBuilder &b, Operation *op, const RowConfig &c,
               gpu::GPUModuleOp module, StringRef name) {
  KernelLaunch launch = launchFor(op, c.grid, c.block);
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), c.block);
  launch.kernel = func;
  Value smem =
      func.addWorkgroupAttribution(smemType(b.getContext(), c), op->getLoc());
  Value smem2 =
      func.addWorkgroupAttribution(smemType(b.getContext(), c), op->getLoc());
  b.setInsertionPointToStart(&func.getBody().front());
  return {launch, smem, smem2};
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildNormKernel(Operation *op, gpu::GPUModuleOp module,
                                     StringRef name, const Tuning &tuning) {
  auto ln = dyn_cast<LayerNormOp>(op);
  auto rms = dyn_cast<RMSNormOp>(op);
  Value input = ln ? ln.getInput() : rms.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t nrank = ln ? ln.getNormalizedRank() : rms.getNormalizedRank();
  int64_t cols = 1, rows = 1;
  for (auto [i, d] : llvm::enumerate(inType.getShape()))
    (static_cast<int64_t>(i) >= inType.getRank() - nrank ? cols : rows) *= d;
  FailureOr<RowConfig> cfg =
      chooseRowConfig(op, rows, cols, inType.getElementType(), tuning);
  if (failed(cfg))
    return failure();
  const RowConfig &c = *cfg;

  ImplicitLocOpBuilder b(op->getLoc(), op->getContext());
  auto [launch, smem, smem2] = startRowKernel(b, op, c, module, name);
  gpu::GPUFuncOp func = launch.kernel;
  // The rows are read once and written once (cache hints); the weight and
  // bias, shared by every row, keep plain loads.
  KernelBuilder kb(b, tuning.cacheHints);
  ValueRange args = func.getArguments();
  unsigned a = 0;
  Value x = kb.flatten(args[a++]);
  Value weight, bias;
  if (ln ? bool(ln.getWeight()) : bool(rms.getWeight()))
    weight = kb.flatten(args[a++]);
  if (ln && ln.getBias())
    bias = kb.flatten(args[a++]);
  Value out = kb.flatten(args[a++]);
  Value meanOut, rstdOut;
  if (ln && ln.getMean())
    meanOut = kb.flatten(args[a++]);
  if ((ln && ln.getRstd()) || (rms && rms.getRstd()))
    rstdOut = kb.flatten(args[a++]);

  RowThread t = setupRow(kb, c);
  Value base = rowBase(kb, c, t.row);
  SmallVector<Value> xs;
  for (int64_t k = 0; k < c.perThread; ++k)
    xs.push_back(kb.streamLoadF32(
        x, arith::AddIOp::create(b, base, t.colIndex[k]), c.vec, t.pred[k]));
  Value invCols = kb.f32(1.0 / static_cast<double>(cols));
  float eps =
      ln ? ln.getEpsilon().convertToFloat() : rms.getEpsilon().convertToFloat();
  Value mean;
  SmallVector<Value> centered = xs;
  Value sq = kb.f32(0.0);
  if (ln) {
    Value s = kb.f32(0.0);
    for (Value v : xs)
      s = arith::AddFOp::create(b, s, kb.reduceVector(ReduceKind::Sum, v));
    s = kb.groupReduce(s, ReduceKind::Sum, c.threadsPerRow, t.lane,
                       t.rowInBlock, smem);
    mean = arith::MulFOp::create(b, s, invCols);
    Value meanVec = kb.splat(mean, c.vec);
    for (int64_t k = 0; k < c.perThread; ++k)
      centered[k] =
          maskVec(kb, arith::SubFOp::create(b, xs[k], meanVec), t.pred[k], 0.0);
  }
  for (Value v : centered)
    sq = arith::AddFOp::create(
        b, sq,
        kb.reduceVector(ReduceKind::Sum, arith::MulFOp::create(b, v, v)));
  sq = kb.groupReduce(sq, ReduceKind::Sum, c.threadsPerRow, t.lane,
                      t.rowInBlock, smem2);
  Value var = arith::MulFOp::create(b, sq, invCols);
  Value rstd =
      math::RsqrtOp::create(b, arith::AddFOp::create(b, var, kb.f32(eps)));
  Value rstdVec = kb.splat(rstd, c.vec);
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value o = arith::MulFOp::create(b, centered[k], rstdVec);
    if (weight)
      o = arith::MulFOp::create(
          b, o, kb.loadF32(weight, t.colIndex[k], c.vec, t.pred[k]));
    if (bias)
      o = arith::AddFOp::create(
          b, o, kb.loadF32(bias, t.colIndex[k], c.vec, t.pred[k]));
    kb.streamStoreF32(out, arith::AddIOp::create(b, base, t.colIndex[k]), o,
                      t.pred[k]);
  }
  if (meanOut)
    storeRowStat(kb, t, meanOut, mean);
  if (rstdOut)
    storeRowStat(kb, t, rstdOut, rstd);
  return launch;
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildSoftmaxKernel(SoftmaxOp op, gpu::GPUModuleOp module,
                                        StringRef name, const Tuning &tuning) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> shape = inType.getShape();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(op.getDimension()) != rank - 1)
    return op.emitOpError("the CUDA backend runs softmax over the trailing "
                          "dimension only; got dimension ")
           << op.getDimension() << " of " << rank;
  int64_t cols = shape.back();
  int64_t rows = inType.getNumElements() / std::max<int64_t>(cols, 1);
  FailureOr<RowConfig> cfg =
      chooseRowConfig(op, rows, cols, inType.getElementType(), tuning);
  if (failed(cfg))
    return failure();
  const RowConfig &c = *cfg;

  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  auto [launch, smem, smem2] = startRowKernel(b, op, c, module, name);
  gpu::GPUFuncOp func = launch.kernel;
  // Rows read and written once (cache hints); the mask, which broadcasts
  // over rows, keeps plain loads.
  KernelBuilder kb(b, tuning.cacheHints);
  Value x = kb.flatten(func.getArgument(0));
  Value mask = op.getMask() ? kb.flatten(func.getArgument(1)) : Value();
  Value out =
      kb.flatten(func.getArgument(func.getFunctionType().getNumInputs() - 1));

  RowThread t = setupRow(kb, c);
  Value base = rowBase(kb, c, t.row);

  // The mask broadcasts to the input (numpy rules): map the row's leading
  // coordinates to the mask's, with stride 0 along broadcast dimensions.
  Value maskBase;
  bool maskAlongRow = false;
  if (mask) {
    ArrayRef<int64_t> mshape =
        cast<RankedTensorType>(op.getMask().getType()).getShape();
    int64_t offset = rank - static_cast<int64_t>(mshape.size());
    maskAlongRow = !mshape.empty() && mshape.back() == cols && cols != 1;
    // Unravel the row index over the input's leading dims (innermost first).
    Value rem = t.row;
    maskBase = kb.idx(0);
    int64_t mstride = mshape.empty() || mshape.back() == 1 ? 1 : cols;
    for (int64_t d = rank - 2; d >= 0; --d) {
      Value coord = arith::RemUIOp::create(b, rem, kb.idx(shape[d]));
      rem = arith::DivUIOp::create(b, rem, kb.idx(shape[d]));
      int64_t md = d - offset;
      if (md < 0)
        continue;
      if (mshape[md] != 1)
        maskBase = arith::AddIOp::create(
            b, maskBase, arith::MulIOp::create(b, coord, kb.idx(mstride)));
      mstride *= mshape[md];
    }
  }

  double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0;
  double ninf = -std::numeric_limits<double>::infinity();
  // A mask constant along the row is one scalar per row.
  Value scalarMask;
  if (mask && !maskAlongRow) {
    Value m1 = kb.loadF32(mask, maskBase, 1, t.rowValid, 0.0, false);
    scalarMask =
        kb.splat(vector::ExtractOp::create(b, m1, ArrayRef<int64_t>{0}), c.vec);
  }
  SmallVector<Value> xs;
  Value mx = kb.f32(ninf);
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value v = kb.streamLoadF32(x, arith::AddIOp::create(b, base, t.colIndex[k]),
                               c.vec, t.pred[k]);
    if (scale != 1.0)
      v = arith::MulFOp::create(b, v, kb.splat(kb.f32(scale), c.vec));
    if (mask) {
      Value m;
      if (maskAlongRow) {
        m = kb.loadF32(mask, arith::AddIOp::create(b, maskBase, t.colIndex[k]),
                       c.vec, t.pred[k]);
      } else {
        m = scalarMask;
      }
      v = arith::AddFOp::create(b, v, m);
    }
    v = maskVec(kb, v, t.pred[k], ninf);
    xs.push_back(v);
    mx = arith::MaximumFOp::create(b, mx, kb.reduceVector(ReduceKind::Max, v));
  }
  mx = kb.groupReduce(mx, ReduceKind::Max, c.threadsPerRow, t.lane,
                      t.rowInBlock, smem);
  // A row of -inf has no mass: subtract 0 instead of -inf to avoid NaN and
  // produce zeros below.
  Value isEmpty =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mx, kb.f32(ninf));
  mx = arith::SelectOp::create(b, isEmpty, kb.f32(0.0), mx);
  Value mxVec = kb.splat(mx, c.vec);
  Value sum = kb.f32(0.0);
  SmallVector<Value> es;
  for (Value v : xs) {
    Value e = math::ExpOp::create(b, arith::SubFOp::create(b, v, mxVec));
    es.push_back(e);
    sum = arith::AddFOp::create(b, sum, kb.reduceVector(ReduceKind::Sum, e));
  }
  sum = kb.groupReduce(sum, ReduceKind::Sum, c.threadsPerRow, t.lane,
                       t.rowInBlock, smem2);
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, sum, kb.f32(0.0));
  Value inv = arith::SelectOp::create(
      b, positive, arith::DivFOp::create(b, kb.f32(1.0), sum), kb.f32(0.0));
  Value invVec = kb.splat(inv, c.vec);
  for (int64_t k = 0; k < c.perThread; ++k)
    kb.streamStoreF32(out, arith::AddIOp::create(b, base, t.colIndex[k]),
                      arith::MulFOp::create(b, es[k], invVec), t.pred[k]);
  return launch;
}
