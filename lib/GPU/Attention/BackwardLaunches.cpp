//===- BackwardLaunches.cpp - The attention backward's three launches -----===//
//
// Part of the Sinter project.
//
// Which attention_backward ops the tensor-core backward runs, and its three
// launches (Backward.h): prepare (delta and a zeroed f32 dQ accumulator),
// the main kernel (BackwardKernel.cpp), finish (dQ = scale * accumulator,
// rounded once); `deterministic`: prepare (delta), the main kernel without
// dQ, the query-tile kernel (BackwardQueryKernel.cpp). The accumulator and
// delta are scratch tensors between the launches.
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

/// Threads per block of the prepare and finish kernels.
static constexpr int64_t kElementwiseBlock = 256;
/// f32 elements the finish kernel moves per thread (one 16-byte load).
static constexpr int64_t kFinishVector = 4;

LogicalResult sinter::gpu_kernels::checkAttentionBackwardKernel(
    AttentionBackwardOp op, int64_t smVersion, std::string &why) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto vType = cast<RankedTensorType>(op.getValue().getType());
  Type elt = qType.getElementType();
  int64_t D = qType.getDimSize(3);
  if (smVersion < 80) {
    why = "mma.sync with bf16/f16 needs sm_80 or later";
    return failure();
  }
  if (!elt.isBF16() && !elt.isF16()) {
    why = "tensor cores take bf16/f16 operands";
    return failure();
  }
  for (Value v :
       {op.getGradOutput(), op.getKey(), op.getValue(), op.getOutput()})
    if (cast<RankedTensorType>(v.getType()).getElementType() != elt) {
      why = "needs one element type for dO, Q, K, V and O";
      return failure();
    }
  if (vType.getDimSize(3) != D || (D != 64 && D != 128)) {
    why = "needs equal q/k and v head dims of 64 or 128";
    return failure();
  }
  if (op.getGradMask()) {
    why = "the additive mask's gradient takes the reference form";
    return failure();
  }
  if (op.getEffectiveScale() <= 0.0) {
    why = "needs a positive softmax scale";
    return failure();
  }
  return success();
}

/// The tensor a kernel reads or writes for `value` laid out as `layout`:
/// the one it reads or writes in place, or `value` itself.
static Value tensorOf(Value value, const HeadLayout &layout) {
  return layout.seqMajor ? layout.tensor : value;
}

/// Makes `launch` write `grad`: a result of its own, or (`layout` in place)
/// the concatenation an earlier launch of the op made, written again in
/// place.
static void writeGradient(KernelLaunch &launch, Value grad,
                          const HeadLayout &layout) {
  if (!layout.seqMajor) {
    launch.results.push_back(grad);
    return;
  }
  launch.inPlace.push_back(
      {layout.tensor, static_cast<unsigned>(launch.operands.size())});
  launch.operands.push_back(layout.tensor);
}

/// The flat index of element `col` of dense row `row` (over [B, H, S]) of an
/// operand of type `type` ([B, H, S, D]) read as `layout`.
static Value headElement(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                         const HeadLayout &layout, RankedTensorType type,
                         Value row, Value col) {
  int64_t H = type.getDimSize(1), S = type.getDimSize(2);
  int64_t D = type.getDimSize(3);
  if (!layout.seqMajor)
    return arith::AddIOp::create(b, arith::MulIOp::create(b, row, kb.idx(D)),
                                 col);
  // Dense row (batch * H + h) * S + s: row s of head h of that batch,
  // where the fragment kernels find it (OperandRows::of).
  FragmentBuilder mb(b, type.getElementType());
  Value s = arith::RemUIOp::create(b, row, kb.idx(S));
  Value bh = arith::DivUIOp::create(b, row, kb.idx(S));
  return OperandRows::of(mb, layout, Value(),
                         arith::DivUIOp::create(b, bh, kb.idx(H)),
                         arith::RemUIOp::create(b, bh, kb.idx(H)), S, D)
      .element(mb, s, col);
}

