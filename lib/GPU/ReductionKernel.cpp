//===- ReductionKernel.cpp - Leftover linalg reductions on CUDA -----------===//
//
// Part of the Sinter project.
//
// The general path for linalg ops that no fusion pattern absorbed and that
// neither the elementwise kernel nor the matmul kernel runs: reductions
// (row and column sums, max-reduces, argmax-style multi-result generics, the
// boolean reductions of masks), contractions with transposed or broadcast
// operands, convolutions (patch embeddings), generics that write through a
// permuted output map, and any generic whose region gathers (`tensor.extract`
// of an embedding table), asserts (`cf.assert`: a failed assertion traps the
// kernel through CUDA's __assertfail, the upstream lowering) or reads
// `linalg.index`. One thread computes one output element: it starts from
// the init (a folded constant fill, or the init tensor's element), runs the
// reduction loops serially in iteration order, evaluates the generic's
// region once per point, and stores the result once. A long reduction whose
// every result is one associative combiner of its accumulator (a sum, a max:
// the log-softmax of a cross-entropy over a 50257-word vocabulary) takes a
// warp per output element instead: each lane reduces every 32nd point from
// the combiner's identity, the lanes combine by shuffles, and the init joins
// last (the order of the sum differs from the serial one, as in every other
// Sinter reduction). Operands are read
// through any affine map (expanded with the upstream affine utilities);
// tensors the region reads from above become kernel arguments.
//
// Precision: f16/bf16 arithmetic in the region runs in f32 and each result
// is rounded to its storage type once, after the last reduction step -- the
// accumulation rule of every other Sinter kernel (a bf16 sum accumulates in
// f32, a bf16 matmul multiplies and adds in f32). Explicit conversions in
// the region (arith.truncf to f16/bf16) still round where they are written.
// f32, f64 and integer regions run exactly as written.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "SerialKernel.h"
#include "TargetInfo.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Element types the serial kernel loads and stores.
static bool isSupportedElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64() ||
         t.isSignlessInteger(1) || t.isSignlessInteger(8) ||
         t.isSignlessInteger(16) || t.isSignlessInteger(32) ||
         t.isSignlessInteger(64) || t.isIndex();
}

TypedAttr sinter::gpu_kernels::foldableFillValue(linalg::FillOp fill) {
  Attribute value;
  if (!fill.hasPureTensorSemantics() ||
      !matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return {};
  Type elt = getElementTypeOrSelf(fill.getOutputs()[0].getType());
  if (auto f = dyn_cast<FloatAttr>(value); f && isa<FloatType>(elt)) {
    // The fill converts its value to the element type (rounding).
    APFloat v = f.getValue();
    bool lost;
    v.convert(cast<FloatType>(elt).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(elt, v);
  }
  if (auto i = dyn_cast<IntegerAttr>(value);
      i && elt.isSignlessInteger() && i.getType().isSignlessInteger())
    return IntegerAttr::get(
        elt, i.getValue().sextOrTrunc(elt.getIntOrFloatBitWidth()));
  return {};
}

Value sinter::gpu_kernels::linearIndex(KernelBuilder &kb, AffineMap map,
                                       ArrayRef<int64_t> shape,
                                       ArrayRef<Value> iv) {
  ImplicitLocOpBuilder &b = kb.builder();
  Value index;
  int64_t stride = 1;
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    AffineExpr e = map.getResult(k);
    Value term;
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      term = iv[dim.getPosition()];
    else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue())
      term = affine::expandAffineExpr(b, b.getLoc(), e, iv, ValueRange{});
    if (term) {
      if (stride != 1)
        term = arith::MulIOp::create(b, term, kb.idx(stride));
      index = index ? arith::AddIOp::create(b, index, term) : term;
    }
    stride *= shape[k];
  }
  return index ? index : kb.idx(0);
}

