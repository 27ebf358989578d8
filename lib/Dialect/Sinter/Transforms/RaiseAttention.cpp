//===- RaiseAttention.cpp - Raise attention chains to sinter.attention ----===//
//
// Part of the Sinter project.
//
// Recognises `softmax(scale * Q K^T + mask) V` as frontends emit it and
// replaces it with one `sinter.attention`. The match is anchored at the
// second product (P V) and walks back:
//
//   P V      linalg.batch_matmul / linalg.matmul with a zero-filled init
//   P        optional truncf generic, optional collapse_shape of the heads,
//            an optional dropout drawn from the frontend's generator
//            (DropoutMatch.h; raised into dropout_p/seed only with
//            allow-rng-change, otherwise a near miss), then a softmax over
//            the trailing axis (SoftmaxMatch.h) or an already raised
//            sinter.softmax without mask
//   T -> S   elementwise generics between the softmax input and the scores:
//            uniform scalar scales, an additive mask tensor, a causal
//            `select` over a `linalg.index` comparison, extf
//   S = Q K^T  batch_matmul/matmul, K^T as linalg.transpose, a permuting
//            generic or a transposed-B indexing map; a uniform scale of Q
//
// Every intermediate between S and P V must have no other user; the masks
// and scales must compose exactly into the op's `scale * QK^T + mask`.
//
//===----------------------------------------------------------------------===//

#include "DropoutMatch.h"
#include "MatchUtils.h"
#include "SoftmaxMatch.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <functional>

namespace sinter {
#define GEN_PASS_DEF_RAISEATTENTION
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;

namespace {

/// A batched (or plain) matrix product `out[n, m, p] = sum_k a[n,m,k] *
/// b[n,k,p]` (`b[n,p,k]` when `transposedB`), accumulated into zeros.
struct Product {
  Operation *op = nullptr;
  Value lhs, rhs;
  bool transposedB = false;
};

/// A value is a zero-filled tensor (`linalg.fill` of 0 or a zero splat).
static bool isZeroInit(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
    FloatAttr c;
    return matchPattern(fill.getInputs()[0], m_Constant(&c)) &&
           c.getValue().isZero();
  }
  DenseFPElementsAttr splat;
  return matchPattern(v, m_Constant(&splat)) && splat.isSplat() &&
         splat.getSplatValue<APFloat>().isZero();
}

/// A `linalg.generic` whose body is `acc + a * b` over its two inputs, with
/// the loops of a (batched) matmul: parallel [batch,] m, n, reduction k.
static bool isContractionGeneric(linalg::GenericOp g) {
  if (g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g.hasIndexSemantics() || g.getNumReductionLoops() != 1)
    return false;
  SmallVector<utils::IteratorType> iters = g.getIteratorTypesArray();
  if (iters.size() != 3 && iters.size() != 4)
    return false;
  for (unsigned i = 0; i + 1 < iters.size(); ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return false;
  Block *body = g.getBlock();
  if (body->getOperations().size() != 3)
    return false;
  auto add = dyn_cast<arith::AddFOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value prod = add.getLhs() == acc
                   ? add.getRhs()
                   : (add.getRhs() == acc ? add.getLhs() : Value());
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

static std::optional<Product> matchProduct(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!linalgOp ||
      !(isa<linalg::BatchMatmulOp, linalg::MatmulOp>(op) ||
        (generic && isContractionGeneric(generic))) ||
      !linalgOp.hasPureTensorSemantics() || linalgOp.getNumDpsInputs() != 2 ||
      !isZeroInit(linalgOp.getDpsInits()[0]))
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  bool batched =
      isa<linalg::BatchMatmulOp>(op) || (generic && generic.getNumLoops() == 4);
  unsigned n = batched ? 4 : 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(n, 0, r, ctx);
  };
  // Loops: [batch,] m, p, k.
  SmallVector<AffineExpr> pre;
  if (batched)
    pre.push_back(d(0));
  unsigned m = batched ? 1 : 0;
  auto with = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> r(pre);
    r.push_back(x);
    r.push_back(y);
    return map(r);
  };
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  if (maps[0] != with(d(m), d(m + 2)) || maps[2] != with(d(m), d(m + 1)))
    return std::nullopt;
  Product p;
  p.op = op;
  p.lhs = linalgOp.getDpsInputs()[0];
  p.rhs = linalgOp.getDpsInputs()[1];
  if (maps[1] == with(d(m + 2), d(m + 1)))
    p.transposedB = false;
  else if (maps[1] == with(d(m + 1), d(m + 2)))
    p.transposedB = true;
  else
    return std::nullopt;
  return p;
}

/// `v` computed as a permutation of one tensor by a `linalg.transpose` or a
/// copy `linalg.generic`: returns the source and sets `perm` (result dim i
/// is source dim perm[i]).
static Value matchPermutation(Value v, SmallVector<int64_t> &perm) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>()) {
    perm.assign(t.getPermutation().begin(), t.getPermutation().end());
    return t.getInput();
  }
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 || g.hasIndexSemantics())
    return {};
  Block *body = g.getBlock();
  if (body->getOperations().size() != 1 ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isPermutation())
    return {};
  // out[d] = in[map(d)]: source dim j is read by loop map[j], so result
  // dim i comes from the source dim j with map[j] = i.
  AffineMap inv = inversePermutation(maps[0]);
  perm.clear();
  for (AffineExpr e : inv.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return g.getDpsInputs()[0];
}

/// A reshape that only merges or splits batch dims: the two trailing dims
/// (query, key) stay their own groups on both sides.
static bool keepsTrailingDims(Operation *op) {
  SmallVector<ReassociationIndices> re;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    re = e.getReassociationIndices();
  else if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    re = c.getReassociationIndices();
  else
    return false;
  return re.size() >= 2 && re[re.size() - 1].size() == 1 &&
         re[re.size() - 2].size() == 1;
}

/// Parses an index expression `a*i + b*j + c` over the generic's two
/// trailing loop indices (i = rank-2, j = rank-1).
struct IndexExpr {
  int64_t a = 0, b = 0, c = 0;
  bool nonNegative = true; // Every term non-negative (for unsigned compares).
};