/// delta[row] = sum_d dO[row, d] O[row, d] and (with `accT`) acc[row, :] =
/// 0: a group of D / 8 threads per row, one 16-byte vector each, a shuffle
/// reduction. dO is read where `gradOut` says.
static KernelLaunch prepareLaunch(AttentionBackwardOp op, Value deltaT,
                                  Value accT, const HeadLayout &gradOut,
                                  gpu::GPUModuleOp module, StringRef name) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  int64_t D = qType.getDimSize(3);
  int64_t rows = qType.getNumElements() / D;
  int64_t vec = kMaxVectorAccessBytes / (qType.getElementTypeBitWidth() / 8);
  int64_t group = D / vec;
  int64_t rowsPerBlock = kElementwiseBlock / group;
  KernelLaunch launch;
  launch.grid = llvm::divideCeil(rows, rowsPerBlock);
  launch.block = kElementwiseBlock;
  launch.operands = {tensorOf(op.getGradOutput(), gradOut), op.getOutput()};
  launch.results = {deltaT};
  if (accT)
    launch.results.push_back(accT);
  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  launch.kernel =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  b.setInsertionPointToStart(&launch.kernel.getBody().front());
  KernelBuilder kb(b);
  ValueRange args = launch.kernel.getArguments();
  Value dO = kb.flatten(args[0]), o = kb.flatten(args[1]);
  Value delta = kb.flatten(args[2]);
  Value tid = kb.threadId();
  Value part = arith::RemUIOp::create(b, tid, kb.idx(group));
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(rowsPerBlock)),
      arith::DivUIOp::create(b, tid, kb.idx(group)));
  Value in =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, kb.idx(rows));
  Value col = arith::MulIOp::create(b, part, kb.idx(vec));
  Value at = headElement(b, kb, HeadLayout(), qType, row, col);
  Value dOAt =
      gradOut.seqMajor ? headElement(b, kb, gradOut, qType, row, col) : at;
  Value prod = arith::MulFOp::create(b, kb.loadF32(dO, dOAt, vec, in),
                                     kb.loadF32(o, at, vec, in));
  Value sum = kb.groupReduce(kb.reduceVector(ReduceKind::Sum, prod),
                             ReduceKind::Sum, group, part, row, Value());
  Value first =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, part, kb.idx(0));
  kb.storeF32(delta, row, kb.splat(sum, 1),
              arith::AndIOp::create(b, in, first));
  if (!accT)
    return launch;
  Value acc = kb.flatten(args[3]);
  Value zero = kb.splat(kb.f32(0.0), kFinishVector);
  for (int64_t i = 0; i < vec; i += kFinishVector)
    kb.storeF32(acc, arith::AddIOp::create(b, at, kb.idx(i)), zero, in);
  return launch;
}

/// How a kernel of `role` multiplies: the key-tile kernel on wgmma where the
/// chip has it, unless `tuning` asks for mma.sync.
static BackwardMMA backwardMMA(BackwardRole role, const Tuning &tuning) {
  bool wgmma = role == BackwardRole::KeyTiles &&
               tuning.attentionBackwardWgmma &&
               hasWgmma(tuning.smVersion, tuning.archSpecific);
  return wgmma ? BackwardMMA::Wgmma : BackwardMMA::MmaSync;
}

/// The key-tile kernel (one block per batch, key/value head and key tile)
/// or, `deterministic`'s dQ, the query-tile kernel (one block per batch,
/// query head and query tile).
static KernelLaunch tileLaunch(AttentionBackwardOp op, BackwardRole role,
                               Value deltaT, Value accT,
                               gpu::GPUModuleOp module, StringRef name,
                               const Tuning &tuning,
                               const AttentionHeads &heads) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto kType = cast<RankedTensorType>(op.getKey().getType());
  BackwardMMA mma = backwardMMA(role, tuning);
  BackwardTiles tiles(qType.getDimSize(3), mma, op.getDeterministic());
  KernelLaunch launch;
  launch.grid =
      role == BackwardRole::KeyTiles
          ? kType.getDimSize(0) * kType.getDimSize(1) *
                llvm::divideCeil(kType.getDimSize(2), BackwardTiles::kBlockN)
          : qType.getDimSize(0) * qType.getDimSize(1) *
                llvm::divideCeil(qType.getDimSize(2), BackwardTiles::kBlockQ);
  launch.block = BackwardTiles::kThreads;
  launch.operands = {tensorOf(op.getGradOutput(), heads.gradOut),
                     tensorOf(op.getQuery(), heads.q),
                     tensorOf(op.getKey(), heads.k),
                     tensorOf(op.getValue(), heads.v),
                     op.getLse(),
                     deltaT};
  if (op.getMask())
    launch.operands.push_back(op.getMask());
  bool dropout = op.getDropoutP().convertToDouble() != 0.0;
  if (dropout) // (a seed read from a 0-d tensor: that tensor)
    launch.operands.push_back(kernelScalarOperand(op.getSeed()));
  if (role == BackwardRole::QueryTiles) {
    writeGradient(launch, op.getGradQuery(), heads.gradQuery);
  } else {
    if (accT) {
      // The accumulator is added into where prepare zeroed it.
      launch.inPlace = {{accT, static_cast<unsigned>(launch.operands.size())}};
      launch.operands.push_back(accT);
    }
    // dK and dV, or the concatenation of dQ, dK and dV that this launch
    // makes and the one after it completes.
    launch.results = {tensorOf(op.getGradKey(), heads.gradKey)};
    if (!heads.joinsGradients())
      launch.results.push_back(op.getGradValue());
  }
  launch.sharedMemory =
      tiles.sharedBytes(role, qType.getElementTypeBitWidth() / 8, dropout);
  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  launch.kernel =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  b.setInsertionPointToStart(&launch.kernel.getBody().front());
  BackwardKernel(op, role, mma, b, launch.kernel, tuning.smVersion, heads)
      .build();
  return launch;
}

