//===- MaskSymbols.h - Symbolic values of the mask analysis -----*- C++ -*-===//
//
// Part of the Sinter project.
//
// The values MaskAnalysis.cpp evaluates a mask's computation into: affine
// integers over the loop variables, booleans as conjunctions of affine
// constraints, floats, selects, and unknowns (saying why), with their
// boolean and select algebra.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TRANSFORMS_ATTENTION_MASKSYMBOLS_H
#define SINTER_TRANSFORMS_ATTENTION_MASKSYMBOLS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <memory>
#include <string>

namespace sinter::attention::mask {

using llvm::SmallVector;
using llvm::Twine;

/// `c + sum_k a[k] * x_k`.
struct Affine {
  int64_t c = 0;
  SmallVector<int64_t, 6> a;

  bool isConstant() const {
    return llvm::all_of(a, [](int64_t x) { return x == 0; });
  }
  bool operator==(const Affine &o) const {
    if (c != o.c)
      return false;
    for (size_t k = 0, e = std::max(a.size(), o.a.size()); k < e; ++k)
      if (coeff(k) != o.coeff(k))
        return false;
    return true;
  }
  int64_t coeff(size_t k) const { return k < a.size() ? a[k] : 0; }
};

Affine constant(int64_t c);
Affine variable(unsigned k);
/// `x + sy * y`.
Affine combine(const Affine &x, const Affine &y, int64_t sy);
Affine scaled(const Affine &x, int64_t s);

struct Sym;
using SymRef = std::shared_ptr<const Sym>;

struct Sym {
  enum class Kind { Unknown, Int, Bool, Float, Select } kind;
  Affine aff;                         // Int
  bool falsy = false;                 // Bool: false
  SmallVector<Affine, 2> constraints; // Bool: AND of `e >= 0`
  bool opaque = false;                // Bool: AND an unknown condition
  double f = 0;                       // Float
  SymRef cond, tv, fv;                // Select
  std::string why;                    // Unknown
  bool data = false; // Unknown: depends on run-time data (not on structure)
};

SymRef unknown(const Twine &why);
/// A value computed from function arguments: unknown, but a comparison of it
/// is a data-dependent condition (a padding mask), not a failure.
SymRef dataSym(const Twine &why);
/// A condition known only at run time, AND'ed into a mask.
SymRef opaqueBool();
SymRef intSym(Affine a);
SymRef floatSym(double f);
SymRef boolSym(bool value);
bool isBool(const SymRef &s, bool value);

SymRef andSym(const SymRef &x, const SymRef &y);
SymRef notSym(const SymRef &x);
SymRef orSym(const SymRef &x, const SymRef &y);
SymRef selectSym(const SymRef &cond, const SymRef &t, const SymRef &f);
/// Applies `fn` to `x` and `y`, distributing over selects in either.
SymRef lift(const SymRef &x, const SymRef &y,
            llvm::function_ref<SymRef(const SymRef &, const SymRef &)> fn);
/// Whether a value is data-dependent (so that ops on it stay data).
bool isDataSym(const SymRef &x);

} // namespace sinter::attention::mask

#endif // SINTER_TRANSFORMS_ATTENTION_MASKSYMBOLS_H
