//===- SinterOps.cpp - sinter dialect operations --------------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace sinter;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// Prints a shape as `[2, 8, ?, 64]`.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

/// Two static-or-dynamic sizes are compatible unless both are static and
/// differ.
/// Formats a floating-point attribute value for a diagnostic (`0.1`, `inf`).
static std::string num(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%g", v);
  return s;
}

static bool sizesCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip_equal(a, b), [](auto p) {
           return sizesCompatible(std::get<0>(p), std::get<1>(p));
         });
}

/// `shape` broadcasts to `target` under numpy rules (aligned to the trailing
/// dimension; each size is 1 or equal).
static bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> target) {
  if (shape.size() > target.size())
    return false;
  size_t offset = target.size() - shape.size();
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 1)
      continue;
    if (!sizesCompatible(d, target[offset + i]))
      return false;
  }
  return true;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

static Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// The softmax scale of an attention op: `scale`, or 1/sqrt(D).
static double effectiveScale(std::optional<APFloat> scale, Value query) {
  if (scale)
    return scale->convertToDouble();
  int64_t d = shapeOf(query)[3];
  return 1.0 / std::sqrt(static_cast<double>(d));
}

double AttentionOp::getEffectiveScale() {
  return effectiveScale(getScale(), getQuery());
}

double AttentionBackwardOp::getEffectiveScale() {
  return effectiveScale(getScale(), getQuery());
}

namespace {
/// What sinter.attention and sinter.attention_backward share: the operands
/// of the forward, its output and lse, and its attributes.
struct AttentionParts {
  Value query, key, value, output, lse, mask, seed;
  std::optional<APFloat> scale;
  double dropoutP;
};
} // namespace

/// Checks the shapes and attributes of the forward attention in `a` (the
/// lse is optional).
static LogicalResult verifyAttention(Operation *op, const AttentionParts &a) {
  auto checkRank = [&](Value v, StringRef name,
                       StringRef layout) -> LogicalResult {
    int64_t rank = shapeOf(v).size();
    if (rank != 4)
      return op->emitOpError() << name << " must have rank 4 (" << layout
                               << "), got rank " << rank;
    return success();
  };
  if (failed(checkRank(a.query, "query", "[B, Hq, Sq, D]")) ||
      failed(checkRank(a.key, "key", "[B, Hkv, Skv, D]")) ||
      failed(checkRank(a.value, "value", "[B, Hkv, Skv, Dv]")) ||
      failed(checkRank(a.output, "output", "[B, Hq, Sq, Dv]")))
    return failure();

  Type elt = elementTypeOf(a.query);
  if (elementTypeOf(a.key) != elt || elementTypeOf(a.value) != elt)
    return op->emitOpError("query, key and value must have the same element "
                           "type, got ")
           << elt << ", " << elementTypeOf(a.key) << " and "
           << elementTypeOf(a.value);
  if (elementTypeOf(a.output) != elt)
    return op->emitOpError("output element type ")
           << elementTypeOf(a.output) << " must match the query's " << elt;

  ArrayRef<int64_t> q = shapeOf(a.query), k = shapeOf(a.key),
                    v = shapeOf(a.value);
  if (!sizesCompatible(q[0], k[0]))
    return op->emitOpError("batch size of key (")
           << k[0] << ") does not match the query's (" << q[0] << ")";
  if (!sizesCompatible(q[3], k[3]))
    return op->emitOpError("head dimension of key (")
           << k[3] << ") does not match the query's (" << q[3] << ")";
  // An empty head dimension has no dot product to scale (1/sqrt(0)); no
  // target's kernels take one.
  for (auto [name, d] : {std::pair<StringRef, int64_t>{"head dimension", q[3]},
                         {"value head dimension", v[3]}})
    if (!ShapedType::isDynamic(d) && d < 1)
      return op->emitOpError() << name << " must be at least 1, got " << d;
  if (!shapesCompatible(k.take_front(3), v.take_front(3)))
    return op->emitOpError("value must have the batch, heads and sequence "
                           "length of key: ")
           << shapeStr(v.take_front(3)) << " vs " << shapeStr(k.take_front(3));
  if (!ShapedType::isDynamic(q[1]) && !ShapedType::isDynamic(k[1]) &&
      (k[1] == 0 || q[1] % k[1] != 0))
    return op->emitOpError("number of query heads (")
           << q[1] << ") must be a multiple of the number of key/value heads ("
           << k[1] << ")";

  SmallVector<int64_t> outShape = {q[0], q[1], q[2], v[3]};
  if (!shapesCompatible(shapeOf(a.output), outShape))
    return op->emitOpError("output shape must be [B, Hq, Sq, Dv] = ")
           << shapeStr(outShape) << ", got " << shapeStr(shapeOf(a.output));
  if (a.lse) {
    SmallVector<int64_t> lseShape = {q[0], q[1], q[2]};
    if (!shapesCompatible(shapeOf(a.lse), lseShape))
      return op->emitOpError("lse shape must be [B, Hq, Sq] = ")
             << shapeStr(lseShape) << ", got " << shapeStr(shapeOf(a.lse));
  }
  if (a.mask) {
    SmallVector<int64_t> scores = {q[0], q[1], q[2], k[2]};
    if (!broadcastsTo(shapeOf(a.mask), scores))
      return op->emitOpError("mask of shape ")
             << shapeStr(shapeOf(a.mask))
             << " does not broadcast to the scores [B, Hq, Sq, Skv] = "
             << shapeStr(scores);
  }
  if (a.scale) {
    double sv = a.scale->convertToDouble();
    if (!std::isfinite(sv) || sv == 0.0)
      return op->emitOpError("scale must be finite and nonzero, got ")
             << num(sv);
  }
  double p = a.dropoutP;
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError("dropout_p must be in [0, 1), got ") << num(p);
  if (p > 0.0 && !a.seed)
    return op->emitOpError("dropout_p > 0 requires a seed operand");
  return success();
}