/// Row-major linear index of element `indices` of a static `shape`.
static Value linearIndexOf(KernelBuilder &kb, ArrayRef<int64_t> shape,
                           ValueRange indices) {
  ImplicitLocOpBuilder &b = kb.builder();
  Value index;
  int64_t stride = 1;
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    Value term = indices[k];
    if (stride != 1)
      term = arith::MulIOp::create(b, term, kb.idx(stride));
    index = index ? arith::AddIOp::create(b, index, term) : term;
    stride *= shape[k];
  }
  return index ? index : kb.idx(0);
}

/// A constant tensor as a read-only global of the kernel module (emitted
/// into the PTX), viewed from the kernel being built by `b`.
static Value constantBuffer(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                            DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto memType = MemRefType::get(type.getShape(), type.getElementType());
  // One global per distinct constant.
  std::string name;
  for (int k = 0;; ++k) {
    name = "sinter_constant_" + std::to_string(k);
    auto g = module.lookupSymbol<memref::GlobalOp>(name);
    if (!g)
      break;
    if (g.getInitialValue() == Attribute(value) && g.getType() == memType)
      return memref::GetGlobalOp::create(b, memType, name);
  }
  OpBuilder mb(module.getContext());
  mb.setInsertionPointToStart(module.getBody());
  memref::GlobalOp::create(mb, b.getLoc(), name, mb.getStringAttr("private"),
                           memType, value,
                           /*constant=*/true, /*alignment=*/IntegerAttr());
  return memref::GetGlobalOp::create(b, memType, name);
}

LogicalResult sinter::gpu_kernels::checkSerialKernel(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() == 0 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return op->emitOpError("the CUDA backend runs linalg ops on tensors only");
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (OpOperand &operand : op->getOpOperands()) {
    Type t = operand.get().getType();
    auto shaped = dyn_cast<RankedTensorType>(t);
    Type elt = shaped ? shaped.getElementType() : t;
    if (!isSupportedElementType(elt))
      return op->emitOpError("operand #")
             << operand.getOperandNumber() << " has element type " << elt
             << ", which the CUDA backend's serial linalg kernel does not "
                "support (f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)";
    if (!shaped)
      continue;
    if (!shaped.hasStaticShape())
      return op->emitOpError("the CUDA backend needs static shapes, got ") << t;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!op.isDpsInit(&operand))
      continue; // Inputs are read through any affine map.
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return op->emitOpError("writes init #")
             << operand.getOperandNumber() - op.getNumDpsInputs() << " through "
             << AffineMapAttr::get(map)
             << ", which is not a projected permutation of the loops; the "
                "CUDA backend cannot run that";
    // Every output element is written by exactly one thread: the output
    // map names every parallel loop and no reduction loop.
    llvm::SmallBitVector seen(op.getNumLoops());
    for (AffineExpr e : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        seen.set(dim.getPosition());
    for (auto [d, it] : llvm::enumerate(iters))
      if (seen.test(d) != (it == utils::IteratorType::parallel))
        return op->emitOpError("writes init #")
               << operand.getOperandNumber() - op.getNumDpsInputs()
               << " through " << AffineMapAttr::get(map)
               << ", which does not index exactly the parallel loops; the "
                  "CUDA backend cannot run that";
  }
  for (Operation &bodyOp : op->getRegion(0).front().without_terminator()) {
    if (isa<linalg::IndexOp, cf::AssertOp>(bodyOp))
      continue;
    if (auto extract = dyn_cast<tensor::ExtractOp>(bodyOp)) {
      auto t = extract.getTensor().getType();
      if (!t.hasStaticShape() || !isSupportedElementType(t.getElementType()))
        return bodyOp.emitOpError("gathers from ")
               << t << ", which a CUDA kernel cannot take";
      continue;
    }
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            bodyOp.getDialect()))
      return bodyOp.emitOpError(
          "cannot run inside a CUDA kernel (only arith, math, linalg.index, "
          "tensor.extract and cf.assert can)");
    // f16/bf16 values are carried in f32: a bit-level view of one cannot.
    if (isa<arith::BitcastOp>(bodyOp) &&
        llvm::any_of(llvm::concat<Type>(bodyOp.getOperandTypes(),
                                        bodyOp.getResultTypes()),
                     isNarrowFloat))
      return bodyOp.emitOpError("on f16/bf16 values cannot run in the CUDA "
                                "backend's serial linalg kernel (it computes "
                                "f16/bf16 arithmetic in f32)");
  }
  return success();
}