static std::optional<IndexExpr> parseIndex(Value v, unsigned rank) {
  IndexExpr e;
  if (auto idx = v.getDefiningOp<linalg::IndexOp>()) {
    if (idx.getDim() == rank - 2)
      e.a = 1;
    else if (idx.getDim() == rank - 1)
      e.b = 1;
    else
      return std::nullopt;
    return e;
  }
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    e.c = c.getSExtValue();
    e.nonNegative = e.c >= 0;
    return e;
  }
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  auto l = parseIndex(def->getOperand(0), rank);
  auto r = parseIndex(def->getOperand(1), rank);
  if (!l || !r)
    return std::nullopt;
  int64_t s = isa<arith::SubIOp>(def) ? -1 : 1;
  e.a = l->a + s * r->a;
  e.b = l->b + s * r->b;
  e.c = l->c + s * r->c;
  e.nonNegative = l->nonNegative && r->nonNegative && s == 1;
  return e;
}

/// For `cmpi(pred, lhs, rhs)`: the condition as `a*i + b*j + c > 0`.
static std::optional<IndexExpr> parseCondition(Value cond, unsigned rank) {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  auto l = parseIndex(cmp.getLhs(), rank);
  auto r = parseIndex(cmp.getRhs(), rank);
  if (!l || !r)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  bool isUnsigned =
      pred == P::ugt || pred == P::uge || pred == P::ult || pred == P::ule;
  // Unsigned compares equal signed ones only on non-negative operands.
  if (isUnsigned && (!l->nonNegative || !r->nonNegative))
    return std::nullopt;
  IndexExpr diff{l->a - r->a, l->b - r->b, l->c - r->c, true};
  auto neg = [](IndexExpr e) { return IndexExpr{-e.a, -e.b, -e.c, true}; };
  switch (pred) {
  case P::sgt:
  case P::ugt:
    return diff; // diff > 0
  case P::sge:
  case P::uge:
    diff.c += 1; // diff >= 0  <=>  diff + 1 > 0
    return diff;
  case P::slt:
  case P::ult:
    return neg(diff);
  case P::sle:
  case P::ule: {
    IndexExpr n = neg(diff);
    n.c += 1;
    return n;
  }
  default:
    return std::nullopt;
  }
}

/// A fill value that masks a score out: -inf, or a finite value so negative
/// that exp underflows to zero for any realistic score (<= -1e9).
static bool isMaskingValue(double v) { return v <= -1.0e9 || std::isinf(v); }

/// A uniform constant: a scalar constant, or (in a body of `g`) the block
/// argument of a splat constant tensor input such as TOSA's `1x1x1` scales.
static std::optional<double> scalarConstant(Value v,
                                            linalg::GenericOp g = nullptr) {
  FloatAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getValueAsDouble();
  auto arg = dyn_cast<BlockArgument>(v);
  if (!g || !arg || arg.getOwner() != g.getBlock() ||
      arg.getArgNumber() >= g.getNumDpsInputs())
    return std::nullopt;
  DenseFPElementsAttr dense;
  if (matchPattern(g.getDpsInputs()[arg.getArgNumber()], m_Constant(&dense)) &&
      dense.isSplat())
    return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// Everything the walk from the softmax input back to the scores found.
struct ScoreChain {
  Value scores;        // The result of Q K^T (rank 2, 3 or 4 view).
  double scale = 1.0;  // Product of all uniform scales.
  bool causal = false; // A causal select or constant mask was found.
  bool causalIsFinite = false;
  Value mask;                         // An additive mask tensor.
  AffineMap maskMap;                  // Its indexing map in the chain's rank.
  unsigned maskRank = 0;              // The chain rank where it was added.
  SmallVector<int64_t> maskLoopShape; // The loop sizes there.
  SetVector<Operation *> ops;
};

/// A dropout on the probabilities, decided by the frontend's generator.
struct ProbsDropout {
  bool found = false;
  double p = 0.0;
  Value seed;
  /// The ops computing the dropped probabilities from the probabilities
  /// and the random tensor.
  SetVector<Operation *> ops;
  /// The random tensor's generator and whether only the dropout reads it.
  Operation *generator = nullptr;
  bool generatorErased = false;
};

class AttentionMatcher {
public:
  AttentionMatcher(Operation *pv, bool allowRngChange)
      : pv(pv), allowRngChange(allowRngChange) {}
  /// On success fills the fields below; otherwise `reason` (and
  /// `significant` when a near-miss remark is warranted).
  bool match();
  /// Replaces the chain; adds the ops it erases to `erased`.
  void rewrite(llvm::DenseSet<Operation *> &erased);

  std::string reason;
  bool significant = false;

private:
  bool fail(const Twine &r) {
    reason = r.str();
    return false;
  }
  /// Walks from `t` (the softmax input) back to the scores.
  bool walkScores(Value t, Value scoresTarget, double outerScale);
  bool peelBody(linalg::GenericOp g, Value v, BlockArgument chainArg,
                double &outerScale, unsigned rank);
  /// Whether `v` comes from the product `target` through elementwise ops
  /// and reshapes.
  static bool reaches(Value v, Value target, int depth = 12);
  bool checkCausalConstant(Value maskTensor, AffineMap map, unsigned rank,
                           bool &isCausal);
  enum class DropoutResult { None, Matched, Failed };
  /// Whether `probs` is a frontend dropout of another tensor (set in
  /// `input`); `Failed` (with `reason`) when it is one that cannot or may
  /// not be raised.
  DropoutResult matchDropout(Value probs, Value &input);

  Operation *pv;
  bool allowRngChange;
  ProbsDropout dropout;
  Product pvProd, qkProd;
  ScoreChain chain;
  SoftmaxMatch softmax;
  Operation *softmaxOp = nullptr; // An already raised sinter.softmax.
  SetVector<Operation *> covered; // The P-side ops (truncf, reshapes).
  Value q3, k3, v3;               // Rank-3 [N, S, D] (or rank 2) operands.
  Operation *qScaleOp = nullptr;
  // K as `kPerm` applied to `kSrc` (4-D [B, H, Skv, D] when `kIs4D`, else
  // the rank of Q) when K^T came from a permutation.
  Value kSrc;
  SmallVector<int64_t> kPerm;
  bool kIs4D = false;
  Value q4Src; // Q as [B, H, Sq, D] when its scale was absorbed.
  int64_t batch = 1, heads = 1, sq = 0, skv = 0, d = 0, dv = 0;
};

} // namespace

