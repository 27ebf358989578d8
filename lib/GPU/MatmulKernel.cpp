//===- MatmulKernel.cpp - Unfused matmuls on CUDA cores -------------------===//
//
// Part of the Sinter project.
//
// The simple, correct path for matmuls that no fusion pattern absorbed
// (projections, MLP): C[b] = C0[b] + A[b] x B[b] with f32 accumulation.
// Each 256-thread block computes a 64x64 tile of C, each thread a 4x4
// sub-tile; A and B are staged through shared memory 16 columns/rows at a
// time, converted to f32. Tensor cores are not this kernel's job: a matmul
// whose types cuBLASLt takes also gets a library call (a "cublas_gemm"
// entry in the manifest) that the runtime runs instead when it can open
// cuBLASLt, keeping this kernel as the fallback.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

static constexpr int64_t kTile = 64;  // C tile edge
static constexpr int64_t kTileK = 16; // reduction step
static constexpr int64_t kSub = 4;    // per-thread sub-tile edge

/// Whether cuBLASLt runs a GEMM of these element types with f32 compute and
/// f32 scaling (its table of supported types for CUBLAS_COMPUTE_32F): A and
/// B of one type; C and D of that type or f32 (f32 only for f32 inputs).
static bool cublasLtTakes(Type a, Type b, Type c) {
  if (a != b)
    return false;
  if (a.isF32())
    return c.isF32();
  return (a.isF16() || a.isBF16()) && (c == a || c.isF32());
}