LogicalResult AttentionOp::verify() {
  return verifyAttention(*this, {getQuery(), getKey(), getValue(), getOutput(),
                                 getLse(), getMask(), getSeed(), getScale(),
                                 getDropoutP().convertToDouble()});
}

/// `grad` (named `name`) must have the type of `primal` (named `of`).
static LogicalResult verifyGradType(Operation *op, Value grad, StringRef name,
                                    Value primal, StringRef of) {
  if (grad.getType() != primal.getType())
    return op->emitOpError()
           << name << " type " << grad.getType() << " must match the " << of
           << " type " << primal.getType();
  return success();
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(
          verifyAttention(*this, {getQuery(), getKey(), getValue(), getOutput(),
                                  getLse(), getMask(), getSeed(), getScale(),
                                  getDropoutP().convertToDouble()})))
    return failure();
  Operation *op = *this;
  if (failed(verifyGradType(op, getGradOutput(), "grad_output", getOutput(),
                            "output")) ||
      failed(verifyGradType(op, getGradQuery(), "grad_query", getQuery(),
                            "query")) ||
      failed(verifyGradType(op, getGradKey(), "grad_key", getKey(), "key")) ||
      failed(verifyGradType(op, getGradValue(), "grad_value", getValue(),
                            "value")))
    return failure();
  if (Value dmask = getGradMask()) {
    if (!getMask())
      return emitOpError("a grad_mask result requires a mask operand");
    if (!shapesCompatible(shapeOf(dmask), shapeOf(getMask())))
      return emitOpError("grad_mask shape ")
             << shapeStr(shapeOf(dmask)) << " must equal the mask shape "
             << shapeStr(shapeOf(getMask()));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t dim = getDimension();
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return emitOpError("dimension ")
           << dim << " is out of range for an input of rank " << shape.size();
  if (Value mask = getMask())
    if (!broadcastsTo(shapeOf(mask), shape))
      return emitOpError("mask of shape ")
             << shapeStr(shapeOf(mask)) << " does not broadcast to the input "
             << shapeStr(shape);
  if (std::optional<APFloat> s = getScale())
    if (!std::isfinite(s->convertToDouble()) || s->isZero())
      return emitOpError("scale must be finite and nonzero, got ")
             << num(s->convertToDouble());
  return success();
}

