//===- MaskSymbols.cpp - Symbolic values of the mask analysis -------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "MaskSymbols.h"

#include <algorithm>

using namespace sinter::attention::mask;
namespace mask = sinter::attention::mask;

Affine mask::constant(int64_t c) {
  Affine r;
  r.c = c;
  return r;
}

Affine mask::variable(unsigned k) {
  Affine r;
  r.a.assign(k + 1, 0);
  r.a[k] = 1;
  return r;
}

Affine mask::combine(const Affine &x, const Affine &y, int64_t sy) {
  Affine r;
  r.c = x.c + sy * y.c;
  r.a.assign(std::max(x.a.size(), y.a.size()), 0);
  for (size_t k = 0; k < r.a.size(); ++k)
    r.a[k] = x.coeff(k) + sy * y.coeff(k);
  return r;
}

Affine mask::scaled(const Affine &x, int64_t s) {
  Affine r = x;
  r.c *= s;
  for (int64_t &v : r.a)
    v *= s;
  return r;
}

SymRef mask::unknown(const Twine &why) {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Unknown;
  s->why = why.str();
  return s;
}

/// A value computed from function arguments: unknown, but a comparison of it
/// is a data-dependent condition (a padding mask), not a failure.
SymRef mask::dataSym(const Twine &why) {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Unknown;
  s->why = why.str();
  s->data = true;
  return s;
}

/// A condition known only at run time, AND'ed into a mask.
SymRef mask::opaqueBool() {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Bool;
  s->opaque = true;
  return s;
}

SymRef mask::intSym(Affine a) {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Int;
  s->aff = std::move(a);
  return s;
}

SymRef mask::floatSym(double f) {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Float;
  s->f = f;
  return s;
}

SymRef mask::boolSym(bool value) {
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Bool;
  s->falsy = !value;
  return s;
}

bool mask::isBool(const SymRef &s, bool value) {
  return s->kind == Sym::Kind::Bool && !s->opaque &&
         (value ? (!s->falsy && s->constraints.empty()) : s->falsy);
}

//===----------------------------------------------------------------------===//
// Boolean and select algebra
//===----------------------------------------------------------------------===//

SymRef mask::andSym(const SymRef &x, const SymRef &y) {
  if (x->kind != Sym::Kind::Bool || y->kind != Sym::Kind::Bool)
    return unknown("an 'and' of non-boolean values");
  if (x->falsy || y->falsy)
    return boolSym(false);
  auto s = std::make_shared<Sym>(*x);
  s->opaque = x->opaque || y->opaque;
  for (const Affine &e : y->constraints) {
    bool redundant = false;
    for (Affine &f : s->constraints) {
      Affine sum = combine(e, f, 1), diff = combine(e, f, -1);
      // e >= 0 and f >= 0 with e + f a negative constant: infeasible.
      if (sum.isConstant() && sum.c < 0)
        return boolSym(false);
      // e - f a constant: the tighter of the two implies the other.
      if (diff.isConstant()) {
        if (diff.c < 0)
          f = e;
        redundant = true;
        break;
      }
    }
    if (!redundant)
      s->constraints.push_back(e);
  }
  return s;
}

SymRef mask::notSym(const SymRef &x) {
  if (x->kind == Sym::Kind::Unknown)
    return x; // Keep the reason.
  if (x->kind != Sym::Kind::Bool || x->opaque)
    return unknown("the negation of a data-dependent condition");
  if (x->falsy)
    return boolSym(true);
  if (x->constraints.empty())
    return boolSym(false);
  if (x->constraints.size() != 1)
    return unknown("the negation of a conjunction (a disjunction)");
  // !(e >= 0)  <=>  -e - 1 >= 0
  auto s = std::make_shared<Sym>(*x);
  s->constraints[0] = combine(scaled(x->constraints[0], -1), constant(-1), 1);
  return s;
}

SymRef mask::orSym(const SymRef &x, const SymRef &y) {
  if (isBool(x, true) || isBool(y, false))
    return x;
  if (isBool(y, true) || isBool(x, false))
    return y;
  return unknown("a disjunction of conditions");
}

/// `cond ? t : f`, simplified when `cond` is decided or the branches agree.
SymRef mask::selectSym(const SymRef &cond, const SymRef &t, const SymRef &f) {
  if (cond->kind != Sym::Kind::Bool)
    return cond->kind == Sym::Kind::Unknown
               ? unknown(cond->why)
               : unknown("a select on a non-boolean condition");
  if (isBool(cond, true))
    return t;
  if (isBool(cond, false))
    return f;
  if (t->kind == Sym::Kind::Bool && f->kind == Sym::Kind::Bool) {
    if (isBool(t, true) && isBool(f, false))
      return cond;
    if (isBool(t, false) && isBool(f, true))
      return notSym(cond);
    if (isBool(f, false))
      return andSym(cond, t);
    if (isBool(t, false))
      return andSym(notSym(cond), f);
  }
  if (t->kind == Sym::Kind::Int && f->kind == Sym::Kind::Int &&
      t->aff == f->aff)
    return t;
  if (t->kind == Sym::Kind::Float && f->kind == Sym::Kind::Float &&
      t->f == f->f)
    return t;
  auto s = std::make_shared<Sym>();
  s->kind = Sym::Kind::Select;
  s->cond = cond;
  s->tv = t;
  s->fv = f;
  return s;
}

/// Applies `fn` to `x` and `y`, distributing over selects in either.
SymRef
mask::lift(const SymRef &x, const SymRef &y,
           llvm::function_ref<SymRef(const SymRef &, const SymRef &)> fn) {
  if (x->kind == Sym::Kind::Select)
    return selectSym(x->cond, lift(x->tv, y, fn), lift(x->fv, y, fn));
  if (y->kind == Sym::Kind::Select)
    return selectSym(y->cond, lift(x, y->tv, fn), lift(x, y->fv, fn));
  if (x->kind == Sym::Kind::Unknown)
    return x;
  if (y->kind == Sym::Kind::Unknown)
    return y;
  return fn(x, y);
}

/// Whether a value is data-dependent (so that ops on it stay data).
bool mask::isDataSym(const SymRef &x) {
  return x->kind == Sym::Kind::Unknown && x->data;
}
