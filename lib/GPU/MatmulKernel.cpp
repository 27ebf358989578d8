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
#include "mlir/IR/IRMapping.h"
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

/// Whether `op` has the default (untransposed) indexing maps of a matmul
/// or, `batched`, a batch matmul.
static bool hasDefaultMaps(linalg::LinalgOp op, bool batched) {
  MLIRContext *ctx = op->getContext();
  AffineExpr d0, d1, d2, d3;
  SmallVector<AffineMap> maps;
  if (batched) {
    bindDims(ctx, d0, d1, d2, d3);
    maps = {AffineMap::get(4, 0, {d0, d1, d3}, ctx),
            AffineMap::get(4, 0, {d0, d3, d2}, ctx),
            AffineMap::get(4, 0, {d0, d1, d2}, ctx)};
  } else {
    bindDims(ctx, d0, d1, d2);
    maps = {AffineMap::get(3, 0, {d0, d2}, ctx),
            AffineMap::get(3, 0, {d2, d1}, ctx),
            AffineMap::get(3, 0, {d0, d1}, ctx)};
  }
  return op.getIndexingMapsArray() == maps;
}

namespace {

/// A matmul's sizes and its initial C: `initTensor` when C0 is read, null
/// when it is a splat constant (`fill`) folded into the kernel.
struct MatmulShape {
  int64_t batch, M, K, N;
  Value initTensor;
  double fill = 0.0;
};

/// The kernel's view of its operands (flattened buffers; C0, bias and the
/// activation's aux null when absent) and of its thread: tile origin, batch
/// offsets, thread coordinates in the 16 x 16 grid of 4 x 4 sub-tiles.
struct MatmulThread {
  Value A, Bm, C0, bias, C, aux;
  Value tid, tx, ty, m0, n0, aBase, bBase, cBase;
};

} // namespace

/// The sizes of `op` and its initial C; fails on an uninitialized C.
static FailureOr<MatmulShape> shapeOf(linalg::LinalgOp op, bool batched) {
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(bm.getType());
  MatmulShape s;
  s.batch = batched ? aType.getDimSize(0) : 1;
  s.M = aType.getDimSize(batched ? 1 : 0);
  s.K = aType.getDimSize(batched ? 2 : 1);
  s.N = bType.getDimSize(batched ? 2 : 1);
  // The initial C: a splat constant fill folds into the kernel; anything
  // else is read.
  Attribute fillValue;
  s.initTensor = init;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (matchPattern(fill.getInputs()[0], m_Constant(&fillValue)))
      s.initTensor = Value();
  } else if (init.getDefiningOp<tensor::EmptyOp>()) {
    return op->emitOpError("accumulates into an uninitialized tensor");
  }
  if (auto f = dyn_cast_or_null<FloatAttr>(fillValue))
    s.fill = f.getValueAsDouble();
  return s;
}

/// The kernel's arguments: A, B, then C0 when read, the bias, the
/// activation's aux (read, or written after C), each at its index when >= 0.
struct MatmulArgs {
  int64_t bias = -1, c = -1, aux = -1;
};

/// The block's tile and the thread's place in it, from the kernel's
/// arguments.
static MatmulThread setupThread(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                                gpu::GPUFuncOp func, const MatmulShape &s,
                                const MatmulArgs &args) {
  int64_t mTiles = llvm::divideCeil(s.M, kTile),
          nTiles = llvm::divideCeil(s.N, kTile);
  MatmulThread t;
  t.A = kb.flatten(func.getArgument(0));
  t.Bm = kb.flatten(func.getArgument(1));
  t.C0 = s.initTensor ? kb.flatten(func.getArgument(2)) : Value();
  t.bias = args.bias >= 0 ? func.getArgument(args.bias) : Value();
  t.C = kb.flatten(func.getArgument(args.c));
  t.aux = args.aux >= 0 ? kb.flatten(func.getArgument(args.aux)) : Value();
  Value bid = kb.blockId();
  Value nT = arith::RemUIOp::create(b, bid, kb.idx(nTiles));
  Value rest = arith::DivUIOp::create(b, bid, kb.idx(nTiles));
  Value mT = arith::RemUIOp::create(b, rest, kb.idx(mTiles));
  Value bat = arith::DivUIOp::create(b, rest, kb.idx(mTiles));
  t.tid = kb.threadId();
  t.tx = arith::RemUIOp::create(b, t.tid, kb.idx(kTile / kSub));
  t.ty = arith::DivUIOp::create(b, t.tid, kb.idx(kTile / kSub));
  t.m0 = arith::MulIOp::create(b, mT, kb.idx(kTile));
  t.n0 = arith::MulIOp::create(b, nT, kb.idx(kTile));
  t.aBase = arith::MulIOp::create(b, bat, kb.idx(s.M * s.K));
  t.bBase = arith::MulIOp::create(b, bat, kb.idx(s.K * s.N));
  t.cBase = arith::MulIOp::create(b, bat, kb.idx(s.M * s.N));
  return t;
}

