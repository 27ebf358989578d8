//===- AttentionMasking.cpp - Which keys a query may see ------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/AttentionMasking.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <algorithm>

using namespace mlir;
using namespace sinter;

/// The rule of an attention op's `causal` flag over its query and key.
static KeyVisibility visibilityOf(bool causal, Value query, Value key) {
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(key.getType());
  return KeyVisibility(causal ? KeyVisibility::Kind::Causal
                              : KeyVisibility::Kind::All,
                       q.getDimSize(2), k.getDimSize(2));
}

KeyVisibility KeyVisibility::of(AttentionOp op) {
  return visibilityOf(op.getCausal(), op.getQuery(), op.getKey());
}

KeyVisibility KeyVisibility::of(AttentionBackwardOp op) {
  return visibilityOf(op.getCausal(), op.getQuery(), op.getKey());
}

bool KeyVisibility::isVisible(int64_t query, int64_t key) const {
  switch (kind) {
  case Kind::All:
    return true;
  case Kind::Causal:
    return key + sq <= query + skv;
  }
  return false;
}

int64_t KeyVisibility::keyBegin(int64_t) const { return 0; }

int64_t KeyVisibility::keyEnd(int64_t query) const {
  switch (kind) {
  case Kind::All:
    return skv;
  case Kind::Causal:
    return std::clamp<int64_t>(query + 1 + skv - sq, 0, skv);
  }
  return skv;
}

int64_t KeyVisibility::queryBegin(int64_t key) const {
  switch (kind) {
  case Kind::All:
    return 0;
  case Kind::Causal:
    // The least i with key + Sq <= i + Skv.
    return std::clamp<int64_t>(key + sq - skv, 0, sq);
  }
  return 0;
}

static Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

static Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::AddIOp::create(b, loc, x, index(b, loc, c));
}

Value KeyVisibility::buildIsVisible(OpBuilder &b, Location loc, Value query,
                                    Value key) const {
  if (kind == Kind::All)
    return Value();
  // j <= i + (Skv - Sq)  <=>  j + Sq <= i + Skv.
  Value lhs = addConst(b, loc, key, sq);
  Value rhs = addConst(b, loc, query, skv);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, lhs, rhs);
}

KeyVisibility::QueryBound KeyVisibility::forQuery(OpBuilder &b, Location loc,
                                                  Value query) const {
  if (kind == Kind::All)
    return QueryBound(*this, Value());
  return QueryBound(*this, addConst(b, loc, query, skv));
}

Value KeyVisibility::QueryBound::isVisible(OpBuilder &b, Location loc,
                                           Value key) const {
  if (!bound)
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                               addConst(b, loc, key, rule.sq), bound);
}

Value KeyVisibility::buildKeyEnd(OpBuilder &b, Location loc,
                                 Value queryEnd) const {
  if (kind == Kind::All)
    return index(b, loc, skv);
  // The last query below queryEnd sees keys below queryEnd + Skv - Sq.
  Value end = queryEnd;
  if (skv != sq)
    end = addConst(b, loc, end, skv - sq);
  end = arith::MinSIOp::create(b, loc, end, index(b, loc, skv));
  return arith::MaxSIOp::create(b, loc, end, index(b, loc, 0));
}

Value KeyVisibility::buildQueryBegin(OpBuilder &b, Location loc,
                                     Value firstKey) const {
  if (kind == Kind::All)
    return index(b, loc, 0);
  // key + Sq - Skv, clamped to [0, Sq] without a negative intermediate.
  if (sq >= skv)
    return arith::MinUIOp::create(b, loc, addConst(b, loc, firstKey, sq - skv),
                                  index(b, loc, sq));
  Value shift = index(b, loc, skv - sq);
  Value sees =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, firstKey, shift);
  Value begin = arith::SubIOp::create(b, loc, firstKey, shift);
  return arith::SelectOp::create(b, loc, sees, begin, index(b, loc, 0));
}

Value KeyVisibility::buildTileNeedsMask(OpBuilder &b, Location loc,
                                        Value firstQuery, int64_t numQueries,
                                        Value firstKey, int64_t numKeys) const {
  (void)numQueries; // a window would also test the last query
  if (kind == Kind::All)
    return Value();
  // Causal hides the most keys from the first query: its last key is
  // hidden when firstKey + numKeys - 1 + Sq > firstQuery + Skv.
  Value rhs = addConst(b, loc, firstQuery, skv);
  Value lhs = addConst(b, loc, firstKey, numKeys - 1 + sq);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, lhs, rhs);
}
