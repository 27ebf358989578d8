//===- MatchUtils.h - Element views for Sinter's raising passes -*- C++ -*-===//
//
// Part of the Sinter project.
//
// A lazily expanded, algebraic view of how one element of a tensor is
// computed, seen through the op boundaries that frontends put in arbitrary
// places: elementwise `linalg.generic` and named linalg ops, reductions
// (`linalg.generic` with reduction iterators, `linalg.reduce`), unit-dim
// `tensor.expand_shape`/`collapse_shape`, `linalg.fill`, splat constants and
// `arith`/`math` ops on tensors.
//
// A view is rooted at a tensor of rank R: every element access is written as
// affine expressions over the root's dimensions d0..d(R-1). A reduction
// accessed from the root binds its reduced dimensions to the root dimensions
// its parallel dimensions leave unused, in order, so that "sum over the last
// axis of x" and "x" read the same element map. Raising passes (norms, AdamW)
// match on these nodes; private to lib/Dialect/Sinter/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_MATCHUTILS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_MATCHUTILS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir {
class OpBuilder;
class RewriterBase;
} // namespace mlir

namespace sinter {
namespace match {

/// One node of an element view.
struct Node {
  enum class Kind {
    /// Element `indices` of tensor `value`; `def` is the node that computes
    /// it (set by expansion, null for an opaque producer).
    View,
    /// A scalar `arith`/`math` op (or the same op applied to tensors),
    /// named by `op`, applied to `operands`.
    Op,
    /// A floating-point constant.
    Const,
    /// `combiner`-reduction over the root dimensions `reducedDims` of
    /// `operands[0]`, starting from `operands[1]`; `op` is the reduction.
    Reduce,
    /// A scalar SSA value from outside any body (a function argument, ...).
    Scalar,
  };
  Kind kind;
  mlir::Value value;
  mlir::AffineMap indices;
  bool expanded = false;
  Node *def = nullptr;
  mlir::Operation *defOp = nullptr;
  mlir::Operation *op = nullptr;
  mlir::Operation *combiner = nullptr;
  llvm::SmallVector<Node *, 2> operands;
  llvm::SmallVector<unsigned> reducedDims;
  double constant = 0;
};

/// Builds and owns the nodes of the element views of one root.
class ViewBuilder {
public:
  /// Views rooted at an iteration space of `rootRank` dimensions.
  ViewBuilder(mlir::MLIRContext *ctx, unsigned rootRank)
      : ctx(ctx), rootRank(rootRank) {}

  /// The identity view of a tensor of the root's rank.
  Node *root(mlir::Value tensor);
  /// Element `indices` (one expression per dimension of `tensor`).
  Node *view(mlir::Value tensor, mlir::AffineMap indices);

  /// Follows views to the node computing the element (a View with no
  /// visible definition is returned as is). Appends every op looked through
  /// to `covered` when given.
  Node *skip(Node *n, llvm::SetVector<mlir::Operation *> *covered = nullptr);

  unsigned getRootRank() const { return rootRank; }
  llvm::ArrayRef<int64_t> getRootShape() const { return rootShape; }
  mlir::MLIRContext *getContext() const { return ctx; }

private:
  void expand(Node *n);
  Node *scalar(mlir::Value v, llvm::ArrayRef<mlir::AffineExpr> loopIdx,
               mlir::Operation *linalgOp,
               llvm::DenseMap<mlir::Value, Node *> &memo);
  Node *make(Node::Kind kind);
  Node *makeConst(double c);