/// Stages the `rows` x `cols` tile at (r0, c0) of the R x Cn matrix `src`
/// (from element `base`) into shared memory `dst` as f32, `block` threads
/// each storing (rows x cols) / block elements, zero outside the matrix. An
/// operand stored transposed (Cn x R) is read at (c, r).
static void emitStage(ImplicitLocOpBuilder &b, KernelBuilder &kb, Value tid,
                      int64_t block, Value src, Value base, Value dst,
                      int64_t rows, int64_t cols, Value r0, Value c0, int64_t R,
                      int64_t Cn, bool transposed) {
  for (int64_t e = 0; e < (rows * cols) / block; ++e) {
    Value flat = arith::AddIOp::create(b, tid, kb.idx(e * block));
    Value r = arith::DivUIOp::create(b, flat, kb.idx(cols));
    Value c = arith::RemUIOp::create(b, flat, kb.idx(cols));
    Value gr = arith::AddIOp::create(b, r0, r);
    Value gc = arith::AddIOp::create(b, c0, c);
    Value ok = arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gr, kb.idx(R)),
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gc, kb.idx(Cn)));
    Value gidx = arith::AddIOp::create(
        b, base,
        transposed ? arith::AddIOp::create(
                         b, arith::MulIOp::create(b, gc, kb.idx(R)), gr)
                   : arith::AddIOp::create(
                         b, arith::MulIOp::create(b, gr, kb.idx(Cn)), gc));
    Value safe = arith::SelectOp::create(b, ok, gidx, kb.idx(0));
    Value v = vector::ExtractOp::create(
        b, kb.loadF32(src, safe, 1, nullptr, 0.0, false), ArrayRef<int64_t>{0});
    v = arith::SelectOp::create(b, ok, v, kb.f32(0.0));
    memref::StoreOp::create(b, v, dst, ValueRange{r, c});
  }
}

/// The k-loop: A and B staged kTileK at a time, each thread's 4 x 4 sums
/// carried as one vector; returns the sums.
static Value emitProductLoop(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                             const MatmulThread &t, const MatmulShape &s,
                             const MatmulOperands &in, int64_t block,
                             Value aTile, Value bTile) {
  Type f32 = b.getF32Type();
  auto accType = VectorType::get({kSub * kSub}, f32);
  Value acc0 = arith::ConstantOp::create(
      b, accType,
      DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0).getValue()));
  auto kLoop = scf::ForOp::create(b, kb.idx(0), kb.idx(s.K), kb.idx(kTileK),
                                  ValueRange{acc0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value k0 = kLoop.getInductionVar();
  Value acc = kLoop.getRegionIterArgs()[0];
  gpu::BarrierOp::create(b);
  // Stage A[m0:m0+64, k0:k0+16] and B[k0:k0+16, n0:n0+64]: 1024 elements
  // each, 4 per thread, zero outside the matrices.
  emitStage(b, kb, t.tid, block, t.A, t.aBase, aTile, kTile, kTileK, t.m0, k0,
            s.M, s.K, in.transA);
  emitStage(b, kb, t.tid, block, t.Bm, t.bBase, bTile, kTileK, kTile, k0, t.n0,
            s.K, s.N, in.transB);
  gpu::BarrierOp::create(b);
  SmallVector<Value> sums;
  for (int64_t i = 0; i < kSub * kSub; ++i)
    sums.push_back(vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{i}));
  for (int64_t kk = 0; kk < kTileK; ++kk) {
    SmallVector<Value> av, bv;
    for (int64_t i = 0; i < kSub; ++i) {
      Value r = arith::AddIOp::create(
          b, arith::MulIOp::create(b, t.ty, kb.idx(kSub)), kb.idx(i));
      av.push_back(memref::LoadOp::create(b, aTile, ValueRange{r, kb.idx(kk)}));
      Value c = arith::AddIOp::create(
          b, arith::MulIOp::create(b, t.tx, kb.idx(kSub)), kb.idx(i));
      bv.push_back(memref::LoadOp::create(b, bTile, ValueRange{kb.idx(kk), c}));
    }
    for (int64_t i = 0; i < kSub; ++i)
      for (int64_t j = 0; j < kSub; ++j)
        sums[i * kSub + j] =
            math::FmaOp::create(b, av[i], bv[j], sums[i * kSub + j]);
  }
  Value next = vector::FromElementsOp::create(b, accType, sums);
  scf::YieldOp::create(b, next);
  return kLoop.getResult(0);
}

