//===- MaskAnalysis.h - Which keys an attention mask lets through -*- C++ -*-===//
//
// Part of the Sinter project.
//
// Frontends do not say "causal": they compute the mask. HF transformers 5
// builds it from `arange`, gathers of position ids, a packed-sequence check
// (`tm_tensor.scan` over position differences) and compares; torch's SDPA
// decomposition builds `triu` from an index difference; hand-written models
// select over `linalg.index`. This analysis evaluates such a computation
// symbolically -- integers as affine expressions of the attention's loop
// indices, booleans as conjunctions of affine constraints over the loop
// domain, floats as constants or selects between them -- and says which
// keys each query sees, exactly, or that it cannot tell.
//
// It never reads a mask's data: a mask that depends on function arguments
// (a padding mask from `attention_mask`) keeps that part opaque.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_MASKANALYSIS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_MASKANALYSIS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace linalg {
class GenericOp;
} // namespace linalg
} // namespace mlir

namespace sinter {
namespace attention {

/// What a mask's computation says about the keys query `i` may see, over an
/// attention loop nest whose two trailing loops are the query and the key.
struct KeyVisibility {
  enum class Kind {
    /// Nothing is known (or the mask is not a mask-like select).
    Unknown,
    /// Every key is visible: the additive mask is zero everywhere.
    All,
    /// Key `j` is visible iff `j <= i + offset`, and nothing else is known
    /// to be hidden.
    Causal,
    /// Key `j` is visible iff `i + offset - window < j <= i + offset`.
    SlidingWindow,
    /// `j <= i + offset` holds for every visible key, and the mask also
    /// hides keys by data (a padding mask): the mask must stay, `causal`
    /// may be added.
    CausalAndData,
  };
  Kind kind = Kind::Unknown;
  int64_t offset = 0;
  int64_t window = 0;
  /// The hiding value is finite (e.g. the dtype's lowest value), not -inf.
  bool finiteFill = false;
  /// For `Unknown`: what stopped the analysis.
  std::string why;
};

/// Classifies the additive mask `mask`, read at `indices` (one affine
/// expression of the loop nest per mask dimension: sums and constant
/// multiples of loop indices) in a loop nest of sizes
/// `loops`.
KeyVisibility classifyAdditiveMask(mlir::Value mask, mlir::AffineMap indices,
                                   llvm::ArrayRef<int64_t> loops);

/// Classifies a boolean mask (true: the key is visible), e.g. the i1 mask of
/// `tm_tensor.attention` or SDPA's boolean `attn_mask`.
KeyVisibility classifyBooleanMask(mlir::Value mask, mlir::AffineMap indices,
                                  llvm::ArrayRef<int64_t> loops);

/// Classifies `select(cond, hidden, visible)`-style masking of the scores
/// inside `body` (a generic over the attention loop nest of sizes `loops`):
/// `hiddenWhen` is the condition under which the score is replaced by the
/// hiding value.
KeyVisibility classifyHidingCondition(mlir::Value hiddenWhen,
                                      mlir::linalg::GenericOp body,
                                      llvm::ArrayRef<int64_t> loops,
                                      bool negate);

/// Whether `value` hides a score: -inf, or a finite value so negative that
/// exp underflows to zero for any realistic score (<= -1e9).
bool isHidingValue(double value);

} // namespace attention
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_ATTENTION_MASKANALYSIS_H
