//===- ElementwiseForms.cpp - What the elementwise kernel runs -----------===//
//
// Part of the Sinter project.
//
// Which ops the elementwise kernel (FusedKernel.cpp) runs and what it reads
// for them: elementwise generics and sinter.fused chains, slices read in
// place, and the chains a pad (PadKernel.cpp) or a concatenation
// (ConcatKernel.cpp) runs in its own kernel. The outliner
// (OutlineCUDAKernels.cpp) decides with these.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

bool gpu_kernels::isElementwiseGeneric(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops() || op->getNumResults() == 0)
    return false;
  for (OpOperand *in : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(in).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return false;
  bool skippedInit = false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return false;
    bool read = !op.getMatchingBlockArgument(&init).use_empty();
    if (read && skippedInit)
      return false;
    skippedInit |= !read;
  }
  // Its vectors are of floats and 8/16/32/64-bit integers (booleans and
  // indices go element by element through the serial kernel), and its
  // region computes with arith and math only; gathers, asserts and
  // linalg.index go to the serial kernel (the general path).
  for (Type t : op->getOperandTypes()) {
    Type elt = getElementTypeOrSelf(t);
    if (elt.isInteger(1) || elt.isIndex())
      return false;
  }
  // Constant tensors live in the kernel module (the serial kernel's globals).
  for (Value in : op.getDpsInputs()) {
    DenseElementsAttr dense;
    if (matchPattern(in, m_Constant(&dense)) && !dense.isSplat())
      return false;
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator())
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            bodyOp.getDialect()))
      return false;
  // Constants from above are rematerialized in the kernel; other captured
  // values (host scalars) are the serial kernel's arguments.
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op.getRegion(), above);
  return llvm::all_of(above, [](Value v) {
    return v.getDefiningOp() && matchPattern(v, m_Constant());
  });
}

bool gpu_kernels::isPlainMatmul(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return false;
  if (auto mm = dyn_cast<linalg::MatmulOp>(op); !mm || mm.hasUserDefinedMaps())
    if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op);
        !bmm || bmm.hasUserDefinedMaps())
      return false;
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    Type elt = getElementTypeOrSelf(t);
    return elt.isF16() || elt.isBF16() || elt.isF32();
  });
}

tensor::ExtractSliceOp gpu_kernels::sliceReadInPlace(Value v) {
  auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.hasUnitStride() ||
      slice.getSourceType().getRank() != slice.getType().getRank() ||
      !slice.getSourceType().hasStaticShape() ||
      ShapedType::isDynamicShape(slice.getStaticOffsets()))
    return {};
  return slice;
}

bool gpu_kernels::isElementwiseInput(OpOperand &use) {
  auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
  return generic && generic.isDpsInput(&use) && isElementwiseGeneric(generic);
}

bool gpu_kernels::readInPlaceByAllUsers(
    tensor::ExtractSliceOp slice,
    const llvm::SmallPtrSetImpl<Operation *> *slicedChains) {
  if (!sliceReadInPlace(slice.getResult()) || slice->use_empty())
    return false;
  return llvm::all_of(slice->getUses(), [&](OpOperand &use) {
    if (auto concat = dyn_cast<tensor::ConcatOp>(use.getOwner()))
      return isElementwiseConcat(concat);
    if (auto chain = dyn_cast<FusedOp>(use.getOwner()))
      return slicedChains && slicedChains->contains(chain);
    return isElementwiseInput(use);
  });
}

void gpu_kernels::readSlicesInPlace(ElementwiseForm &form) {
  form.offsets.resize(form.inputs.size());
  for (auto [input, offsets] : llvm::zip(form.inputs, form.offsets))
    if (tensor::ExtractSliceOp slice = sliceReadInPlace(input);
        slice && offsets.empty()) {
      input = slice.getSource();
      offsets.assign(slice.getStaticOffsets().begin(),
                     slice.getStaticOffsets().end());
    }
}

ElementwiseForm gpu_kernels::elementwiseFormOf(Operation *op) {
  ElementwiseForm form;
  if (auto fused = dyn_cast<FusedOp>(op)) {
    form.inputs.assign(fused.getInputs().begin(), fused.getInputs().end());
    for (Attribute a : fused.getIndexingMaps())
      form.maps.push_back(cast<AffineMapAttr>(a).getValue());
    form.body = &fused.getBody().front();
    return form;
  }
  auto generic = cast<linalg::GenericOp>(op);
  form.body = &generic.getRegion().front();
  form.offsets.resize(generic.getNumDpsInputs());
  for (OpOperand *in : generic.getDpsInputOperands()) {
    Value input = in->get();
    if (tensor::ExtractSliceOp slice = sliceReadInPlace(input)) {
      input = slice.getSource();
      form.offsets[form.inputs.size()].assign(slice.getStaticOffsets().begin(),
                                              slice.getStaticOffsets().end());
    }
    form.inputs.push_back(input);
    form.maps.push_back(generic.getMatchingIndexingMap(in));
  }
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    if (form.body->getArgument(init.getOperandNumber()).use_empty())
      continue;
    form.inputs.push_back(init.get());
    form.maps.push_back(generic.getMatchingIndexingMap(&init));
  }
  return form;
}

Operation *gpu_kernels::chainProducer(Value v, Operation *consumer,
                                      const Tuning &tuning) {
  Operation *producer = v.getDefiningOp();
  if (!producer || producer->getNumResults() != 1 || !producer->hasOneUse() ||
      producer->getBlock() != consumer->getBlock())
    return nullptr;
  auto fused = dyn_cast<FusedOp>(producer);
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!(fused && !fused->getParentOfType<FusedOp>()) &&
      !(generic && isElementwiseGeneric(generic)))
    return nullptr;
  if (producer->getRegion(0)
          .walk([](DropoutOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return nullptr;
  // (A matmul computes its activation.)
  if (tuning.matmulLibraryCall && isMatmulActivation(producer))
    return nullptr;
  for (Value in : producer->getOperands())
    if (auto mm = dyn_cast_or_null<linalg::LinalgOp>(in.getDefiningOp());
        mm && tuning.matmulLibraryCall && isPlainMatmul(mm))
      if (std::optional<MatmulEpilogue> e = matchMatmulEpilogue(mm);
          e && e->result.getDefiningOp() == producer)
        return nullptr;
  return producer;
}

linalg::GenericOp gpu_kernels::indexOnlyGeneric(Operation *op) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!g || !g.hasPureTensorSemantics() || g.getNumDpsInputs() != 0 ||
      g.getNumDpsInits() != 1 || g->getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getIndexingMapsArray()[0].isIdentity() ||
      !g.getRegionOutputArgs()[0].use_empty())
    return {};
  auto type = cast<RankedTensorType>(g->getResult(0).getType());
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return {};
  for (Operation &bodyOp : g.getBlock()->without_terminator())
    if (!isa<linalg::IndexOp>(bodyOp) &&
        !isa_and_nonnull<arith::ArithDialect>(bodyOp.getDialect()))
      return {};
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(g.getRegion(), above);
  if (!llvm::all_of(above, [](Value v) {
        return v.getDefiningOp() && matchPattern(v, m_Constant());
      }))
    return {};
  return g;
}

std::optional<ComputedInput> gpu_kernels::computedInputOf(Value v) {
  ComputedInput in;
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
    in.reshape = def;
    def = def->getOperand(0).getDefiningOp();
  }
  in.producer = indexOnlyGeneric(def);
  if (!in.producer)
    return std::nullopt;
  return in;
}