bool AttentionMatcher::reaches(Value v, Value target, int depth) {
  if (v == target)
    return true;
  if (depth == 0)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return reaches(def->getOperand(0), target, depth - 1);
  if (auto g = dyn_cast<linalg::GenericOp>(def)) {
    if (g.getNumReductionLoops() != 0)
      return false;
    for (Value in : g.getDpsInputs())
      if (reaches(in, target, depth - 1))
        return true;
  }
  return false;
}

bool AttentionMatcher::checkCausalConstant(Value maskTensor, AffineMap map,
                                           unsigned rank, bool &isCausal) {
  isCausal = false;
  DenseFPElementsAttr dense;
  if (!matchPattern(maskTensor, m_Constant(&dense)))
    return true;
  auto type = cast<RankedTensorType>(maskTensor.getType());
  // The constant must be read along the two trailing loops in order, and be
  // constant over the others (unit dims or broadcast).
  int64_t mr = type.getRank();
  if (mr < 2 || map.getNumResults() != mr)
    return true;
  auto di = dyn_cast<AffineDimExpr>(map.getResult(mr - 2));
  auto dj = dyn_cast<AffineDimExpr>(map.getResult(mr - 1));
  if (!di || !dj || di.getPosition() != rank - 2 ||
      dj.getPosition() != rank - 1)
    return true;
  for (int64_t k = 0; k < mr - 2; ++k)
    if (type.getDimSize(k) != 1)
      return true;
  int64_t rows = type.getDimSize(mr - 2), cols = type.getDimSize(mr - 1);
  if (rows != sq || cols != skv)
    return true;
  int64_t off = skv - sq;
  SmallVector<APFloat> vals(dense.getValues<APFloat>());
  bool finite = false;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double v = vals[i * cols + j].convertToDouble();
      if (j > i + off) {
        if (!isMaskingValue(v))
          return true;
        finite |= !std::isinf(v);
      } else if (v != 0.0) {
        return true;
      }
    }
  // A finite fill equals -inf only when no row is fully masked.
  if (finite && sq > skv)
    return true;
  isCausal = true;
  return true;
}

bool AttentionMatcher::peelBody(linalg::GenericOp g, Value v,
                                BlockArgument chainArg, double &outerScale,
                                unsigned rank) {
  while (v != chainArg) {
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != g.getBlock())
      return fail("the scores are combined with an unsupported value");
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      v = ext.getIn();
      continue;
    }
    if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      Value l = op->getOperand(0), r = op->getOperand(1);
      std::optional<double> cl = scalarConstant(l, g),
                            cr = scalarConstant(r, g);
      std::optional<double> c;
      if (cr) {
        c = isa<arith::DivFOp>(op) ? 1.0 / *cr : *cr;
        v = l;
      } else if (cl && isa<arith::MulFOp>(op)) {
        c = cl;
        v = r;
      }
      if (!c)
        return fail("the scores are scaled by a value that is not a uniform "
                    "constant");
      if (!(*c > 0.0) || !std::isfinite(*c))
        return fail("the scores are scaled by a non-positive constant");
      chain.scale *= *c;
      outerScale *= *c;
      continue;
    }
    if (auto add = dyn_cast<arith::AddFOp>(op)) {
      // One side leads to the chain argument, the other reads a mask tensor.
      Value l = add.getLhs(), r = add.getRhs();
      auto isMaskArg = [&](Value x) {
        auto arg = dyn_cast<BlockArgument>(x);
        return arg && arg.getOwner() == g.getBlock() && arg != chainArg &&
               arg.getArgNumber() < g.getNumDpsInputs();
      };
      Value maskArg = isMaskArg(r) ? r : (isMaskArg(l) ? l : Value());
      if (!maskArg)
        return fail("the scores are added to a value that is not a mask "
                    "tensor");
      if (chain.mask || chain.causal)
        return fail("more than one mask is applied to the scores");
      OpOperand *operand =
          g.getDpsInputOperand(cast<BlockArgument>(maskArg).getArgNumber());
      Value maskTensor = operand->get();
      AffineMap map = g.getMatchingIndexingMap(operand);
      bool isCausal = false;
      checkCausalConstant(maskTensor, map, rank, isCausal);
      if (isCausal) {
        chain.causal = true;
      } else {
        if (outerScale != 1.0)
          return fail("the mask is added before a scale of the scores");
        if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
          return fail("the mask is read through an unsupported indexing map");
        chain.mask = maskTensor;
        chain.maskMap = map;
        chain.maskRank = rank;
        chain.maskLoopShape = llvm::to_vector(
            cast<RankedTensorType>(g.getResult(0).getType()).getShape());
      }
      v = maskArg == r ? l : r;
      continue;
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      std::optional<double> tv = scalarConstant(sel.getTrueValue());
      std::optional<double> fv = scalarConstant(sel.getFalseValue());
      std::optional<IndexExpr> cond = parseCondition(sel.getCondition(), rank);
      if (!cond)
        return fail("the scores are selected by a condition that is not a "
                    "comparison of the query and key indices");
      // masked iff cond (true value masks) or iff !cond (false value masks).
      IndexExpr masked = *cond;
      if (tv && isMaskingValue(*tv)) {
        v = sel.getFalseValue();
      } else if (fv && isMaskingValue(*fv)) {
        masked = IndexExpr{-cond->a, -cond->b, -cond->c + 1, true};
        v = sel.getTrueValue();
      } else {
        return fail("the select does not mask scores with -inf or a large "
                    "negative value");
      }
      if (chain.mask || chain.causal)
        return fail("more than one mask is applied to the scores");
      // Causal: masked iff j - i - (Skv - Sq) > 0.
      if (masked.a != -1 || masked.b != 1 || masked.c != -(skv - sq))
        return fail("the index mask is not the bottom-right aligned causal "
                    "mask (key j hidden iff j > i + " +
                    Twine(skv - sq) + ")");
      bool finite = !(tv && std::isinf(*tv)) && !(fv && std::isinf(*fv));
      if (finite && sq > skv)
        return fail("a finite causal fill differs from -inf on fully masked "
                    "rows");
      chain.causal = true;
      continue;
    }
    return fail("the scores go through '" + op->getName().getStringRef() +
                "', which attention cannot express");
  }
  return true;
}

