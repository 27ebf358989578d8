//===- NormPrologue.cpp - Elementwise chains a norm kernel computes -------===//
//
// Part of the Sinter project.
//
// Pre-norm transformers add the residual and normalize the sum; fusion
// leaves, per layer and norm:
//
//   %s = sinter.fused ins(%x, %y : tensor<BxSxCxbf16>, tensor<BxSxCxbf16>)
//        maps [identity, identity] {
//   ^bb0(%a: bf16, %b: bf16):
//     %r = arith.addf %a, %b : bf16
//     sinter.yield %r : bf16
//   }
//   %n = sinter.layer_norm %s weight(...) bias(...)
//   ... %s again: the next residual add, after the norm ...
//
// Run apart, the chain writes %s and the norm reads it back (and each is a
// launch). The norm kernel evaluates the chain per vector of its row
// instead, the same ops on the same element types (the roundings of the
// elementwise kernel), normalizes the values and stores %s for its other
// readers. What this does not take: chains that broadcast or read scalars,
// draw dropout, have more results, or are read before the norm (those
// readers would be outlined before the kernel that computes %s).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

FusedOp sinter::gpu_kernels::matchNormPrologue(Operation *norm,
                                               const Tuning &tuning) {
  if (!isa<LayerNormOp, RMSNormOp>(norm) || tuning.rowPersistent != 0)
    return {};
  Value input = norm->getOperand(0);
  auto chain = input.getDefiningOp<FusedOp>();
  if (!chain || chain->getNumResults() != 1 ||
      chain->getBlock() != norm->getBlock())
    return {};
  auto type = cast<RankedTensorType>(input.getType());
  for (auto [in, map] : llvm::zip(chain.getInputs(), chain.getIndexingMaps()))
    if (in.getType() !=
            RankedTensorType::get(type.getShape(), getElementTypeOrSelf(in)) ||
        !cast<AffineMapAttr>(map).getValue().isIdentity())
      return {};
  // A chain that reads a matmul's product is its bias epilogue
  // (MatmulEpilogue.cpp) when it is the product's only reader.
  for (Value in : chain.getInputs())
    if (isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(
            in.getDefiningOp()))
      return {};
  for (Operation &op : chain.getBody().front().without_terminator())
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op.getDialect()))
      return {};
  for (Operation *user : input.getUsers())
    if (user != norm &&
        (user->getBlock() != norm->getBlock() || user->isBeforeInBlock(norm)))
      return {};
  return chain;
}
