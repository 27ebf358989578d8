//===- Operands.cpp - The attention kernels' parameters -------------------===//
//
// Part of the Sinter project.
//
// What the CUDA-core and tensor-core attention kernels share about their
// parameters: the flattened buffers of q, k, v[, mask][, seed], out[, lse],
// and the broadcast strides of the additive mask.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

sinter::gpu_kernels::AttentionShape::AttentionShape(AttentionOp op)
    : AttentionShape(op.getQuery(), op.getKey(), op.getValue(),
                     op.getDropoutP().convertToDouble()) {}

sinter::gpu_kernels::AttentionShape::AttentionShape(AttentionBackwardOp op)
    : AttentionShape(op.getQuery(), op.getKey(), op.getValue(),
                     op.getDropoutP().convertToDouble()) {}

sinter::gpu_kernels::AttentionShape::AttentionShape(Value query, Value key,
                                                    Value value,
                                                    double dropoutP) {
  auto qType = cast<RankedTensorType>(query.getType());
  auto kType = cast<RankedTensorType>(key.getType());
  auto vType = cast<RankedTensorType>(value.getType());
  B = qType.getDimSize(0);
  Hq = qType.getDimSize(1);
  Sq = qType.getDimSize(2);
  D = qType.getDimSize(3);
  Hkv = kType.getDimSize(1);
  Skv = kType.getDimSize(2);
  Dv = vType.getDimSize(3);
  elt = qType.getElementType();
  dropP = dropoutP;
}

AttentionArgs sinter::gpu_kernels::attentionArguments(KernelBuilder &kb,
                                                      gpu::GPUFuncOp func,
                                                      AttentionOp op) {
  // Arguments: q, k, v[, mask][, seed], then output[, lse].
  AttentionArgs args;
  args.q = kb.flatten(func.getArgument(0));
  args.k = kb.flatten(func.getArgument(1));
  args.v = kb.flatten(func.getArgument(2));
  if (op.getMask())
    args.mask = kb.flatten(func.getArgument(3));
  unsigned numInputs = op->getNumOperands();
  if (op.getSeed())
    args.seed = scalarInKernel(kb.builder(), func.getArgument(numInputs - 1));
  args.out = kb.flatten(func.getArgument(numInputs));
  if (op.getLse())
    args.lse = kb.flatten(func.getArgument(numInputs + 1));
  return args;
}

KernelLaunch sinter::gpu_kernels::attentionLaunchFor(AttentionOp op,
                                                     int64_t grid,
                                                     int64_t block) {
  KernelLaunch launch = launchFor(op, grid, block);
  if (Value seed = op.getSeed())
    launch.operands[op->getNumOperands() - 1] = kernelScalarOperand(seed);
  return launch;
}

SmallVector<int64_t> sinter::gpu_kernels::attentionMaskStrides(AttentionOp op) {
  return attentionMaskStrides(op.getMask());
}

SmallVector<int64_t> sinter::gpu_kernels::attentionMaskStrides(Value mask) {
  SmallVector<int64_t> strides(4, 0);
  if (!mask)
    return strides;
  ArrayRef<int64_t> ms = cast<RankedTensorType>(mask.getType()).getShape();
  int64_t off = 4 - static_cast<int64_t>(ms.size()), stride = 1;
  for (int64_t d = static_cast<int64_t>(ms.size()) - 1; d >= 0; --d) {
    if (ms[d] != 1)
      strides[off + d] = stride;
    stride *= ms[d];
  }
  return strides;
}