bool AttentionMatcher::walkScores(Value t, Value scoresTarget,
                                  double outerScale) {
  while (t != scoresTarget) {
    Operation *def = t.getDefiningOp();
    if (!def)
      return fail("the softmax input does not come from Q K^T");
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
      if (!keepsTrailingDims(def))
        return fail("the scores are reshaped across the query or key axis");
      chain.ops.insert(def);
      t = def->getOperand(0);
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(def);
    if (!g || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return fail("the scores go through '" + def->getName().getStringRef() +
                  "', which attention cannot express");
    // The chain input: the identity-read input that comes from Q K^T.
    BlockArgument chainArg;
    for (OpOperand *in : g.getDpsInputOperands()) {
      if (!g.getMatchingIndexingMap(in).isIdentity() ||
          !reaches(in->get(), scoresTarget))
        continue;
      if (chainArg)
        return fail("the scores are combined with themselves");
      chainArg = g.getMatchingBlockArgument(in);
    }
    if (!chainArg)
      return fail("the softmax input does not come from Q K^T");
    unsigned rank = g.getNumLoops();
    Value yielded = g.getBlock()->getTerminator()->getOperand(0);
    if (!peelBody(g, yielded, chainArg, outerScale, rank))
      return false;
    chain.ops.insert(g);
    t = g.getDpsInputOperand(chainArg.getArgNumber())->get();
  }
  return true;
}

AttentionMatcher::DropoutResult AttentionMatcher::matchDropout(Value probs,
                                                               Value &input) {
  using match::Node;
  auto type = dyn_cast<RankedTensorType>(probs.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()) || !probs.getDefiningOp())
    return DropoutResult::None;
  match::ViewBuilder b(probs.getContext(), type.getRank());
  // Whether a node depends on a random tensor (bounded: the walk also sees
  // the softmax and the scores).
  DenseMap<Node *, bool> memo;
  int budget = 512;
  std::function<bool(Node *)> dependsOnRandom = [&](Node *n) -> bool {
    Node *k = b.skip(n);
    if (auto it = memo.find(k); it != memo.end())
      return it->second;
    memo[k] = false;
    if (--budget < 0)
      return false;
    bool r = false;
    if (k->kind == Node::Kind::View)
      r = matchRandomGenerator(k->value).kind != RandomGenerator::Kind::None;
    else
      for (Node *o : k->operands)
        r = r || dependsOnRandom(o);
    memo[k] = r;
    return r;
  };
  Node *root = b.root(probs);
  if (!dependsOnRandom(root))
    return DropoutResult::None;
  auto fail = [&](const Twine &r) {
    reason = ("dropout on the probabilities is not raised: " + r).str();
    return DropoutResult::Failed;
  };
  auto isCast = [](Node *k) {
    return k->kind == Node::Kind::Op &&
           isa<arith::ExtFOp, arith::TruncFOp>(k->op);
  };
  SetVector<Operation *> ops;
  double scale = 1.0;
  Node *cond = nullptr, *x = nullptr;
  bool keptWhenTrue = true;
  Node *top = b.skip(root, &ops);
  if (top->kind == Node::Kind::Op && isa<arith::SelectOp>(top->op)) {
    // select(keep, x, 0) (or select(drop, 0, x)).
    Node *tv = top->operands[1], *fv = top->operands[2];
    std::optional<double> ct = match::getConstant(b, tv);
    std::optional<double> cf = match::getConstant(b, fv);
    cond = top->operands[0];
    if (cf && *cf == 0.0 && !dependsOnRandom(tv)) {
      x = tv;
    } else if (ct && *ct == 0.0 && !dependsOnRandom(fv)) {
      x = fv;
      keptWhenTrue = false;
    } else {
      return fail("the select does not zero the dropped elements");
    }
  } else {
    // mask * x * constants: descend into the products that involve the
    // random tensor; the one other factor is the dropped tensor.
    ops.clear();
    Node *maskNode = nullptr;
    std::string why;
    std::function<bool(Node *, bool)> collect = [&](Node *n,
                                                    bool divide) -> bool {
      SetVector<Operation *> local;
      Node *k = b.skip(n, &local);
      if (k->kind == Node::Kind::Const) {
        scale = divide ? scale / k->constant : scale * k->constant;
        return true;
      }
      if (!dependsOnRandom(k)) {
        if (divide || x) {
          why = divide ? "the probabilities are divided by a tensor"
                       : "the mask multiplies more than the probabilities";
          return false;
        }
        x = n;
        return true;
      }
      ops.insert(local.begin(), local.end());
      if (k->kind == Node::Kind::Op && isa<arith::MulFOp>(k->op))
        return collect(k->operands[0], divide) &&
               collect(k->operands[1], divide);
      if (k->kind == Node::Kind::Op && isa<arith::DivFOp>(k->op))
        return collect(k->operands[0], divide) &&
               collect(k->operands[1], !divide);
      if (divide || maskNode) {
        why = "the probabilities are combined with the random tensor in a "
              "way that is not a dropout";
        return false;
      }
      maskNode = k;
      return true;
    };
    if (!collect(root, false))
      return fail(why);
    if (!maskNode || !x)
      return fail("the probabilities are combined with the random tensor in "
                  "a way that is not a dropout");
    // The mask: uitofp(keep) or select(keep, c, 0), through float casts.
    Node *m = maskNode;
    while (isCast(m))
      m = b.skip(m->operands[0], &ops);
    if (m->kind == Node::Kind::Op && isa<arith::UIToFPOp>(m->op)) {
      cond = m->operands[0];
    } else if (m->kind == Node::Kind::Op && isa<arith::SelectOp>(m->op)) {
      std::optional<double> ct = match::getConstant(b, m->operands[1]);
      std::optional<double> cf = match::getConstant(b, m->operands[2]);
      cond = m->operands[0];
      if (ct && cf && *cf == 0.0) {
        scale *= *ct;
      } else if (ct && cf && *ct == 0.0) {
        scale *= *cf;
        keptWhenTrue = false;
      } else {
        return fail("the mask is not a select of a constant and zero");
      }
    } else {
      return fail("the probabilities are multiplied by a random value that "
                  "is not a keep mask");
    }
  }
  // The condition: a comparison of the random tensor with a constant,
  // possibly negated.
  Node *c = b.skip(cond, &ops);
  while (c->kind == Node::Kind::Op && isa<arith::XOrIOp>(c->op)) {
    Node *l = b.skip(c->operands[0]), *r = b.skip(c->operands[1]);
    auto isTrue = [](Node *k) {
      return k->kind == Node::Kind::Op &&
             matchPattern(k->op->getResult(0), m_One());
    };
    if (isTrue(r))
      c = b.skip(c->operands[0], &ops);
    else if (isTrue(l))
      c = b.skip(c->operands[1], &ops);
    else
      break;
    keptWhenTrue = !keptWhenTrue;
  }
  auto cmp = c->kind == Node::Kind::Op ? dyn_cast<arith::CmpFOp>(c->op)
                                       : arith::CmpFOp();
  if (!cmp)
    return fail("the keep mask is not a comparison of the random tensor");
  auto randomView = [&](Node *n) -> Node * {
    SetVector<Operation *> local;
    Node *k = b.skip(n, &local);
    while (isCast(k))
      k = b.skip(k->operands[0], &local);
    if (k->kind != Node::Kind::View ||
        matchRandomGenerator(k->value).kind == RandomGenerator::Kind::None)
      return nullptr;
    ops.insert(local.begin(), local.end());
    return k;
  };
  Node *rl = randomView(c->operands[0]);
  Node *rr = rl ? nullptr : randomView(c->operands[1]);
  if (!rl && !rr)
    return fail("the keep mask is not a comparison of the random tensor");
  bool randomOnLeft = rl != nullptr;
  Node *rv = rl ? rl : rr;
  Node *thresholdNode = randomOnLeft ? c->operands[1] : c->operands[0];
  std::optional<double> threshold = match::getConstant(b, thresholdNode);
  if (!threshold)
    return fail("the random tensor is compared with a threshold that is not "
                "a uniform constant");
  if (!rv->indices.isIdentity() ||
      cast<RankedTensorType>(rv->value.getType()).getShape() != type.getShape())
    return fail("the random tensor is read through a broadcast or "
                "transpose map, not one draw per element");
  RandomGenerator gen = matchRandomGenerator(rv->value);
  if (gen.kind == RandomGenerator::Kind::Unusable)
    return fail("the random tensor cannot be replaced: " + gen.reason);
  bool keepBelow = false;
  std::optional<double> keep =
      keepProbability(cmp.getPredicate(), randomOnLeft, *threshold, keepBelow);
  if (!keep)
    return fail("the random tensor is not compared by an order predicate");
  if (!keptWhenTrue) {
    *keep = 1.0 - *keep;
    keepBelow = !keepBelow;
  }
  if (!(*keep > 0.0 && *keep <= 1.0))
    return fail("the threshold keeps a fraction " + formatNumber(*keep) +
                " of the elements, outside (0, 1]");
  // Constant factors of the dropped tensor (`select(keep, P / (1 - p), 0)`).
  Type elem = type.getElementType();
  while (!isDropoutScale(scale, *keep, elem)) {
    SetVector<Operation *> local;
    Node *k = b.skip(x, &local);
    if (k->kind != Node::Kind::Op || !isa<arith::MulFOp, arith::DivFOp>(k->op))
      break;
    std::optional<double> c0 = match::getConstant(b, k->operands[0]);
    std::optional<double> c1 = match::getConstant(b, k->operands[1]);
    if (c1) {
      scale = isa<arith::DivFOp>(k->op) ? scale / *c1 : scale * *c1;
      x = k->operands[0];
    } else if (c0 && isa<arith::MulFOp>(k->op)) {
      scale *= *c0;
      x = k->operands[1];
    } else {
      break;
    }
    ops.insert(local.begin(), local.end());
  }
  if (!isDropoutScale(scale, *keep, elem))
    return fail("the kept probabilities are scaled by " + formatNumber(scale) +
                ", not 1/(1 - p) = " + formatNumber(1.0 / *keep));
  if (x->kind != Node::Kind::View || !x->indices.isIdentity() ||
      x->value.getType() != probs.getType())
    return fail("the dropped value is not a tensor of the probabilities' "
                "shape and type read element for element");
  if (Operation *esc = match::findEscapingOp(
          ops.getArrayRef(), [&](Value v) { return v == probs; }))
    return fail("the intermediate computed by '" +
                esc->getName().getStringRef() + "' has another user");
  if (!allowRngChange)
    return fail(kRngChangeReason);
  dropout.found = true;
  dropout.p = snapDropoutProbability(*keep, *threshold, keepBelow,
                                     cmp.getLhs().getType());
  dropout.seed = gen.seed;
  dropout.ops = std::move(ops);
  dropout.generator = gen.op;
  dropout.generatorErased = llvm::all_of(gen.op->getUsers(), [&](Operation *u) {
    return dropout.ops.contains(u);
  });
  input = x->value;
  return DropoutResult::Matched;
}

