//===- ConcatKernel.cpp - tensor.concat as in-place elementwise kernels ---===//
//
// Part of the Sinter project.
//
// A static concatenation runs as one elementwise kernel per part, each
// storing its part into the concatenation's buffer at the part's offset
// (the first allocates it, the others write it in place) -- instead of a
// gather that reads every part at each element. Where an elementwise op
// with no other use produced a part, possibly reshaped by a
// tensor.collapse_shape, its body runs in the part's kernel: GPT-2's
// backward concatenates dQ, dK and dV after transposing each from heads
// [B, H, S, D] to [B, S, H*D]:
//
//   %tq = linalg.transpose ins(%dq) ... permutation = [0, 2, 1, 3]
//   %cq = tensor.collapse_shape %tq [[0], [1], [2, 3]]
//   ... (dK, dV alike)
//   %c = tensor.concat dim(2) %cq, %ck, %cv
//        : (tensor<8x1024x768xbf16> x3) -> tensor<8x1024x2304xbf16>
//   ->
//   three kernels over [8, 1024, 12, 64], each reading its gradient and
//   storing into %c's buffer at strides [2359296, 2304, 64, 1] from
//   offset 0, 768, 1536.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

bool sinter::gpu_kernels::isElementwiseConcat(tensor::ConcatOp concat) {
  auto type = cast<RankedTensorType>(concat.getType());
  if (!type.hasStaticShape() || type.getRank() == 0 ||
      llvm::is_contained(type.getShape(), 0))
    return false;
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.isInteger(1))
    return false;
  return llvm::all_of(concat.getInputs(), [](Value in) {
    auto t = cast<RankedTensorType>(in.getType());
    return t.hasStaticShape() && !llvm::is_contained(t.getShape(), 0);
  });
}

/// The strides, in the concatenation's buffer, of the iteration space of
/// `part`'s kernel: the concatenation's own, or through a collapse_shape
/// those of the dimensions it collapsed (each group row-major inside the
/// stride of the dimension it became).
static SmallVector<int64_t> placementStrides(ConcatPart part,
                                             ArrayRef<int64_t> destStrides) {
  if (!part.reshape)
    return SmallVector<int64_t>(destStrides);
  ArrayRef<int64_t> src = part.reshape.getSrcType().getShape();
  SmallVector<int64_t> strides(src.size(), 0);
  for (auto [g, group] :
       llvm::enumerate(part.reshape.getReassociationIndices())) {
    int64_t stride = destStrides[g];
    for (int64_t d : llvm::reverse(group)) {
      strides[d] = stride;
      stride *= src[d];
    }
  }
  return strides;
}

FailureOr<SmallVector<KernelLaunch, 1>> sinter::gpu_kernels::buildConcatKernels(
    tensor::ConcatOp concat, ArrayRef<ConcatPart> parts,
    gpu::GPUModuleOp module, StringRef name, const Tuning &tuning) {
  auto type = cast<RankedTensorType>(concat.getType());
  SmallVector<int64_t> destStrides = computeStrides(type.getShape());
  int64_t dim = concat.getDim();
  SmallVector<KernelLaunch, 1> launches;
  int64_t along = 0;
  for (auto [k, part] : llvm::enumerate(parts)) {
    // The operand as it is now: ops outlined before replaced their results.
    Value input = concat.getInputs()[k];
    ElementwisePlacement placement;
    placement.dest = concat.getResult();
    placement.strides = placementStrides(part, destStrides);
    placement.offset = along * destStrides[dim];
    placement.fresh = k == 0;
    along += cast<RankedTensorType>(input.getType()).getDimSize(dim);
    std::string partName = k == 0 ? name.str() : (name + "_" + Twine(k)).str();
    FailureOr<KernelLaunch> launch;
    if (part.producer) {
      ElementwiseForm form = elementwiseFormOf(part.producer);
      launch = buildElementwiseKernel(concat, form.inputs, form.maps,
                                      *form.body, part.producer->getResults(),
                                      module, partName, tuning, form.offsets,
                                      /*padding=*/nullptr, &placement);
    } else {
      // A copy of the operand; a slice is read in place, its source at
      // its offsets (readInPlaceByAllUsers).
      SmallVector<int64_t> offsets;
      if (tensor::ExtractSliceOp slice = sliceReadInPlace(input);
          slice && readInPlaceByAllUsers(slice)) {
        offsets.assign(slice.getStaticOffsets().begin(),
                       slice.getStaticOffsets().end());
        input = slice.getSource();
      }
      launch = buildCopyKernel(
          concat, input, offsets, ValueRange{concat.getInputs()[k]}, module,
          partName, tuning, /*padding=*/nullptr, &placement);
    }
    if (failed(launch))
      return failure();
    launches.push_back(std::move(*launch));
  }
  return launches;
}