/// The activation on one element `v` (f32, the epilogue applied) at `idx`:
/// the chain's body evaluated on `v` rounded to the type the chain read, as
/// the IR says (cuBLASLt computes it on `v` itself); GeluTanh stores `v` as
/// the aux output, GeluTanhGrad reads the aux input. Returns the result in
/// f32.
static Value emitActivation(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                            const MatmulThread &t, const MatmulActivation &act,
                            const IRMapping &constants, Value v, Value idx,
                            Value ok) {
  Block &body = FusedOp(act.chain).getBody().front();
  auto narrowTo = [&](Value x, Type type) -> Value {
    return type.isF32() ? x : arith::TruncFOp::create(b, type, x);
  };
  IRMapping mapping = constants;
  mapping.map(body.getArgument(act.productArg),
              narrowTo(v, body.getArgument(act.productArg).getType()));
  if (act.kind == MatmulActivation::Kind::GeluTanh) {
    if (t.aux)
      kb.storeF32(t.aux, idx, kb.splat(v, 1), ok, /*aligned=*/false);
  } else {
    BlockArgument x = body.getArgument(1 - act.productArg);
    Value safe = arith::SelectOp::create(b, ok, idx, kb.idx(0));
    Value pre = vector::ExtractOp::create(
        b, kb.loadF32(t.aux, safe, 1, nullptr, 0.0, false),
        ArrayRef<int64_t>{0});
    mapping.map(x, narrowTo(pre, x.getType()));
  }
  for (Operation &op : body.without_terminator())
    cloneElementOp(b, op, mapping, /*fastTanh=*/false);
  Value r = mapping.lookup(body.getTerminator()->getOperand(0));
  return r.getType().isF32() ? r : arith::ExtFOp::create(b, b.getF32Type(), r);
}

/// Each thread's 4 x 4 results: + C0 (or the fill), + bias[n] in f32, the
/// activation, one rounding to C's type at the store.
static void emitStores(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                       const MatmulThread &t, const MatmulShape &s, Value acc,
                       const MatmulActivation *activation) {
  // Constants the activation's body reads from above it, once.
  IRMapping constants;
  if (activation)
    for (auto [above, inKernel] :
         cloneConstantsAbove(b, FusedOp(activation->chain).getBody().front()))
      constants.map(above, inKernel);
  for (int64_t i = 0; i < kSub; ++i) {
    for (int64_t j = 0; j < kSub; ++j) {
      Value r = arith::AddIOp::create(
          b, t.m0,
          arith::AddIOp::create(b, arith::MulIOp::create(b, t.ty, kb.idx(kSub)),
                                kb.idx(i)));
      Value c = arith::AddIOp::create(
          b, t.n0,
          arith::AddIOp::create(b, arith::MulIOp::create(b, t.tx, kb.idx(kSub)),
                                kb.idx(j)));
      Value ok = arith::AndIOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, r, kb.idx(s.M)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, c, kb.idx(s.N)));
      Value idx = arith::AddIOp::create(
          b, t.cBase,
          arith::AddIOp::create(b, arith::MulIOp::create(b, r, kb.idx(s.N)),
                                c));
      Value v =
          vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{i * kSub + j});
      if (t.C0) {
        Value safe = arith::SelectOp::create(b, ok, idx, kb.idx(0));
        Value c0v = vector::ExtractOp::create(
            b, kb.loadF32(t.C0, safe, 1, nullptr, 0.0, false),
            ArrayRef<int64_t>{0});
        v = arith::AddFOp::create(b, v, c0v);
      } else if (s.fill != 0.0) {
        v = arith::AddFOp::create(b, v, kb.f32(s.fill));
      }
      if (t.bias) {
        // The epilogue: + bias[n] in f32; storeF32 rounds once to C's type.
        Value safe = arith::SelectOp::create(b, ok, c, kb.idx(0));
        v = arith::AddFOp::create(
            b, v,
            vector::ExtractOp::create(
                b, kb.loadF32(t.bias, safe, 1, nullptr, 0.0, false),
                ArrayRef<int64_t>{0}));
      }
      if (activation)
        v = emitActivation(b, kb, t, *activation, constants, v, idx, ok);
      kb.storeF32(t.C, idx, kb.splat(v, 1), ok, /*aligned=*/false);
    }
  }
}