LogicalResult SoftmaxBackwardOp::verify() {
  int64_t rank = shapeOf(getOutput()).size(), dim = getDimension();
  if (dim < 0 || dim >= rank)
    return emitOpError("dimension ")
           << dim << " is out of range for an output of rank " << rank;
  if (std::optional<APFloat> s = getScale())
    if (!std::isfinite(s->convertToDouble()) || s->isZero())
      return emitOpError("scale must be finite and nonzero, got ")
             << num(s->convertToDouble());
  return success();
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

/// Checks what LayerNorm and RMSNorm share: normalized_rank, epsilon, the
/// output type, affine parameters of the normalized shape and statistics of
/// the leading shape.
static LogicalResult verifyNorm(Operation *op, Value input, Value output,
                                int64_t normalizedRank, APFloat epsilon,
                                ArrayRef<std::pair<StringRef, Value>> params,
                                ArrayRef<std::pair<StringRef, Value>> stats) {
  ArrayRef<int64_t> shape = shapeOf(input);
  int64_t rank = shape.size();
  if (normalizedRank < 1 || normalizedRank > rank)
    return op->emitOpError("normalized_rank ")
           << normalizedRank << " must be in [1, " << rank << "]";
  double eps = epsilon.convertToDouble();
  if (!(eps > 0.0) || !std::isfinite(eps))
    return op->emitOpError("epsilon must be positive and finite, got ")
           << num(eps);
  // The output has the input's shape; its float type may differ (a
  // rounding to a narrower type folded into the op).
  if (shapeOf(output) != shape)
    return op->emitOpError("output type ")
           << output.getType() << " must have the shape of the input type "
           << input.getType();
  ArrayRef<int64_t> normalized = shape.take_back(normalizedRank);
  ArrayRef<int64_t> leading = shape.drop_back(normalizedRank);
  for (auto [name, v] : params)
    if (v && !shapesCompatible(shapeOf(v), normalized))
      return op->emitOpError()
             << name << " shape " << shapeStr(shapeOf(v))
             << " must equal the normalized shape " << shapeStr(normalized);
  for (auto [name, v] : stats)
    if (v && !shapesCompatible(shapeOf(v), leading))
      return op->emitOpError()
             << name << " shape " << shapeStr(shapeOf(v))
             << " must equal the leading (unnormalized) shape "
             << shapeStr(leading);
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getInput(), getOutput(), getNormalizedRank(),
                    getEpsilon(),
                    {{"weight", getWeight()}, {"bias", getBias()}},
                    {{"mean", getMean()}, {"rstd", getRstd()}});
}

LogicalResult RMSNormOp::verify() {
  return verifyNorm(*this, getInput(), getOutput(), getNormalizedRank(),
                    getEpsilon(), {{"weight", getWeight()}},
                    {{"rstd", getRstd()}});
}

/// Checks what the norms' backward ops share: normalized_rank, the
/// statistics of the leading shape, and parameters and their gradients of
/// the normalized shape (a gradient of the weight requires the weight).
static LogicalResult
verifyNormBackward(Operation *op, Value gradOutput, Value input,
                   int64_t normalizedRank,
                   ArrayRef<std::pair<StringRef, Value>> stats, Value weight,
                   Value gradWeight, Value gradBias) {
  ArrayRef<int64_t> shape = shapeOf(input);
  int64_t rank = shape.size();
  // dy may be of another float type than x (read in its own, widened).
  if (!shapesCompatible(shapeOf(gradOutput), shape))
    return op->emitOpError("grad_output type ")
           << gradOutput.getType() << " must have the shape of the input type "
           << input.getType();
  if (normalizedRank < 1 || normalizedRank > rank)
    return op->emitOpError("normalized_rank ")
           << normalizedRank << " must be in [1, " << rank << "]";
  ArrayRef<int64_t> normalized = shape.take_back(normalizedRank);
  ArrayRef<int64_t> leading = shape.drop_back(normalizedRank);
  for (auto [name, v] : stats)
    if (!shapesCompatible(shapeOf(v), leading))
      return op->emitOpError()
             << name << " shape " << shapeStr(shapeOf(v))
             << " must equal the leading (unnormalized) shape "
             << shapeStr(leading);
  if (gradWeight && !weight)
    return op->emitOpError("a grad_weight result requires a weight operand");
  std::pair<StringRef, Value> params[] = {
      {"weight", weight}, {"grad_weight", gradWeight}, {"grad_bias", gradBias}};
  for (auto [name, v] : params)
    if (v && !shapesCompatible(shapeOf(v), normalized))
      return op->emitOpError()
             << name << " shape " << shapeStr(shapeOf(v))
             << " must equal the normalized shape " << shapeStr(normalized);
  return success();
}

