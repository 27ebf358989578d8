//===- SoftmaxMatch.h - Recognising a softmax chain -------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The softmax matcher shared by sinter-raise-softmax and
// sinter-raise-attention (which consumes the softmax of its raw chain).
// Private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_SOFTMAXMATCH_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_SOFTMAXMATCH_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace sinter {

/// `result = softmax(scale * input)` along `dim`.
struct SoftmaxMatch {
  mlir::Value result;
  /// The tensor the softmax reads (same type as `result`).
  mlir::Value input;
  int64_t dim = -1;
  double scale = 1.0;
  /// Every op computing `result` from `input` (including the producer of
  /// `result`); none of their results other than `result` is used elsewhere.
  llvm::SetVector<mlir::Operation *> covered;
  /// Bytes of the intermediates the chain wrote (row maxima, shifted input,
  /// exponentials, sums); 0 for `linalg.softmax`.
  int64_t intermediateBytes = 0;
};

/// Why a candidate was rejected; `significant` when it looked enough like a
/// softmax (a division by a sum of exponentials) for a near-miss remark.
struct SoftmaxMiss {
  std::string reason;
  bool significant = false;
};

/// Matches `result` as `linalg.softmax` or as the decomposed
/// max/sub/exp/sum/div (or reciprocal-multiply) chain.
std::optional<SoftmaxMatch> matchSoftmax(mlir::Value result, SoftmaxMiss &why);

/// When `op` is an elementwise `linalg.generic` computing `x * c` or `x / c`
/// for one tensor `x` (set in `source`) and a finite non-zero constant `c`,
/// returns the factor (`c` or `1/c`).
std::optional<double> matchUniformScale(mlir::Operation *op,
                                        mlir::Value &source);

} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_SOFTMAXMATCH_H