bool AttentionMatcher::match() {
  std::optional<Product> p = matchProduct(pv);
  if (!p || p->transposedB)
    return false;
  pvProd = *p;
  auto outType = cast<RankedTensorType>(pv->getResult(0).getType());
  Type elemType = outType.getElementType();

  // P: optional truncf, optional collapse of the heads, an optional
  // dropout (in any order), then a softmax.
  Value probs = pvProd.lhs;
  for (int step = 0; step < 5; ++step) {
    if (auto g = probs.getDefiningOp<linalg::GenericOp>()) {
      Block *body = g.getBlock();
      if (g.getNumDpsInputs() == 1 && body->getOperations().size() == 2 &&
          isa<arith::TruncFOp>(body->front()) &&
          body->front().getOperand(0) == body->getArgument(0) &&
          llvm::all_of(g.getIndexingMapsArray(),
                       [](AffineMap m) { return m.isIdentity(); })) {
        covered.insert(g);
        probs = g.getDpsInputs()[0];
        continue;
      }
    }
    if (auto c = probs.getDefiningOp<tensor::CollapseShapeOp>();
        c && keepsTrailingDims(c)) {
      covered.insert(c);
      probs = c.getSrc();
      continue;
    }
    if (dropout.found)
      break;
    Value dropped;
    DropoutResult r = matchDropout(probs, dropped);
    if (r == DropoutResult::Failed) {
      significant = true;
      return false;
    }
    if (r == DropoutResult::None)
      break;
    probs = dropped;
  }
  auto probsType = cast<RankedTensorType>(probs.getType());
  int64_t pr = probsType.getRank();
  Value softmaxInput;
  double softmaxScale = 1.0;
  int64_t softmaxDim = -1;
  if (auto sm = probs.getDefiningOp<SoftmaxOp>()) {
    if (sm.getMask())
      return fail("the sinter.softmax already carries a mask");
    softmaxOp = sm;
    softmaxInput = sm.getInput();
    softmaxDim = sm.getDimension();
    softmaxScale = sm.getScale() ? sm.getScale()->convertToDouble() : 1.0;
  } else {
    SoftmaxMiss miss;
    std::optional<SoftmaxMatch> m = matchSoftmax(probs, miss);
    if (!m) {
      significant = miss.significant;
      // An elementwise op between a softmax and P V (such as a dropout
      // with a keep-mask tensor) cannot be moved into the op.
      if (auto g = probs.getDefiningOp<linalg::GenericOp>();
          !significant && g && g.getNumReductionLoops() == 0) {
        for (Value in : g.getDpsInputs()) {
          while (
              isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
                  in.getDefiningOp()))
            in = in.getDefiningOp()->getOperand(0);
          SoftmaxMiss inner;
          if (in.getDefiningOp<SoftmaxOp>() || matchSoftmax(in, inner)) {
            significant = true;
            return fail("the probabilities go through a '" +
                        g->getName().getStringRef() +
                        "' between the softmax and P V (a dropout with a "
                        "keep-mask tensor?), which sinter.attention cannot "
                        "express");
          }
        }
      }
      return fail("the probabilities are not a softmax: " + miss.reason);
    }
    softmax = *m;
    softmaxInput = m->input;
    softmaxDim = m->dim;
    softmaxScale = m->scale;
  }
  significant = true;
  if (softmaxDim != pr - 1)
    return fail("the softmax is over axis " + Twine(softmaxDim) +
                ", not the trailing (key) axis");
  if (!(softmaxScale > 0.0))
    return fail("the softmax scale is not positive");
  chain.scale = softmaxScale;

  // Find Q K^T: the product feeding the softmax input.
  Value t = softmaxInput;
  Operation *qk = nullptr;
  {
    // Walk to the first product on the chain (through generics/reshapes).
    SmallVector<Value> work{t};
    llvm::DenseSet<Value> seen;
    while (!work.empty() && !qk) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second || seen.size() > 32)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      if (matchProduct(def)) {
        qk = def;
        break;
      }
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        work.push_back(def->getOperand(0));
      else if (auto g = dyn_cast<linalg::GenericOp>(def))
        if (g.getNumReductionLoops() == 0)
          for (Value in : g.getDpsInputs())
            work.push_back(in);
    }
  }
  if (!qk)
    return fail("the softmax input does not come from a matrix product");
  qkProd = *matchProduct(qk);
  Value scores = qk->getResult(0);
  auto sType = cast<RankedTensorType>(scores.getType());
  if (!sType.hasStaticShape())
    return fail("dynamic shapes are not supported yet");
  sq = sType.getDimSize(sType.getRank() - 2);
  skv = sType.getDimSize(sType.getRank() - 1);
  if (!walkScores(softmaxInput, scores, /*outerScale=*/softmaxScale))
    return false;

  // Q, K (through a transpose of its two trailing dims), V.
  q3 = qkProd.lhs;
  if (qkProd.transposedB) {
    k3 = qkProd.rhs;
  } else {
    // K^T [.., D, Skv] is a permutation of some tensor: K is the same
    // permutation with its last two entries swapped.
    Value kt = qkProd.rhs;
    auto collapse = kt.getDefiningOp<tensor::CollapseShapeOp>();
    bool heads4 = collapse && collapse.getSrcType().getRank() == 4 &&
                  collapse.getReassociationIndices() ==
                      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}};
    SmallVector<int64_t> perm;
    if (Value src = matchPermutation(heads4 ? collapse.getSrc() : kt, perm)) {
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      kSrc = src;
      kPerm = perm;
      kIs4D = heads4;
    }
    if (!kSrc)
      return fail("the second operand of Q K^T is not a transposed K");
  }
  v3 = pvProd.rhs;
  // A uniform scale of Q used only here, before or after the heads are
  // collapsed.
  if (auto c = q3.getDefiningOp<tensor::CollapseShapeOp>();
      c && c.getSrcType().getRank() == 4 && q3.hasOneUse() &&
      c.getSrc().hasOneUse()) {
    Value src;
    if (std::optional<double> f =
            matchUniformScale(c.getSrc().getDefiningOp(), src);
        f && *f > 0.0) {
      chain.scale *= *f;
      qScaleOp = c.getSrc().getDefiningOp();
      q4Src = src;
    }
  }
  if (Operation *def = q3.getDefiningOp(); def && !q4Src) {
    Value src;
    if (std::optional<double> c = matchUniformScale(def, src);
        c && *c > 0.0 && q3.hasOneUse()) {
      chain.scale *= *c;
      qScaleOp = def;
      q3 = src;
    }
  }

  // Shapes: Q [N, Sq, D], K [N, Skv, D], V [N, Skv, Dv], out [N, Sq, Dv].
  auto qType = cast<RankedTensorType>(q3.getType());
  auto vType = cast<RankedTensorType>(v3.getType());
  int64_t r = qType.getRank();
  if (!qType.hasStaticShape() || !vType.hasStaticShape() ||
      !outType.hasStaticShape())
    return fail("dynamic shapes are not supported yet");
  d = qType.getDimSize(r - 1);
  dv = vType.getDimSize(r - 1);
  int64_t n = r == 3 ? qType.getDimSize(0) : 1;
  // K's shape and element type (the permuted source when K^T is a
  // permutation).
  SmallVector<int64_t> kShape;
  Type kElem;
  if (k3) {
    auto kType = cast<RankedTensorType>(k3.getType());
    kShape.assign(kType.getShape().begin(), kType.getShape().end());
    kElem = kType.getElementType();
  } else {
    auto srcType = cast<RankedTensorType>(kSrc.getType());
    for (int64_t p : kPerm)
      kShape.push_back(srcType.getDimSize(p));
    kElem = srcType.getElementType();
  }
  if (kElem != elemType)
    return fail("Q, K, V and the output have different element types");
  if (kIs4D) {
    if (kShape[0] * kShape[1] != n || kShape[2] != skv || kShape[3] != d)
      return fail("the shapes of Q and K do not line up");
  } else if (ArrayRef<int64_t>(kShape) !=
             ArrayRef<int64_t>(r == 3 ? SmallVector<int64_t>{n, skv, d}
                                      : SmallVector<int64_t>{skv, d})) {
    return fail("the shapes of Q and K do not line up");
  }
  if (vType.getShape() !=
      ArrayRef<int64_t>(r == 3 ? SmallVector<int64_t>{n, skv, dv}
                               : SmallVector<int64_t>{skv, dv}))
    return fail("the shapes of the probabilities and V do not line up");
  if (qType.getElementType() != elemType || vType.getElementType() != elemType)
    return fail("Q, K, V and the output have different element types");
  if (!isa<Float16Type, BFloat16Type, Float32Type>(elemType))
    return fail("unsupported element type");

  // Heads: from Q's collapse [[0, 1], [2], [3]], or the softmax's rank.
  batch = 1;
  heads = n;
  if (auto c = q3.getDefiningOp<tensor::CollapseShapeOp>()) {
    auto srcType = cast<RankedTensorType>(c.getSrcType());
    if (srcType.getRank() == 4) {
      batch = srcType.getDimSize(0);
      heads = srcType.getDimSize(1);
    }
  } else if (pr == 4) {
    batch = probsType.getDimSize(0);
    heads = probsType.getDimSize(1);
  }
  if (kIs4D && (kShape[0] != batch || kShape[1] != heads))
    return fail("K splits its heads differently from Q");
  // The mask, in 4-D: only maps that read trailing-aligned dims in order.
  if (chain.mask) {
    auto mType = cast<RankedTensorType>(chain.mask.getType());
    if (!isa<Float16Type, BFloat16Type, Float32Type>(mType.getElementType()))
      return fail("the mask has an unsupported element type");
    if (chain.maskRank != 4 && chain.maskRank != (unsigned)pr &&
        chain.maskRank != (unsigned)r)
      return fail("the mask is applied at an unsupported rank");
    // Each mask dim reads a loop in order, or is a unit dim read at 0 in
    // its trailing-aligned position (a broadcast).
    int64_t last = -1;
    int64_t mr = mType.getRank();
    for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults())) {
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        if (c.getValue() != 0 || mType.getDimSize(i) != 1)
          return fail("the mask is read through a constant map");
        int64_t aligned = (int64_t)chain.maskRank - mr + (int64_t)i;
        if (aligned <= last)
          return fail("the mask is read through a transposing map");
        last = aligned;
        continue;
      }
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || (int64_t)dim.getPosition() <= last)
        return fail("the mask is read through a transposing map");
      last = dim.getPosition();
    }
    // A mask read along batch/head loops must see the op's own split.
    if (chain.maskRank == 4) {
      for (AffineExpr e : chain.maskMap.getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(e);
            dim && dim.getPosition() < 2 &&
            chain.maskLoopShape[dim.getPosition()] !=
                (dim.getPosition() == 0 ? batch : heads))
          return fail("the mask splits batch and heads differently from Q");
    }
    // A rank-3 [N, Sq, Skv] mask indexed by the collapsed batch*heads loop
    // needs N = B * H split; reads of it keep the same element order.
    if (chain.maskRank == 3 && chain.maskMap.getNumResults() == 3 &&
        batch != 1 && mType.getDimSize(0) != 1)
      return fail("a per-(batch*head) mask over collapsed heads is not "
                  "supported yet");
  }

  // No intermediate between the scores and P V may be used elsewhere.
  SetVector<Operation *> all;
  all.insert(qk);
  all.insert(chain.ops.begin(), chain.ops.end());
  if (softmaxOp)
    all.insert(softmaxOp);
  else
    all.insert(softmax.covered.begin(), softmax.covered.end());
  all.insert(covered.begin(), covered.end());
  all.insert(dropout.ops.begin(), dropout.ops.end());
  all.insert(pv);
  if (Operation *esc = match::findEscapingOp(
          all.getArrayRef(), [&](Value v) { return v == pv->getResult(0); }))
    return fail("the intermediate computed by '" +
                esc->getName().getStringRef() +
                "' (scores or probabilities) has another user");
  covered = std::move(all);
  return true;
}