/// Reductions at least this long take a warp per output element.
static constexpr int64_t kSplitReductionMinTrips = 256;
/// A split reduction with at most this many output elements per SM (a
/// loss's sum over the batch: one) takes a block per element, its warps'
/// totals meeting in shared memory: one warp alone is latency-bound.
static constexpr int64_t kBlockPerElementMaxPerSM = 1;

LogicalResult SerialKernel::plan() {
  ranges = op.getStaticLoopRanges();
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction) {
      reductionDims.push_back(d);
      trips *= ranges[d];
    }
  if (failed(planInits()) || failed(planCaptures()))
    return failure();
  planOperands();
  // One thread (or warp) per output element, in the row-major order of the
  // first result (consecutive threads store consecutive elements of it).
  total = cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
  // Reductions contiguous along the output's columns take the column form;
  // other long ones a warp per output element.
  if (planColumns())
    return success();
  split = matchSplitReduction(op, trips, kSplitReductionMinTrips);
  lanes = split ? kSplitLanes : 1;
  if (split && total <= kBlockPerElementMaxPerSM * smCount &&
      trips >= kSerialBlock * kSplitReductionMinTrips / kSplitLanes)
    lanes = kSerialBlock;
  if (split)
    planRowVectors();
  launch.block = std::clamp<int64_t>(total * lanes, 1, kSerialBlock);
  launch.grid =
      std::max<int64_t>(1, llvm::divideCeil(total * lanes, launch.block));
  return success();
}

LogicalResult SerialKernel::planInits() {
  // Which inits the kernel reads: those the region uses (or all, when the
  // reduction loops run zero times), unless a constant fill folds in.
  for (OpOperand &init : op.getDpsInitsMutable())
    inits.push_back(&init);
  initConstants.resize(inits.size());
  readsInit.assign(inits.size(), false);
  for (auto [j, init] : llvm::enumerate(inits)) {
    bool used = !op.getMatchingBlockArgument(init).use_empty() || trips == 0;
    if (!used)
      continue;
    if (auto fill = init->get().getDefiningOp<linalg::FillOp>())
      initConstants[j] = foldableFillValue(fill);
    if (initConstants[j])
      continue;
    if (init->get().getDefiningOp<tensor::EmptyOp>())
      return op.emitOpError("init #")
             << j << " is an uninitialized tensor that the region reads";
    readsInit[j] = true;
  }
  return success();
}

LogicalResult SerialKernel::planCaptures() {
  // Values the region uses from above: constants are rematerialized in the
  // kernel (tensors as globals of the kernel module); other tensors
  // (gathered from) and scalars become kernel arguments.
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value v : captured) {
    if (matchPattern(v, m_Constant()))
      continue;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if ((t && (!t.hasStaticShape() ||
               !isSupportedElementType(t.getElementType()))) ||
        (!t && (isa<ShapedType>(v.getType()) ||
                !isSupportedElementType(v.getType()))))
      return op.emitOpError("uses a value of type ")
             << v.getType()
             << " from above its region, which a CUDA kernel cannot take";
    capturedArgs.push_back(v);
  }
  return success();
}

