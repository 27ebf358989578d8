//===- NormBackwardMatch.h - LayerNorm backward raising ---------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_NORMBACKWARDMATCH_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_NORMBACKWARDMATCH_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {

/// Raises every LayerNorm input gradient decomposed as AOTAutograd writes
/// it (RaiseNormBackward.cpp) among `candidates` into
/// sinter.layer_norm_backward, erasing what it replaced (added to
/// `erased`); returns how many were raised. sinter-raise-norms calls it
/// after raising the forward norms.
int raiseNormBackwards(llvm::ArrayRef<mlir::Operation *> candidates,
                       llvm::DenseSet<mlir::Operation *> &erased);

} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_NORMBACKWARDMATCH_H