/// Reshapes a [N, S, X] (or [S, X]) value into [batch, heads, S, X].
static Value to4D(OpBuilder &b, Location loc, Value v, int64_t batch,
                  int64_t heads) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 3)
    if (auto c = v.getDefiningOp<tensor::CollapseShapeOp>())
      if (c.getSrcType().getRank() == 4 &&
          c.getSrcType().getDimSize(0) == batch &&
          c.getSrcType().getDimSize(1) == heads)
        return c.getSrc();
  int64_t r = type.getRank();
  SmallVector<int64_t> shape{batch, heads, type.getDimSize(r - 2),
                             type.getDimSize(r - 1)};
  SmallVector<ReassociationIndices> reassoc =
      r == 3 ? SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}
             : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}};
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc);
}

/// Grouped-query attention: `v` ([B, Hkv*R, S, D]) is K or V with each of
/// its Hkv heads repeated R times in place (HF's repeat_kv: unsqueeze,
/// broadcast, collapse), so head h reads head h / R of the source. Returns
/// the [B, Hkv, S, D] source, or null.
static Value stripHeadRepeat(Value v) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getSrcType().getRank() != 5 ||
      collapse.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return {};
  auto g = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0 || g.hasIndexSemantics() ||
      g.getNumLoops() != 5)
    return {};
  Block *body = g.getBlock();
  if (body->getOperations().size() != 1 ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity())
    return {};
  Value src = g.getDpsInputs()[0];
  auto srcType = cast<RankedTensorType>(src.getType());
  // [B, Hkv, S, D] read at (b, g, s, d), or [B, Hkv, 1, S, D] at (b, g, 0,
  // s, d) from an expand_shape of the 4-D tensor.
  if (maps[0] == AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx))
    return src;
  if (maps[0] == AffineMap::get(
                     5, 0,
                     {d(0), d(1), getAffineConstantExpr(0, ctx), d(3), d(4)},
                     ctx) &&
      srcType.getDimSize(2) == 1)
    if (auto expand = src.getDefiningOp<tensor::ExpandShapeOp>())
      if (expand.getSrcType().getRank() == 4 &&
          expand.getReassociationIndices() ==
              SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
        return expand.getSrc();
  return {};
}

