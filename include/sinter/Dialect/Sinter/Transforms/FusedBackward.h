//===- FusedBackward.h - The backward of a sinter.fused chain ---*- C++ -*-===//
//
// Part of the Sinter project.
//
// Reverse-mode differentiation of a `sinter.fused` body: the backward of a
// chain is another `sinter.fused` over the same iteration space whose body
// recomputes the forward chain and then walks it backwards, so it reads each
// input and each result gradient once and writes each input gradient once.
// A dropout is differentiated by dropping the gradient with the same seed at
// the same offset (the same iteration space gives the same Philox stream).
// The gradient of an input that is broadcast (a bias read through
// `(d0, d1) -> (d1)`) is that op's per-element gradient summed over the
// dimensions its map drops, by a reduction generic after it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_FUSEDBACKWARD_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_FUSEDBACKWARD_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LogicalResult.h"

namespace sinter {

class FusedOp;

/// Builds the gradients of `op`'s inputs given the gradients of its results
/// (`resultGrads[k]` has the type of result k; a null entry is a zero
/// gradient, as is any entry for a result that is not of floats). Returns one
/// value per input: the gradient, with the input's type, of every ranked tensor
/// input of floating-point elements, and a null value for the others (scalars,
/// integer tensors, the seed). The body's arithmetic is f32 (f64 where the body
/// computes in f64); each gradient is rounded once. Fails, with an error at the
/// op the rule is missing for, on a body op without a derivative rule.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildFusedBackward(mlir::OpBuilder &b, FusedOp op,
                   mlir::ValueRange resultGrads);

} // namespace sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_FUSEDBACKWARD_H
