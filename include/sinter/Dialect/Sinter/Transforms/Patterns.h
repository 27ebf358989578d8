//===- Patterns.h - Sinter's rewrites for embedding compilers ---*- C++ -*-===//
//
// Part of the Sinter project.
//
// The rewrites behind Sinter's passes, for compilers that run them in their
// own pass or pattern driver (the style of upstream Linalg's Specialize.cpp):
//
//   RewritePatternSet patterns(ctx);
//   sinter::populateNormalizeFrontendPatterns(patterns);
//   sinter::populateRaiseAttentionPatterns(patterns, {});
//   (void)applyPatternsGreedily(func, std::move(patterns));
//
// Each raising pattern emits the same remarks as its pass (a fusion or a
// near miss, at the source location) and records the fusion for
// `sinter-fusion-report`.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PATTERNS_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_PATTERNS_H

namespace mlir {
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace sinter {

/// The custom call contract of `sinter-raise-custom-calls`: the attribute
/// of a private declaration that names the sinter op its calls stand for,
/// and the one that holds the op's attributes (python/sinter/torch/_import.py
/// writes them).
inline constexpr char kCustomCallAttrName[] = "sinter.call";
inline constexpr char kCustomCallAttributesAttrName[] = "sinter.attributes";

/// The rewrite of `sinter-raise-custom-calls`: a call of a declaration
/// marked `sinter.call` becomes the op it names (a call that breaks the
/// contract is left, with the reason as its match failure).
void populateRaiseCustomCallsPatterns(mlir::RewritePatternSet &patterns);

/// The exact rewrites of `sinter-normalize-frontend`: dead results of
/// multi-result generics, float casts of constants, `fpowi x, 2`, splat
/// inputs inlined into bodies, scalar (0-d) arithmetic on constants.
void populateNormalizeFrontendPatterns(mlir::RewritePatternSet &patterns);

/// The attention raising of `sinter-raise-attention`: decomposed attention
/// anchored at its `P V` product, and torch-mlir's `tm_tensor.attention`.
/// With `allowRngChange` a frontend dropout on the probabilities becomes
/// the op's Philox dropout (other random bits; docs/Rationale.md).
void populateRaiseAttentionPatterns(mlir::RewritePatternSet &patterns,
                                    bool allowRngChange = false);

/// The inexact step of `sinter-normalize-frontend`: f64 statistics computed
/// from lower-precision tensors and truncated back are recomputed in f32
/// (torch's LayerNorm decomposition computes its variance in f64). Returns
/// the number of islands rewritten.
unsigned demoteF64Statistics(mlir::Operation *root);

} // namespace sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PATTERNS_H
