//===- Operands.h - Q, K and V behind the products --------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The products read Q, K^T (or K) and V as [B*H, S, D] (or [S, D]) values;
// frontends build those from [B, H, S, D] tensors through head merges,
// transposes, uniform scales (SDPA applies sqrt(scale) to Q and to K^T) and
// GQA's head repeats. This walks each operand back to the [B, H, S, D]
// tensor the fused op should read. Private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_OPERANDS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_OPERANDS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
class OpBuilder;
class Location;
} // namespace mlir

namespace sinter {
namespace attention {

/// An operand traced back to its source tensor.
struct Operand {
  /// [B, H, S, D] when `is4D`; else the [N, S, D] or [S, D] value the
  /// product reads (heads unknown).
  mlir::Value source;
  bool is4D = false;
  /// When set, `source` permuted by `perm` is the [B, H, S, D] operand (a K
  /// read through one transpose from, e.g., [B, S, H, D]).
  llvm::SmallVector<int64_t> perm;
  /// The product of the uniform scales looked through.
  double scale = 1.0;
  /// Heads of the product per head of `source` (GQA's repeat_kv), 1 if
  /// none.
  int64_t repeat = 1;
  /// Every op looked through (dead once the match is rewritten, unless
  /// used elsewhere).
  llvm::SetVector<mlir::Operation *> ops;
};

// Walks back from the value a product reads, through any order of
//
//   %c  = tensor.collapse_shape %x [[0, 1], [2], [3]]          (heads merged)
//   %c  = tensor.collapse_shape %r [[0, 1, 2], [3], [4]]       (merged GQA)
//   %c  = tensor.collapse_shape %r [[0], [1, 2], [3], [4]]     (GQA)
//   %r  = linalg.generic ins(%k : tensor<2x2x64x64xf32>) -> tensor<2x2x4x64x64xf32>
//         (a broadcasting copy: repeat_kv / enable_gqa)
//   %s  = linalg.generic { arith.mulf %in, %c : f32 }          (a scale)
//   %t  = linalg.transpose ... permutation = [0, 1, 3, 2]      (K^T)
//   %w  = linalg.generic { arith.extf %in : bf16 to f32 }      (upcast)
//
// With `transposed` the product reads the operand as [.., D, S] (K^T); the
// walk must find the transpose that undoes it. Returns nothing (and `why`)
// when it cannot.
/// With `allowScale` false (V), scales are not looked through.
std::optional<Operand> resolveOperand(mlir::Value v, bool transposed,
                                      bool allowScale, std::string &why);

/// The [batch, heads, S, D] value of `op` for the fused op (emits the
/// permutation, or the reshape of a 3-D/2-D value, at `b`).
mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc,
                        const Operand &op, int64_t batch, int64_t heads);

/// [B, H, S, D] shape of `op` (after its permutation), or [N, S, D].
llvm::SmallVector<int64_t> operandShape(const Operand &op);

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_OPERANDS_H