void AttentionMatcher::rewrite(llvm::DenseSet<Operation *> &erased) {
  OpBuilder b(pv);
  Location loc = pv->getLoc();
  Value q = q4Src ? q4Src : to4D(b, loc, q3, batch, heads);
  Value k = k3;
  if (kSrc) {
    k = kSrc;
    if (!llvm::equal(kPerm, llvm::seq<int64_t>(0, kPerm.size()))) {
      auto srcType = cast<RankedTensorType>(kSrc.getType());
      SmallVector<int64_t> shape;
      for (int64_t p : kPerm)
        shape.push_back(srcType.getDimSize(p));
      Value init =
          tensor::EmptyOp::create(b, loc, shape, srcType.getElementType());
      k = linalg::TransposeOp::create(b, loc, kSrc, init, kPerm).getResult()[0];
    }
  }
  if (!kIs4D)
    k = to4D(b, loc, k, batch, heads);
  Value v = to4D(b, loc, v3, batch, heads);
  // GQA: read the unrepeated K/V heads instead of their copies.
  Value kg = stripHeadRepeat(k), vg = stripHeadRepeat(v);
  if (kg && vg &&
      cast<RankedTensorType>(kg.getType()).getDimSize(1) ==
          cast<RankedTensorType>(vg.getType()).getDimSize(1)) {
    k = kg;
    v = vg;
  }
  Value mask;
  if (chain.mask) {
    // Insert unit dims for the loops the mask does not read, so that numpy
    // broadcasting against [B, H, Sq, Skv] reads the same elements.
    auto mType = cast<RankedTensorType>(chain.mask.getType());
    unsigned rank = chain.maskRank;
    SmallVector<int64_t> shape(rank, 1);
    SmallVector<bool> read(rank, false);
    for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      unsigned p =
          dim ? dim.getPosition() : rank - mType.getRank() + (unsigned)i;
      shape[p] = mType.getDimSize(i);
      read[p] = true;
    }
    // Group each mask dim with the unit dims that precede it.
    SmallVector<ReassociationIndices> reassoc;
    ReassociationIndices group;
    for (unsigned p = 0; p < rank; ++p) {
      group.push_back(p);
      if (read[p]) {
        reassoc.push_back(group);
        group.clear();
      }
    }
    if (!group.empty() && !reassoc.empty())
      reassoc.back().append(group.begin(), group.end());
    // A map reading the trailing loops in order already broadcasts as numpy.
    bool trailing = true;
    for (auto [i, e] : llvm::enumerate(chain.maskMap.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        trailing &= (int64_t)dim.getPosition() ==
                    (int64_t)rank - mType.getRank() + (int64_t)i;
    mask = chain.mask;
    if (!trailing && !reassoc.empty())
      mask = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, mType.getElementType()), mask,
          reassoc);
  }
  auto outType = cast<RankedTensorType>(pv->getResult(0).getType());
  auto attnType =
      RankedTensorType::get({batch, heads, sq, dv}, outType.getElementType());
  Value seed;
  if (dropout.found)
    seed = buildSeedI64(b, loc, dropout.seed);
  auto attn =
      AttentionOp::create(b, loc, attnType, /*lse=*/Type(), q, k, v, mask, seed,
                          b.getF32FloatAttr(static_cast<float>(chain.scale)),
                          chain.causal ? b.getUnitAttr() : UnitAttr(),
                          b.getF64FloatAttr(dropout.found ? dropout.p : 0.0));
  Value result = attn.getOutput();
  if (outType.getRank() != 4) {
    SmallVector<ReassociationIndices> reassoc =
        outType.getRank() == 3
            ? SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}
            : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}};
    result = tensor::CollapseShapeOp::create(b, loc, outType, result, reassoc);
  }
  auto bytesOf = [&](ArrayRef<Operation *> ops) {
    int64_t bytes = 0;
    for (Operation *op : ops)
      if (op != pv && !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
        for (Value r : op->getResults())
          bytes += tensorBytes(r.getType());
    return bytes;
  };
  // The dropout's intermediates (and its random tensor) are reported as the
  // dropout's.
  SmallVector<Operation *> attentionOps, dropoutOps;
  for (Operation *op : covered)
    (dropout.ops.contains(op) ? dropoutOps : attentionOps).push_back(op);
  if (dropout.found && dropout.generatorErased)
    dropoutOps.push_back(dropout.generator);
  int64_t bytes = bytesOf(attentionOps);
  int64_t dropoutBytes = bytesOf(dropoutOps);
  pv->getResult(0).replaceAllUsesWith(result);
  match::eraseWithDeadProducers(pv, &erased);
  if (qScaleOp && !erased.contains(qScaleOp) && qScaleOp->use_empty())
    match::eraseWithDeadProducers(qScaleOp, &erased);
  reportFusion(attn, "attention", bytes);
  if (dropout.found)
    reportFusion(attn, "dropout", dropoutBytes);
}

namespace {
struct SinterRaiseAttentionPass
    : public sinter::impl::RaiseAttentionBase<SinterRaiseAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::BatchMatmulOp, linalg::MatmulOp>(op) ||
          (isa<linalg::GenericOp>(op) &&
           isContractionGeneric(cast<linalg::GenericOp>(op))))
        products.push_back(op);
    });
    llvm::DenseSet<Operation *> erased;
    for (Operation *op : llvm::reverse(products)) {
      if (erased.contains(op))
        continue;
      AttentionMatcher m(op, allowRngChange);
      if (!m.match()) {
        if (m.significant)
          reportNearMiss(op, "attention", m.reason);
        continue;
      }
      m.rewrite(erased);
    }
  }
};
} // namespace