/// dQ = scale * acc in dQ's type, four elements per thread, written where
/// `gradQuery` says.
static KernelLaunch finishLaunch(AttentionBackwardOp op, Value accT,
                                 const HeadLayout &gradQuery,
                                 gpu::GPUModuleOp module, StringRef name) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  int64_t n = qType.getNumElements();
  int64_t D = qType.getDimSize(3);
  KernelLaunch launch;
  launch.grid = llvm::divideCeil(n / kFinishVector, kElementwiseBlock);
  launch.block = kElementwiseBlock;
  launch.operands = {accT};
  writeGradient(launch, op.getGradQuery(), gradQuery);
  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  launch.kernel =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  b.setInsertionPointToStart(&launch.kernel.getBody().front());
  KernelBuilder kb(b);
  ValueRange args = launch.kernel.getArguments();
  Value acc = kb.flatten(args[0]), dq = kb.flatten(args[1]);
  Value at = arith::MulIOp::create(
      b,
      arith::AddIOp::create(
          b, arith::MulIOp::create(b, kb.blockId(), kb.idx(launch.block)),
          kb.threadId()),
      kb.idx(kFinishVector));
  Value in = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, at, kb.idx(n));
  Value scaled = arith::MulFOp::create(
      b, kb.loadF32(acc, at, kFinishVector, in),
      kb.splat(kb.f32(op.getEffectiveScale()), kFinishVector));
  // (A vector of four stays in its row: D is a multiple of 4.)
  Value dqAt = gradQuery.seqMajor
                   ? headElement(b, kb, gradQuery, qType,
                                 arith::DivUIOp::create(b, at, kb.idx(D)),
                                 arith::RemUIOp::create(b, at, kb.idx(D)))
                   : at;
  kb.storeF32(dq, dqAt, scaled, in);
  return launch;
}

FailureOr<SmallVector<KernelLaunch, 1>>
sinter::gpu_kernels::buildAttentionBackwardKernels(
    AttentionBackwardOp op, gpu::GPUModuleOp module, StringRef name,
    const Tuning &tuning, const AttentionHeads &heads) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  OpBuilder ob(op);
  SmallVector<int64_t> rowShape(qType.getShape().drop_back());
  Value deltaT =
      tensor::EmptyOp::create(ob, op.getLoc(), rowShape, ob.getF32Type());
  // dQ: summed with atomics into an f32 accumulator (then scaled and
  // rounded), or (`deterministic`) by the query-tile kernel.
  Value accT;
  if (!op.getDeterministic())
    accT = tensor::EmptyOp::create(ob, op.getLoc(), qType.getShape(),
                                   ob.getF32Type());
  SmallVector<KernelLaunch, 1> launches;
  launches.push_back(
      prepareLaunch(op, deltaT, accT, heads.gradOut, module, name));
  launches.push_back(tileLaunch(op, BackwardRole::KeyTiles, deltaT, accT,
                                module, (name + "_1").str(), tuning, heads));
  launches.push_back(
      accT
          ? finishLaunch(op, accT, heads.gradQuery, module, (name + "_2").str())
          : tileLaunch(op, BackwardRole::QueryTiles, deltaT, Value(), module,
                       (name + "_2").str(), tuning, heads));
  return launches;
}