void SerialKernel::planOperands() {
  inputs = op.getDpsInputs();
  // Non-splat constant tensors (TOSA's arange literals) are not passed: the
  // kernel reads them from a global of the kernel module.
  auto isDenseConstant = [](Value v) {
    DenseElementsAttr d;
    return isa<RankedTensorType>(v.getType()) &&
           matchPattern(v, m_Constant(&d));
  };
  inputArg.assign(inputs.size(), -1);
  for (auto [i, input] : llvm::enumerate(inputs))
    if (!isDenseConstant(input)) {
      inputArg[i] = launch.operands.size();
      launch.operands.push_back(
          sliced && sliced->input == i ? sliced->slice.getSource() : input);
    }
  initArg.assign(inits.size(), 0);
  for (auto [j, init] : llvm::enumerate(inits))
    if (readsInit[j]) {
      initArg[j] = launch.operands.size();
      launch.operands.push_back(init->get());
    }
  firstCaptured = launch.operands.size();
  launch.operands.append(capturedArgs.begin(), capturedArgs.end());
  firstResult = launch.operands.size();
  launch.results.append(op->result_begin(), op->result_end());
  if (sliced && sliced->copy)
    launch.results.push_back(sliced->slice.getResult());
}

Value SerialKernel::promoted(Value v) {
  if (!isNarrowFloat(v.getType()))
    return v;
  return arith::ExtFOp::create(b, f32, v);
}

Value SerialKernel::promotedConstant(TypedAttr attr) {
  if (auto f = dyn_cast<FloatAttr>(attr); f && isNarrowFloat(f.getType())) {
    APFloat v = f.getValue();
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return arith::ConstantOp::create(b, FloatAttr::get(f32, v));
  }
  return arith::ConstantOp::create(b, attr);
}

Value SerialKernel::view(Value memref) {
  return cast<MemRefType>(memref.getType()).getRank() == 0 ? memref
                                                           : kb.flatten(memref);
}

Value SerialKernel::load(Value mem, Value index) {
  if (cast<MemRefType>(mem.getType()).getRank() == 0)
    return memref::LoadOp::create(b, mem, ValueRange{});
  return memref::LoadOp::create(b, mem, ValueRange{index});
}

void SerialKernel::store(Value v, Value mem, Value index) {
  if (cast<MemRefType>(mem.getType()).getRank() == 0)
    memref::StoreOp::create(b, v, mem, ValueRange{});
  else
    memref::StoreOp::create(b, v, mem, ValueRange{index});
}

SmallVector<KernelLaunch, 1> SerialKernel::emit(StringRef name) {
  if (column) {
    SmallVector<KernelLaunch, 1> launches = {emitColumnChunks(name)};
    if (column->chunks > 1)
      launches.push_back(emitColumnFinish((name + "_1").str()));
    return launches;
  }
  func = createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  // A block per element: its warps' totals, one slot per warp.
  if (lanes > kSplitLanes)
    addWarpPartials(lanes / kSplitLanes, /*slots=*/1);
  b.setInsertionPointToStart(&func.getBody().front());
  emitViews();
  emitCaptures();
  Value element = emitThreadIndex();
  emitCoordinates(element);
  emitInitialAccumulators(element);
  SmallVector<Value> results =
      split ? emitWarpLoop() : emitSerialLoops(0, accs);
  emitStores(results);
  return {launch};
}

void SerialKernel::emitViews() {
  initViews.resize(inits.size());
  for (auto [i, input] : llvm::enumerate(inputs)) {
    DenseElementsAttr dense;
    if (inputArg[i] < 0 && matchPattern(input, m_Constant(&dense)))
      inputViews.push_back(view(constantBuffer(b, module, dense)));
    else
      inputViews.push_back(isa<RankedTensorType>(input.getType())
                               ? view(func.getArgument(inputArg[i]))
                               : Value());
  }
  for (auto [j, init] : llvm::enumerate(inits))
    if (readsInit[j])
      initViews[j] = view(func.getArgument(initArg[j]));
  for (unsigned r = 0; r < launch.results.size(); ++r)
    resultViews.push_back(view(func.getArgument(firstResult + r)));
}

