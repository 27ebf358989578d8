//===- Products.h - The two matrix products of attention --------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Recognising `S = Q K^T` and `O = P V` as frontends spell a (batched)
// matrix product, and the reshapes and permutations around their operands.
// Private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PRODUCTS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PRODUCTS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
class OpBuilder;
class Location;
namespace linalg {
class GenericOp;
} // namespace linalg
} // namespace mlir

namespace sinter {
namespace attention {

/// `out[n, m, p] = sum_k a[n, m, k] * b[n, k, p]` (`b[n, p, k]` when
/// `transposedB`; no `n` for a plain matmul), accumulated into zeros.
struct Product {
  mlir::Operation *op = nullptr;
  mlir::Value lhs, rhs;
  bool transposedB = false;
};

// The products match
//
//   %z = linalg.fill ins(%cst0 : f32) outs(%e : tensor<16x64x64xf32>)
//   %s = linalg.batch_matmul ins(%q, %kt : tensor<16x64x32xbf16>,
//            tensor<16x32x64xbf16>) outs(%z : tensor<16x64x64xf32>)
//
// also as linalg.matmul, with a transposed-B indexing map, or as a
// `linalg.generic` whose body is `acc + a * b` over matmul loops. The
// inputs may be narrower than the f32 accumulator.
std::optional<Product> matchProduct(mlir::Operation *op);

/// Whether `op` is a product candidate at all (to anchor the walk).
bool isProductOp(mlir::Operation *op);

/// A zero-filled tensor (`linalg.fill` of 0 or a zero splat).
bool isZeroInit(mlir::Value v);

/// `v` as a permutation of one tensor: `linalg.transpose`, or a copy
/// `linalg.generic` with a permuting input map. Returns the source and sets
/// `perm` (result dim i is source dim perm[i]).
mlir::Value matchPermutation(mlir::Value v, llvm::SmallVector<int64_t> &perm);

/// A reshape that only merges or splits batch dims: the two trailing dims
/// (query, key) stay their own groups.
bool keepsTrailingDims(mlir::Operation *op);

/// An elementwise generic computing `x * c` or `x / c` (`c` a finite
/// non-zero constant): returns the factor and sets `source`.
std::optional<double> matchScalarScale(mlir::Operation *op,
                                       mlir::Value &source);

/// An elementwise generic whose body only casts its input (`extf` when
/// `widen`, else `truncf`); returns the input.
mlir::Value matchCast(mlir::Value v, bool widen);

/// Reshapes a [N, S, X] (or [S, X]) value into [batch, heads, S, X].
mlir::Value to4D(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                 int64_t batch, int64_t heads);

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_PRODUCTS_H