LogicalResult LayerNormBackwardOp::verify() {
  return verifyNormBackward(*this, getGradOutput(), getInput(),
                            getNormalizedRank(),
                            {{"mean", getMean()}, {"rstd", getRstd()}},
                            getWeight(), getGradWeight(), getGradBias());
}

LogicalResult RMSNormBackwardOp::verify() {
  return verifyNormBackward(*this, getGradOutput(), getInput(),
                            getNormalizedRank(), {{"rstd", getRstd()}},
                            getWeight(), getGradWeight(), Value());
}

//===----------------------------------------------------------------------===//
// AdamWOp
//===----------------------------------------------------------------------===//

LogicalResult AdamWOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  for (ValueRange list :
       {adaptor.getParams(), adaptor.getExpAvgs(), adaptor.getExpAvgSqs()})
    llvm::append_range(types, list.getTypes());
  return success();
}

LogicalResult AdamWOp::verify() {
  size_t n = getParams().size();
  if (n == 0)
    return emitOpError("requires at least one parameter tensor");
  std::pair<StringRef, OperandRange> lists[] = {
      {"grads", getGrads()},
      {"exp_avgs", getExpAvgs()},
      {"exp_avg_sqs", getExpAvgSqs()}};
  for (auto &[name, list] : lists) {
    if (list.size() != n)
      return emitOpError() << name << " has " << list.size()
                           << " tensors but params has " << n;
    for (size_t i = 0; i < n; ++i)
      if (!shapesCompatible(shapeOf(list[i]), shapeOf(getParams()[i])))
        return emitOpError()
               << name << " #" << i << " of shape "
               << shapeStr(shapeOf(list[i])) << " does not match params #" << i
               << " of shape " << shapeStr(shapeOf(getParams()[i]));
  }
  auto inUnitInterval = [&](StringRef name, APFloat v) -> LogicalResult {
    double d = v.convertToDouble();
    if (!(d >= 0.0 && d < 1.0))
      return emitOpError() << name << " must be in [0, 1), got " << num(d);
    return success();
  };
  if (failed(inUnitInterval("beta1", getBeta1())) ||
      failed(inUnitInterval("beta2", getBeta2())))
    return failure();
  double eps = getEps().convertToDouble();
  if (!(eps > 0.0) || !std::isfinite(eps))
    return emitOpError("eps must be positive and finite, got ") << num(eps);
  double wd = getWeightDecay().convertToDouble();
  if (!(wd >= 0.0) || !std::isfinite(wd))
    return emitOpError("weight_decay must be non-negative and finite, got ")
           << num(wd);
  return success();
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

LogicalResult FusedOp::verify() {
  if (getResults().empty())
    return emitOpError("requires at least one result");
  ArrayRef<int64_t> iter = getIterationShape();
  for (Value r : getResults().drop_front())
    if (shapeOf(r) != iter)
      return emitOpError("all results must have the iteration shape ")
             << shapeStr(iter) << ", got " << shapeStr(shapeOf(r));
  ArrayRef<Attribute> maps = getIndexingMaps().getValue();
  if (maps.size() != getInputs().size())
    return emitOpError("expected ")
           << getInputs().size() << " indexing maps (one per input), got "
           << maps.size();
  for (auto [i, attr, input] : llvm::enumerate(maps, getInputs())) {
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    if (map.getNumDims() != iter.size() || map.getNumSymbols() != 0)
      return emitOpError("indexing map #")
             << i << " must have " << iter.size()
             << " dimensions (the iteration rank) and no symbols, got "
             << AffineMapAttr::get(map);
    auto tensorType = dyn_cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> inShape =
        tensorType ? tensorType.getShape() : ArrayRef<int64_t>();
    if (!tensorType && isa<ShapedType>(input.getType()))
      return emitOpError("input #")
             << i << " must be a ranked tensor or a scalar, got "
             << input.getType();
    if (map.getNumResults() != inShape.size())
      return emitOpError("indexing map #")
             << i << " has " << map.getNumResults() << " results but input #"
             << i << " has rank " << inShape.size();
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return emitOpError("indexing map #")
             << i
             << " must be a projected permutation (broadcasts and transposes "
                "only), got "
             << AffineMapAttr::get(map);
    for (auto [k, expr] : llvm::enumerate(map.getResults())) {
      int64_t size = inShape[k];
      if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
        if (size != 1)
          return emitOpError("input #")
                 << i << " dimension " << k << " is indexed by constant 0 "
                 << "and must have size 1, got " << size;
        continue;
      }
      unsigned d = cast<AffineDimExpr>(expr).getPosition();
      if (!sizesCompatible(size, iter[d]))
        return emitOpError("input #")
               << i << " dimension " << k << " (size " << size
               << ") does not match iteration dimension d" << d << " (size "
               << iter[d] << ")";
    }
  }
  return success();
}