void SerialKernel::emitCaptures() {
  // Constants and scalars the region captures.
  for (Value v : captured) {
    DenseElementsAttr dense;
    if (isa<RankedTensorType>(v.getType()) &&
        matchPattern(v, m_Constant(&dense)))
      captures.map(v, constantBuffer(b, module, dense));
    else if (Operation *def = v.getDefiningOp();
             def && matchPattern(v, m_Constant()))
      captures.map(v, b.clone(*def)->getResult(0));
  }
  for (auto [k, v] : llvm::enumerate(capturedArgs))
    captures.map(v, func.getArgument(firstCaptured + k));
  for (Value v : captured)
    if (!isa<ShapedType>(v.getType()))
      captures.map(v, promoted(captures.lookup(v)));
}

Value SerialKernel::emitThreadIndex() {
  // This thread's (warp's) output element, and the builder inside the
  // guard that leaves the threads past the last one idle.
  Value tid = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(launch.block)),
      kb.threadId());
  if (split) {
    lane = arith::RemUIOp::create(b, tid, kb.idx(lanes));
    tid = arith::DivUIOp::create(b, tid, kb.idx(lanes));
  }
  if (launch.grid * launch.block != total * lanes) {
    // (A warp's lanes share their element: the branch is warp-uniform.)
    Value inRange =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid, kb.idx(total));
    auto guard = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
  }
  return tid;
}

void SerialKernel::emitCoordinates(Value element) {
  // The parallel coordinates of the output element.
  auto out0 = cast<RankedTensorType>(op->getResult(0).getType());
  iv.assign(op.getNumLoops(), Value());
  AffineMap out0Map = op.getMatchingIndexingMap(inits[0]);
  Value rest = element;
  for (int64_t k = out0.getRank() - 1; k >= 0; --k) {
    auto dim = dyn_cast<AffineDimExpr>(out0Map.getResult(k));
    if (!dim)
      continue;
    int64_t extent = out0.getDimSize(k);
    iv[dim.getPosition()] =
        k == 0 ? rest : arith::RemUIOp::create(b, rest, kb.idx(extent));
    if (k != 0)
      rest = arith::DivUIOp::create(b, rest, kb.idx(extent));
  }
}