  mlir::MLIRContext *ctx;
  unsigned rootRank;
  /// The root tensor's shape, once `root` was called (a reduced loop does
  /// not bind to a unit root dim unless its own extent is 1).
  llvm::SmallVector<int64_t> rootShape;
  std::vector<std::unique_ptr<Node>> nodes;
  llvm::DenseMap<std::pair<mlir::Value, mlir::AffineMap>, Node *> views;
};

/// `n` reads its tensor element for element over the root's dims: the
/// identity map, with unit dims read at 0 (views canonicalise them so).
bool isIdentityView(ViewBuilder &b, const Node *n);

/// The constant value of `n` (after looking through views).
std::optional<double> getConstant(ViewBuilder &b, Node *n);
/// True when `n` (after looking through views) is the scalar op `name`.
bool isOp(ViewBuilder &b, Node *n, llvm::StringRef name);
/// Structural equality: the same tensor element, or the same computation of
/// equal operands (commutative ops in either order).
bool same(ViewBuilder &b, Node *x, Node *y);
/// Strips `arith.extf` conversions around `n`, recording what it looks
/// through in `covered`.
Node *stripExt(ViewBuilder &b, Node *n,
               llvm::SetVector<mlir::Operation *> *covered);

/// A product `scale * prod(factors) / prod(divisors)`: flattens `mulf` and
/// `divf` (and `negf`) trees, folding constants into `scale`.
struct Product {
  double scale = 1.0;
  llvm::SmallVector<Node *> factors;
  llvm::SmallVector<Node *> divisors;
};
/// With `stopAtShared`, a tensor with several users (such as the input of
/// a norm, which its statistics read too) is kept as a factor instead of
/// being looked through.
Product flattenProduct(ViewBuilder &b, Node *n,
                       llvm::SetVector<mlir::Operation *> *covered,
                       bool stopAtShared = false);

/// A sum of signed terms: flattens `addf`/`subf` trees.
struct Sum {
  llvm::SmallVector<std::pair<Node *, bool>> terms; // (term, negated)
};
Sum flattenSum(ViewBuilder &b, Node *n,
               llvm::SetVector<mlir::Operation *> *covered,
               bool stopAtShared = false);

/// The first op among `ops` that has a result used outside `ops` (other
/// than `allowed`), or null.
mlir::Operation *findEscapingOp(llvm::ArrayRef<mlir::Operation *> ops,
                                llvm::function_ref<bool(mlir::Value)> allowed);

/// Erases `op` if it has no uses, then every op that this leaves trivially
/// dead among the producers of its operands (recursively). Adds the erased
/// ops to `erased` when given.
/// Erases through `rewriter` when given (inside a pattern driver).
void eraseWithDeadProducers(
    mlir::Operation *op, llvm::DenseSet<mlir::Operation *> *erased = nullptr,
    llvm::function_ref<void(mlir::Operation *)> beforeErase = nullptr,
    mlir::RewriterBase *rewriter = nullptr);

/// Erases `ops` (a matched decomposition whose results were replaced) and
/// what only they used; returns the bytes of the tensors computed by the
/// erased linalg/arith/math ops, i.e. the intermediates no longer written.
int64_t eraseMatched(llvm::ArrayRef<mlir::Operation *> ops,
                     llvm::DenseSet<mlir::Operation *> &erased);

/// A `tensor.expand_shape`/`collapse_shape` whose reassociation lists every
/// dim of the wider side once, in order (matchers look through no other).
bool hasValidReassociation(mlir::Operation *op);

/// `op`'s ancestor in `block` (or null).
mlir::Operation *ancestorIn(mlir::Block *block, mlir::Operation *op);

/// The narrower float tensor that `v` is the exact widening of: `v` is an
/// elementwise linalg.generic with identity maps whose body only extends
/// its one input (arith.extf), as torch-mlir lowers a `_to_copy` to f32;
/// null otherwise.
mlir::Value widenedSource(mlir::Value v);

/// A new tensor of `input`'s shape and element type `elt`, each element
/// `fn` of `input`'s: an all-parallel linalg.generic with identity maps
/// (a cast, a select of a boolean mask, a copy).
mlir::Value
mapElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            mlir::Type elt,
            llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                           mlir::Value)>
                fn);

} // namespace match
} // namespace sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_MATCHUTILS_H
