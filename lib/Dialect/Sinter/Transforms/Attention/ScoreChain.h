//===- ScoreChain.h - From the softmax input back to Q K^T ------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Between `S = Q K^T` and the softmax, frontends scale the scores, round
// them (mixed precision), add masks and select hidden keys away. The walk
// here folds all of it into the fused op's `scale * S + mask` with the
// `causal` attribute, or says why it cannot. Private to
// lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_SCORECHAIN_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_SCORECHAIN_H

#include "MaskAnalysis.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace sinter {
namespace attention {

/// Everything the walk from the softmax input back to the scores found.
struct ScoreChain {
  /// The product of the uniform scales of the scores.
  double scale = 1.0;
  /// Key j hidden from query i iff j > i + (Skv - Sq).
  bool causal = false;
  /// An additive mask tensor (none when the mask was all zeros or fully
  /// described by `causal`).
  mlir::Value mask;
  mlir::AffineMap maskMap;                  // Its indexing map...
  unsigned maskRank = 0;                    // ...in a loop nest of this rank
  llvm::SmallVector<int64_t> maskLoopShape; // ...and these sizes.
  /// What the mask analysis said of a mask kept as a tensor (for the
  /// fusion remark: "sliding window kept as a mask", ...).
  std::string maskNote;
  /// The ops between the scores and the softmax input.
  llvm::SetVector<mlir::Operation *> ops;
};

// Walks back from `softmaxInput` to `scores` through
//
//   %e  = tensor.expand_shape %s [[0, 1], [2], [3]]       (heads split)
//   %t  = linalg.generic { arith.truncf %in : f32 to bf16 }  (rounding)
//   %x  = linalg.generic { arith.mulf %in, %c }           (scale; divf too)
//   %m  = linalg.generic ins(%x, %mask) { arith.addf %in, %in_0 }
//   %h  = linalg.generic { arith.select %cond, %in, %ninf }  (hidden keys)
//   %w  = linalg.generic { arith.extf %in : bf16 to f32 }
//
// in any order and any grouping of those body ops into generics. `sq` and
// `skv` are the query and key lengths (for the causal alignment).
bool walkScoreChain(mlir::Value softmaxInput, mlir::Value scores,
                    double softmaxScale, int64_t sq, int64_t skv,
                    ScoreChain &chain, std::string &why);

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_SCORECHAIN_H
