//===- PadKernel.cpp - tensor.pad as an elementwise kernel ----------------===//
//
// Part of the Sinter project.
//
// A static high pad with a constant value -- sinter-pad-matmuls' zero pads
// of GPT-2's logits gradient and of its tied weight -- runs as an
// elementwise kernel over the padded shape rather than as a gather on the
// serial kernel: vector stores of aligned rows, the lanes past the source
// storing the pad value. When an elementwise op with no other use produced
// the source, its body runs in the same kernel (OutlineCUDAKernels.cpp
// takes it):
//
//   %g = sinter.fused ins(%logits, %lse, ...) { ... } ->
//   tensor<8192x50257xbf16> %p = tensor.pad %g low[0, 0] high[0, 7] {
//   tensor.yield %zero }
//        : tensor<8192x50257xbf16> to tensor<8192x50264xbf16>
//   ->
//   one kernel over [8192, 50264]: lanes at column < 50257 compute the
//   body (inputs read at clamped coordinates), the others store 0. The
//   chain's inputs that are slices (the logits sliced out of the padded
//   product the forward saved) are read in their sources, in place.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

TypedAttr sinter::gpu_kernels::padValueOf(tensor::PadOp pad) {
  Value v = pad.getConstantPaddingValue();
  TypedAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return {};
  return attr;
}

bool sinter::gpu_kernels::isElementwisePad(tensor::PadOp pad) {
  RankedTensorType type = pad.getResultType(), src = pad.getSourceType();
  if (!type.hasStaticShape() || !src.hasStaticShape() || type.getRank() == 0 ||
      llvm::is_contained(src.getShape(), 0) || !padValueOf(pad))
    return false;
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.isInteger(1))
    return false;
  if (!llvm::all_of(pad.getMixedLowPad(),
                    [](OpFoldResult o) { return isConstantIntValue(o, 0); }))
    return false;
  return llvm::all_of(pad.getMixedHighPad(), [](OpFoldResult o) {
    return getConstantIntValue(o).has_value();
  });
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildPadKernel(tensor::PadOp pad, Operation *producer,
                                    gpu::GPUModuleOp module, StringRef name,
                                    const Tuning &tuning) {
  ElementwisePadding padding;
  padding.valid.assign(pad.getSourceType().getShape().begin(),
                       pad.getSourceType().getShape().end());
  padding.padValues.push_back(padValueOf(pad));
  if (!producer)
    return buildCopyKernel(pad, pad.getSource(), /*offsets=*/{},
                           pad->getResults(), module, name, tuning, &padding);
  // (A chain's slices are read in place: OutlineCUDAKernels made no copy
  // of those only chains like this one read.)
  ElementwiseForm form = elementwiseFormOf(producer);
  if (isa<FusedOp>(producer))
    readSlicesInPlace(form);
  return buildElementwiseKernel(pad, form.inputs, form.maps, *form.body,
                                pad->getResults(), module, name, tuning,
                                form.offsets, &padding);
}
