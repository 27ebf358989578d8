//===- DropoutMatch.h - Recognising frontend dropout ------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The pieces of a frontend's dropout that sinter-fuse-elementwise (dropout in
// an elementwise chain) and sinter-raise-attention (dropout on the attention
// probabilities) both recognise. torch-mlir lowers `aten.dropout(x, p,
// train=True)` to
//
//   u    = aten.uniform(0, 1)   a linalg.generic with no tensor input that
//                               hashes linalg.index and a seed (Squares64
//                               of the row-major index, keyed by
//                               torch_c.get_next_seed) and scales the bits
//                               to [0, 1) with uitofp
//   keep = u < 1 - p            cmpf against a constant
//   mask = uitofp(keep)
//   y    = mask * x / (1 - p)
//
// Hand-written IR uses the same shape with `select(keep, x / (1 - p), 0)`.
// Raising this to `sinter.dropout` keeps the distribution (each element is
// kept independently with probability 1 - p and scaled by 1/(1 - p)) but
// draws other bits (Philox4x32-10 instead of the frontend's generator), so
// the passes only do it under their `allow-rng-change` option and otherwise
// say so in a near-miss remark. Private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_DROPOUTMATCH_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_DROPOUTMATCH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace sinter {

/// The near-miss reason when a dropout is recognised but the pass may not
/// change the random bits.
constexpr llvm::StringLiteral kRngChangeReason =
    "raising it would change the random bits (the frontend's generator "
    "draws the mask, sinter.dropout uses Philox4x32-10: same distribution, "
    "other bits); pass allow-rng-change=true to raise it";

/// A tensor of independent uniform random numbers on [0, 1) produced by a
/// frontend's generator: an all-parallel `linalg.generic` with no tensor
/// input (scalars and 0-d tensors only) whose body hashes `linalg.index`
/// of every non-unit dimension and a key with integer `arith` ops, converts
/// the bits with `uitofp`/`sitofp` and maps them onto [0, 1).
struct RandomGenerator {
  enum class Kind {
    /// Not a generator of that shape.
    None,
    /// A usable generator; `seed` is set.
    Usable,
    /// A generator that cannot be raised; `reason` says why.
    Unusable,
  };
  Kind kind = Kind::None;
  mlir::Operation *op = nullptr;
  /// The generator's key: the one run-time integer it reads from outside
  /// its body (a captured value, a scalar operand or a 0-d tensor operand),
  /// or the one integer constant it reads from outside when it reads no
  /// run-time value.
  mlir::Value seed;
  std::string reason;
};

/// Classifies the producer of `v`.
RandomGenerator matchRandomGenerator(mlir::Value v);

/// The value of a float constant, also through `extf`/`truncf` and
/// `addf`/`subf`/`mulf`/`divf` of constants (rounded to each op's type as
/// the op would), e.g. the `truncf 0.9 : f64 to f32` torch-mlir leaves in
/// a division by `1 - p`.
std::optional<double> evalFloatConstant(mlir::Value v);

/// The keep probability of `cmpf pred` between a U[0, 1) value and a
/// constant `threshold` (`randomOnLeft`: the random value is the left
/// operand), with the element kept where the comparison is true; unset
/// for predicates that are not an order comparison. Sets `keepBelow` when
/// the element is kept for random values below the threshold.
std::optional<double> keepProbability(mlir::arith::CmpFPredicate pred,
                                      bool randomOnLeft, double threshold,
                                      bool &keepBelow);

/// The dropout probability `p = 1 - keep` as the shortest decimal that
/// reproduces the threshold constant in its type `thresholdType` (`1 - p`
/// when `keepBelow`, `p` otherwise), e.g. 0.1 for a threshold of
/// `0.9 : f32`; `1 - keep` when no decimal does.
double snapDropoutProbability(double keep, double threshold, bool keepBelow,
                              mlir::Type thresholdType);

/// Whether kept elements scaled by `scale` are scaled by 1 / `keep`, within
/// the rounding of the constants of element type `type`.
bool isDropoutScale(double scale, double keep, mlir::Type type);

/// `x` with up to 6 significant digits, for remarks.
std::string formatNumber(double x);

/// Materialises `seed` (an integer or index scalar, or a 0-d integer
/// tensor) as an i64 at `b`'s insertion point.
mlir::Value buildSeedI64(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value seed);

} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_DROPOUTMATCH_H