/// The library call: C = A x B (beta = 0) into the fresh result, or
/// C = C0 + A x B (beta = 1) reading the init; null where cuBLASLt has no
/// form of it (a non-zero constant fill is not a matrix in memory; types
/// it does not take; sizes past int32).
static DictionaryAttr libraryCallOf(Builder &b, const MatmulShape &s, Type aElt,
                                    Type bElt, Type cElt,
                                    const MatmulOperands &in,
                                    const MatmulArgs &args,
                                    const MatmulActivation *activation) {
  if (!(s.initTensor || s.fill == 0.0) || !cublasLtTakes(aElt, bElt, cElt) ||
      !llvm::all_of(ArrayRef<int64_t>{s.batch, s.M, s.N, s.K}, [](int64_t d) {
        return d > 0 && d <= std::numeric_limits<int32_t>::max();
      }))
    return {};
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> call = {
      b.getNamedAttr("kind", b.getStringAttr("cublas_gemm")),
      b.getNamedAttr("m", i64(s.M)),
      b.getNamedAttr("n", i64(s.N)),
      b.getNamedAttr("k", i64(s.K)),
      b.getNamedAttr("batch", i64(s.batch)),
      b.getNamedAttr("a", i64(0)),
      b.getNamedAttr("b", i64(1)),
      b.getNamedAttr("c", i64(args.c))};
  if (s.initTensor)
    call.push_back(b.getNamedAttr("c_init", i64(2)));
  if (in.transA)
    call.push_back(b.getNamedAttr("trans_a", b.getUnitAttr()));
  if (in.transB)
    call.push_back(b.getNamedAttr("trans_b", b.getUnitAttr()));
  if (args.bias >= 0)
    call.push_back(b.getNamedAttr("bias", i64(args.bias)));
  if (activation)
    call.push_back(b.getNamedAttr(
        "activation", b.getStringAttr(activationName(activation->kind))));
  if (args.aux >= 0)
    call.push_back(b.getNamedAttr("aux", i64(args.aux)));
  return b.getDictionaryAttr(call);
}

FailureOr<KernelLaunch> sinter::gpu_kernels::buildMatmulKernel(
    linalg::LinalgOp op, gpu::GPUModuleOp module, StringRef name,
    bool libraryCall, const MatmulEpilogue *epilogue,
    const MatmulOperands *operands, const MatmulActivation *activation) {
  bool batched = isa<linalg::BatchMatmulOp>(op);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return op->emitOpError("is not a plain matmul");
  if (!hasDefaultMaps(op, batched))
    return op->emitOpError("with transposed operands is not supported by the "
                           "CUDA backend yet");
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
  // A or B read in place as the transposes of what the kernel takes.
  MatmulOperands own{a, bm};
  const MatmulOperands &in = operands ? *operands : own;
  FailureOr<MatmulShape> shape = shapeOf(op, batched);
  if (failed(shape))
    return failure();
  const MatmulShape &s = *shape;

  KernelLaunch launch;
  launch.grid =
      s.batch * llvm::divideCeil(s.M, kTile) * llvm::divideCeil(s.N, kTile);
  launch.block = (kTile / kSub) * (kTile / kSub);
  launch.operands = {in.a, in.b};
  if (s.initTensor)
    launch.operands.push_back(s.initTensor);
  MatmulArgs args;
  if (epilogue && epilogue->bias) {
    args.bias = launch.operands.size();
    launch.operands.push_back(epilogue->bias);
  }
  using Kind = MatmulActivation::Kind;
  if (activation && activation->kind == Kind::GeluTanhGrad) {
    args.aux = launch.operands.size();
    launch.operands.push_back(activation->aux);
  }
  args.c = launch.operands.size();
  Value result = activation ? activation->result
                 : epilogue ? epilogue->result
                            : op->getResult(0);
  launch.results.push_back(result);
  if (activation && activation->kind == Kind::GeluTanh && activation->aux) {
    args.aux = args.c + 1;
    launch.results.push_back(activation->aux);
  }

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
  MatmulThread t = setupThread(b, kb, func, s, args);
  Value acc = emitProductLoop(b, kb, t, s, in, launch.block, aTile, bTile);
  emitStores(b, kb, t, s, acc, activation);
  if (libraryCall)
    launch.libraryCall = libraryCallOf(
        b, s, cast<RankedTensorType>(a.getType()).getElementType(),
        cast<RankedTensorType>(bm.getType()).getElementType(),
        cast<RankedTensorType>(result.getType()).getElementType(), in, args,
        activation);
  return launch;
}