void SerialKernel::emitInitialAccumulators(Value element) {
  for (auto [j, init] : llvm::enumerate(inits)) {
    auto type = cast<RankedTensorType>(init->get().getType());
    // The first result is stored in thread order.
    outIndex.push_back(j == 0 ? element
                              : linearIndex(kb, op.getMatchingIndexingMap(init),
                                            type.getShape(), iv));
    Value acc;
    if (initConstants[j])
      acc = promotedConstant(initConstants[j]);
    else if (readsInit[j])
      acc = promoted(load(initViews[j], outIndex[j]));
    else // never read: any value of the carried type
      acc = promotedConstant(
          cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
    accs.push_back(acc);
  }
}

SmallVector<Value> SerialKernel::emitRegion(ValueRange current) {
  // The region at one iteration point, on the current accumulators.
  IRMapping mapping = captures;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    BlockArgument arg = body.getArgument(i);
    if (arg.use_empty())
      continue;
    if (!inputViews[i]) {
      mapping.map(arg, promoted(func.getArgument(inputArg[i])));
      continue;
    }
    if (Value v = preloaded.lookup(i)) {
      mapping.map(arg, v);
      continue;
    }
    OpOperand *operand = op.getDpsInputOperand(i);
    if (sliced && sliced->input == i) {
      mapping.map(arg, promoted(emitSlicedLoad(operand)));
      continue;
    }
    auto type = cast<RankedTensorType>(input.getType());
    Value index = linearIndex(kb, op.getMatchingIndexingMap(operand),
                              type.getShape(), iv);
    mapping.map(arg, promoted(load(inputViews[i], index)));
  }
  for (auto [j, init] : llvm::enumerate(inits))
    mapping.map(op.getMatchingBlockArgument(init), current[j]);
  for (Operation &bodyOp : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
      mapping.map(index.getResult(), iv[index.getDim()]);
      continue;
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(bodyOp);
        ext && isNarrowFloat(ext.getIn().getType())) {
      // The operand is already f32.
      Value x = mapping.lookup(ext.getIn());
      mapping.map(ext.getResult(),
                  ext.getType() == f32 || isNarrowFloat(ext.getType())
                      ? x
                      : Value(arith::ExtFOp::create(b, ext.getType(), x)));
      continue;
    }
    if (auto trunc = dyn_cast<arith::TruncFOp>(bodyOp);
        trunc && isNarrowFloat(trunc.getType())) {
      // A rounding the region asks for: round, then carry in f32.
      Value x = mapping.lookup(trunc.getIn());
      Value r = arith::TruncFOp::create(b, trunc.getType(), x);
      mapping.map(trunc.getResult(), arith::ExtFOp::create(b, f32, r));
      continue;
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(bodyOp)) {
      mapping.map(cst.getResult(), promotedConstant(cst.getValue()));
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(bodyOp)) {
      // A gather: the tensor is a kernel argument (a memref).
      Value mem = mapping.lookup(extract.getTensor());
      auto shape = extract.getTensor().getType().getShape();
      SmallVector<Value> indices;
      for (Value i : extract.getIndices())
        indices.push_back(mapping.lookup(i));
      Value v = load(view(mem), linearIndexOf(kb, shape, indices));
      mapping.map(extract.getResult(), promoted(v));
      continue;
    }
    Operation *clone = cloneForDevice(b, bodyOp, mapping);
    for (Value r : clone->getResults())
      if (isNarrowFloat(r.getType()))
        r.setType(f32);
  }
  SmallVector<Value> next;
  for (Value v : body.getTerminator()->getOperands())
    next.push_back(mapping.lookupOrDefault(v));
  return next;
}

Value SerialKernel::slicedSourceIndex(OpOperand *operand) {
  // The slice's coordinates of this point (the input's map is a
  // permutation of the loops), then the source's: plus the offsets.
  AffineMap map = op.getMatchingIndexingMap(operand);
  SmallVector<Value> source;
  for (auto [e, offset] :
       llvm::zip_equal(map.getResults(), sliced->slice.getStaticOffsets())) {
    Value at = iv[cast<AffineDimExpr>(e).getPosition()];
    source.push_back(offset ? arith::AddIOp::create(b, at, kb.idx(offset))
                            : at);
  }
  return linearIndexOf(kb, sliced->slice.getSourceType().getShape(), source);
}

Value SerialKernel::emitSlicedLoad(OpOperand *operand) {
  Value x = load(inputViews[sliced->input], slicedSourceIndex(operand));
  if (sliced->copy) {
    SmallVector<Value> at;
    for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults())
      at.push_back(iv[cast<AffineDimExpr>(e).getPosition()]);
    pendingCopies.push_back(
        {x, linearIndexOf(kb, sliced->slice.getType().getShape(), at)});
  }
  return x;
}

void SerialKernel::emitCopies() {
  for (auto [x, index] : pendingCopies)
    store(x, resultViews.back(), index);
  pendingCopies.clear();
}

SmallVector<Value> SerialKernel::emitSerialLoops(unsigned level,
                                                 ValueRange current) {
  // The reduction loops, outermost first, carrying the accumulators.
  if (level == reductionDims.size()) {
    SmallVector<Value> next = emitRegion(current);
    emitCopies();
    return next;
  }
  unsigned d = reductionDims[level];
  auto loop =
      scf::ForOp::create(b, kb.idx(0), kb.idx(ranges[d]), kb.idx(1), current);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  iv[d] = loop.getInductionVar();
  SmallVector<Value> next =
      emitSerialLoops(level + 1, loop.getRegionIterArgs());
  scf::YieldOp::create(b, next);
  return SmallVector<Value>(loop.getResults());
}

