//===- ProbsSide.h - From P V's operand back to the softmax -----*- C++ -*-===//
//
// Part of the Sinter project.
//
// Between the softmax and `O = P V` frontends round P (mixed precision),
// merge heads, drop probabilities out (train mode) and guard rows whose
// every key is hidden (torch's SDPA). This walks P back to the softmax.
// Private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PROBSSIDE_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PROBSSIDE_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace sinter {
namespace attention {

/// A dropout on the probabilities, drawn by the frontend's generator.
struct ProbsDropout {
  bool found = false;
  double p = 0.0;
  mlir::Value seed;
  /// The ops computing the dropped probabilities from the probabilities and
  /// the random tensor.
  llvm::SetVector<mlir::Operation *> ops;
  /// The random tensor's generator and whether only the dropout reads it.
  mlir::Operation *generator = nullptr;
  bool generatorErased = false;
};

/// What lies between the softmax result and P V's operand.
struct ProbsSide {
  /// The softmax result (or the value a softmax matcher should try).
  mlir::Value probs;
  ProbsDropout dropout;
  /// A `select(all(row == -inf), 0, P)` guard was looked through (the fused
  /// op's own definition of rows without visible keys).
  bool guarded = false;
  /// The softmax input the guard tests (to check it is the same tensor).
  mlir::Value guardScores;
  /// Rounding, reshapes and guard ops looked through.
  llvm::SetVector<mlir::Operation *> ops;
};

// Walks back from `operand` (P V's P) through, in any order,
//
//   %t = linalg.generic { arith.truncf %in : f32 to bf16 }
//   %c = tensor.collapse_shape %p [[0, 1], [2], [3]]
//   %d = (torch-mlir's dropout: a random tensor compared with 1 - p, the
//         keep mask times P divided by 1 - p; DropoutMatch.h)
//   %g = linalg.generic ins(%all, %p) { arith.select %all, %zero, %p }
//        with %all = AND over the key axis of (scores == -inf)
//
// Returns false with `why` (and `significant`) for a dropout that may not
// or cannot be raised.
bool walkProbsSide(mlir::Value operand, bool allowRngChange, ProbsSide &side,
                   std::string &why);

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PROBSSIDE_H