FailureOr<KernelLaunch> sinter::gpu_kernels::buildMatmulKernel(
    linalg::LinalgOp op, gpu::GPUModuleOp module, StringRef name,
    bool libraryCall, const MatmulEpilogue *epilogue,
    const MatmulOperands *operands) {
  bool batched = isa<linalg::BatchMatmulOp>(op);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return op->emitOpError("is not a plain matmul");
  // Only the default (untransposed) indexing maps.
  auto defaultMaps = [&]() {
    MLIRContext *ctx = op->getContext();
    AffineExpr d0, d1, d2, d3;
    if (batched) {
      bindDims(ctx, d0, d1, d2, d3);
      return SmallVector<AffineMap>{AffineMap::get(4, 0, {d0, d1, d3}, ctx),
                                    AffineMap::get(4, 0, {d0, d3, d2}, ctx),
                                    AffineMap::get(4, 0, {d0, d1, d2}, ctx)};
    }
    bindDims(ctx, d0, d1, d2);
    return SmallVector<AffineMap>{AffineMap::get(3, 0, {d0, d2}, ctx),
                                  AffineMap::get(3, 0, {d2, d1}, ctx),
                                  AffineMap::get(3, 0, {d0, d1}, ctx)};
  }();
  if (op.getIndexingMapsArray() != defaultMaps)
    return op->emitOpError("with transposed operands is not supported by the "
                           "CUDA backend yet");
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  // A or B read in place as the transposes of what the kernel takes.
  MatmulOperands own{a, bm};
  const MatmulOperands &in = operands ? *operands : own;
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(bm.getType());
  int64_t batch = batched ? aType.getDimSize(0) : 1;
  int64_t M = aType.getDimSize(batched ? 1 : 0);
  int64_t K = aType.getDimSize(batched ? 2 : 1);
  int64_t N = bType.getDimSize(batched ? 2 : 1);

  // The initial C: a splat constant fill folds into the kernel; anything
  // else is read.
  Attribute fillValue;
  Value initTensor = init;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (matchPattern(fill.getInputs()[0], m_Constant(&fillValue)))
      initTensor = Value();
  } else if (init.getDefiningOp<tensor::EmptyOp>()) {
    return op->emitOpError("accumulates into an uninitialized tensor");
  }
  double fill = 0.0;
  if (auto f = dyn_cast_or_null<FloatAttr>(fillValue))
    fill = f.getValueAsDouble();

  KernelLaunch launch;
  int64_t mTiles = llvm::divideCeil(M, kTile),
          nTiles = llvm::divideCeil(N, kTile);
  launch.grid = batch * mTiles * nTiles;
  launch.block = (kTile / kSub) * (kTile / kSub);
  launch.operands = {in.a, in.b};
  if (initTensor)
    launch.operands.push_back(initTensor);
  int64_t biasArg = -1;
  if (epilogue && epilogue->bias) {
    biasArg = launch.operands.size();
    launch.operands.push_back(epilogue->bias);
  }
  int64_t cArg = launch.operands.size();
  Value result = epilogue ? epilogue->result : op->getResult(0);
  launch.results.push_back(result);

  ImplicitLocOpBuilder b(op->getLoc(), op->getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Type f32 = b.getF32Type();
  Value aTile = func.addWorkgroupAttribution(
      MemRefType::get({kTile, kTileK}, f32, MemRefLayoutAttrInterface(), ws),
      op->getLoc());
  Value bTile = func.addWorkgroupAttribution(
      MemRefType::get({kTileK, kTile}, f32, MemRefLayoutAttrInterface(), ws),
      op->getLoc());
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(b);
  Value A = kb.flatten(func.getArgument(0));
  Value Bm = kb.flatten(func.getArgument(1));
  Value C0 = initTensor ? kb.flatten(func.getArgument(2)) : Value();
  Value bias = biasArg >= 0 ? func.getArgument(biasArg) : Value();
  Value C = kb.flatten(func.getArgument(cArg));

  Value bid = kb.blockId();
  Value nT = arith::RemUIOp::create(b, bid, kb.idx(nTiles));
  Value rest = arith::DivUIOp::create(b, bid, kb.idx(nTiles));
  Value mT = arith::RemUIOp::create(b, rest, kb.idx(mTiles));
  Value bat = arith::DivUIOp::create(b, rest, kb.idx(mTiles));
  Value tid = kb.threadId();
  Value tx = arith::RemUIOp::create(b, tid, kb.idx(kTile / kSub));
  Value ty = arith::DivUIOp::create(b, tid, kb.idx(kTile / kSub));
  Value m0 = arith::MulIOp::create(b, mT, kb.idx(kTile));
  Value n0 = arith::MulIOp::create(b, nT, kb.idx(kTile));
  Value aBase = arith::MulIOp::create(b, bat, kb.idx(M * K));
  Value bBase = arith::MulIOp::create(b, bat, kb.idx(K * N));
  Value cBase = arith::MulIOp::create(b, bat, kb.idx(M * N));

  auto accType = VectorType::get({kSub * kSub}, f32);
  Value acc0 = arith::ConstantOp::create(
      b, accType,
      DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0).getValue()));
  auto kLoop = scf::ForOp::create(b, kb.idx(0), kb.idx(K), kb.idx(kTileK),
                                  ValueRange{acc0});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    Value acc = kLoop.getRegionIterArgs()[0];
    gpu::BarrierOp::create(b);
    // Stage A[m0:m0+64, k0:k0+16] and B[k0:k0+16, n0:n0+64]: 1024 elements
    // each, 4 per thread, zero outside the matrices.
    // An operand stored transposed (Cn x R) is read at (c, r).
    auto stage = [&](Value src, Value base, Value dst, int64_t rows,
                     int64_t cols, Value r0, Value c0, int64_t R, int64_t Cn,
                     bool transposed) {
      for (int64_t e = 0; e < (rows * cols) / launch.block; ++e) {
        Value flat = arith::AddIOp::create(b, tid, kb.idx(e * launch.block));
        Value r = arith::DivUIOp::create(b, flat, kb.idx(cols));
        Value c = arith::RemUIOp::create(b, flat, kb.idx(cols));
        Value gr = arith::AddIOp::create(b, r0, r);
        Value gc = arith::AddIOp::create(b, c0, c);
        Value ok = arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gr, kb.idx(R)),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gc,
                                  kb.idx(Cn)));
        Value gidx = arith::AddIOp::create(
            b, base,
            transposed ? arith::AddIOp::create(
                             b, arith::MulIOp::create(b, gc, kb.idx(R)), gr)
                       : arith::AddIOp::create(
                             b, arith::MulIOp::create(b, gr, kb.idx(Cn)), gc));
        Value safe = arith::SelectOp::create(b, ok, gidx, kb.idx(0));
        Value v = vector::ExtractOp::create(
            b, kb.loadF32(src, safe, 1, nullptr, 0.0, false),
            ArrayRef<int64_t>{0});
        v = arith::SelectOp::create(b, ok, v, kb.f32(0.0));
        memref::StoreOp::create(b, v, dst, ValueRange{r, c});
      }
    };
    stage(A, aBase, aTile, kTile, kTileK, m0, k0, M, K, in.transA);
    stage(Bm, bBase, bTile, kTileK, kTile, k0, n0, K, N, in.transB);
    gpu::BarrierOp::create(b);
    SmallVector<Value> sums;
    for (int64_t i = 0; i < kSub * kSub; ++i)
      sums.push_back(vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{i}));
    for (int64_t kk = 0; kk < kTileK; ++kk) {
      SmallVector<Value> av, bv;
      for (int64_t i = 0; i < kSub; ++i) {
        Value r = arith::AddIOp::create(
            b, arith::MulIOp::create(b, ty, kb.idx(kSub)), kb.idx(i));
        av.push_back(
            memref::LoadOp::create(b, aTile, ValueRange{r, kb.idx(kk)}));
        Value c = arith::AddIOp::create(
            b, arith::MulIOp::create(b, tx, kb.idx(kSub)), kb.idx(i));
        bv.push_back(
            memref::LoadOp::create(b, bTile, ValueRange{kb.idx(kk), c}));
      }
      for (int64_t i = 0; i < kSub; ++i)
        for (int64_t j = 0; j < kSub; ++j)
          sums[i * kSub + j] =
              math::FmaOp::create(b, av[i], bv[j], sums[i * kSub + j]);
    }
    Value next = vector::FromElementsOp::create(b, accType, sums);
    scf::YieldOp::create(b, next);
  }
  Value acc = kLoop.getResult(0);
  for (int64_t i = 0; i < kSub; ++i) {
    for (int64_t j = 0; j < kSub; ++j) {
      Value r = arith::AddIOp::create(
          b, m0,
          arith::AddIOp::create(b, arith::MulIOp::create(b, ty, kb.idx(kSub)),
                                kb.idx(i)));
      Value c = arith::AddIOp::create(
          b, n0,
          arith::AddIOp::create(b, arith::MulIOp::create(b, tx, kb.idx(kSub)),
                                kb.idx(j)));
      Value ok = arith::AndIOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, r, kb.idx(M)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, c, kb.idx(N)));
      Value idx = arith::AddIOp::create(
          b, cBase,
          arith::AddIOp::create(b, arith::MulIOp::create(b, r, kb.idx(N)), c));
      Value v =
          vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{i * kSub + j});
      if (C0) {
        Value safe = arith::SelectOp::create(b, ok, idx, kb.idx(0));
        Value c0v = vector::ExtractOp::create(
            b, kb.loadF32(C0, safe, 1, nullptr, 0.0, false),
            ArrayRef<int64_t>{0});
        v = arith::AddFOp::create(b, v, c0v);
      } else if (fill != 0.0) {
        v = arith::AddFOp::create(b, v, kb.f32(fill));
      }
      if (bias) {
        // The epilogue: + bias[n] in f32; storeF32 rounds once to C's type.
        Value safe = arith::SelectOp::create(b, ok, c, kb.idx(0));
        v = arith::AddFOp::create(
            b, v,
            vector::ExtractOp::create(
                b, kb.loadF32(bias, safe, 1, nullptr, 0.0, false),
                ArrayRef<int64_t>{0}));
      }
      kb.storeF32(C, idx, kb.splat(v, 1), ok, /*aligned=*/false);
    }
  }
  // The library call: C = A x B (beta = 0) into the fresh result, or
  // C = C0 + A x B (beta = 1) reading the init. A non-zero constant fill
  // has no cuBLASLt form (it is not a matrix in memory): the kernel alone.
  if (libraryCall && (initTensor || fill == 0.0) &&
      cublasLtTakes(
          aType.getElementType(), bType.getElementType(),
          cast<RankedTensorType>(result.getType()).getElementType()) &&
      llvm::all_of(ArrayRef<int64_t>{batch, M, N, K}, [](int64_t d) {
        return d > 0 && d <= std::numeric_limits<int32_t>::max();
      })) {
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    SmallVector<NamedAttribute> call = {
        b.getNamedAttr("kind", b.getStringAttr("cublas_gemm")),
        b.getNamedAttr("m", i64(M)),
        b.getNamedAttr("n", i64(N)),
        b.getNamedAttr("k", i64(K)),
        b.getNamedAttr("batch", i64(batch)),
        b.getNamedAttr("a", i64(0)),
        b.getNamedAttr("b", i64(1)),
        b.getNamedAttr("c", i64(cArg))};
    if (initTensor)
      call.push_back(b.getNamedAttr("c_init", i64(2)));
    if (in.transA)
      call.push_back(b.getNamedAttr("trans_a", b.getUnitAttr()));
    if (in.transB)
      call.push_back(b.getNamedAttr("trans_b", b.getUnitAttr()));
    if (biasArg >= 0)
      call.push_back(b.getNamedAttr("bias", i64(biasArg)));
    launch.libraryCall = b.getDictionaryAttr(call);
  }
  return launch;
}