void SerialKernel::addWarpPartials(int64_t warps, int64_t slots) {
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  for (TypedAttr identity : split->identities)
    warpPartials.push_back(func.addWorkgroupAttribution(
        MemRefType::get({warps * slots}, identity.getType(),
                        MemRefLayoutAttrInterface(), ws),
        op.getLoc()));
}

SmallVector<Value> SerialKernel::combineAcrossWarps(ArrayRef<Value> partial,
                                                    Value warpId, Value slot,
                                                    int64_t warps,
                                                    int64_t slots,
                                                    Value stores) {
  storeWarpPartials(partial, warpId, slot, slots, stores);
  gpu::BarrierOp::create(b);
  return sumWarpPartials(slot, warps, slots);
}

void SerialKernel::storeWarpPartials(ArrayRef<Value> partial, Value warpId,
                                     Value slot, int64_t slots, Value stores) {
  auto storeAll = [&](OpBuilder &ob, Location loc) {
    Value at = arith::AddIOp::create(
        ob, loc, arith::MulIOp::create(ob, loc, warpId, kb.idx(slots)), slot);
    for (auto [j, p] : llvm::enumerate(partial))
      memref::StoreOp::create(ob, loc, p, warpPartials[j], ValueRange{at});
  };
  if (!stores) {
    storeAll(b, b.getLoc());
    return;
  }
  scf::IfOp::create(b, stores, [&](OpBuilder &ob, Location loc) {
    storeAll(ob, loc);
    scf::YieldOp::create(ob, loc);
  });
}

SmallVector<Value> SerialKernel::sumWarpPartials(Value slot, int64_t warps,
                                                 int64_t slots) {
  SmallVector<Value> totals;
  for (TypedAttr identity : split->identities)
    totals.push_back(arith::ConstantOp::create(b, identity));
  for (int64_t w = 0; w < warps; ++w) {
    Value at = arith::AddIOp::create(b, kb.idx(w * slots), slot);
    SmallVector<Value> loaded;
    for (Value buffer : warpPartials)
      loaded.push_back(memref::LoadOp::create(b, buffer, ValueRange{at}));
    totals = combineSplit(b, *split, totals, loaded);
  }
  return totals;
}

SmallVector<Value> SerialKernel::emitPoint(Value point, ValueRange current) {
  // The region at reduction point `point` (row-major over the reduction
  // loops). The outermost reduction dimension takes what is left (the
  // point is below `trips`): no division for a single reduced dimension.
  Value rest = point;
  for (unsigned d : llvm::reverse(ArrayRef(reductionDims).drop_front())) {
    iv[d] = arith::RemUIOp::create(b, rest, kb.idx(ranges[d]));
    rest = arith::DivUIOp::create(b, rest, kb.idx(ranges[d]));
  }
  iv[reductionDims.front()] = rest;
  return emitRegion(current);
}

void SerialKernel::emitStores(ArrayRef<Value> results) {
  // One store per result, rounded to its storage type once.
  for (auto [j, r] : llvm::enumerate(results)) {
    Value v = r;
    Type elt = cast<MemRefType>(resultViews[j].getType()).getElementType();
    if (v.getType() != elt)
      v = arith::TruncFOp::create(b, elt, v);
    store(v, resultViews[j], outIndex[j]);
  }
}

FailureOr<SmallVector<KernelLaunch, 1>> sinter::gpu_kernels::buildSerialKernel(
    linalg::GenericOp op, gpu::GPUModuleOp module, StringRef name,
    int64_t smCount, const SlicedInput *sliced) {
  if (failed(checkSerialKernel(op)))
    return failure();
  SerialKernel kernel(op, module, smCount, sliced);
  if (failed(kernel.plan()))
    return failure();
  return kernel.emit(name);
}