LogicalResult FusedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body must have ")
           << getInputs().size() << " arguments (one per input), got "
           << body.getNumArguments();
  for (auto [i, arg, input] :
       llvm::enumerate(body.getArguments(), getInputs())) {
    Type expected = input.getType();
    if (auto t = dyn_cast<RankedTensorType>(expected))
      expected = t.getElementType();
    if (arg.getType() != expected)
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << " but input #" << i
             << " provides " << expected;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with sinter.yield");
  if (yield.getValues().size() != getResults().size())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values but the op has "
           << getResults().size() << " results";
  for (auto [i, v, r] : llvm::enumerate(yield.getValues(), getResults()))
    if (v.getType() != elementTypeOf(r))
      return emitOpError("yielded value #")
             << i << " has type " << v.getType() << " but result #" << i
             << " has element type " << elementTypeOf(r);
  for (Operation &op : body.without_terminator()) {
    Dialect *d = op.getDialect();
    bool allowed = isa<DropoutOp>(op) ||
                   isa_and_nonnull<arith::ArithDialect, math::MathDialect>(d);
    if (!allowed)
      return op.emitOpError("is not allowed in a sinter.fused body (only "
                            "arith, math and sinter.dropout ops are)");
    for (Type t : op.getResultTypes())
      if (isa<ShapedType>(t))
        return op.emitOpError("must operate on scalars inside a sinter.fused "
                              "body, got ")
               << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("p must be in [0, 1), got ") << num(p);
  return success();
}

//===----------------------------------------------------------------------===//
// The norm backward ops' dy type: `dy(type)` last, omitted when it is x's.
//===----------------------------------------------------------------------===//

static ParseResult parseGradOutputType(OpAsmParser &parser, Type &gradOutput,
                                       Type input) {
  gradOutput = input;
  if (failed(parser.parseOptionalKeyword("dy")))
    return success();
  return failure(parser.parseLParen() || parser.parseType(gradOutput) ||
                 parser.parseRParen());
}

static void printGradOutputType(OpAsmPrinter &printer, Operation *,
                                Type gradOutput, Type input) {
  if (gradOutput != input)
    printer << "dy(" << gradOutput << ")";
}

#define GET_OP_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterOps.cpp.inc"
