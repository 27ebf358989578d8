//===- Softmax.cpp - Masks and online softmax of the MMA kernels ----------===//
//
// Part of the Sinter project.
//
// On the accumulator fragments of S, per row (mt, r) of a thread: the
// additive mask, the keys a row may not see (-inf), the row max across the
// four lanes of a quad (two shuffles), exp2 with scale * log2(e) folded
// into one fma, lazy rescaling of the reference max, dropout, and the
// per-lane partial row sums (reduced across the quad once, at the end).
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

Value FragmentBuilder::exp2Scalar(Value v) {
  // Inline PTX: MLIR 22's NVVM dialect has no ex2.approx op (math.exp2
  // lowers to the non-ftz ex2.approx.f32). LLVM's llvm.nvvm.ex2.approx.ftz
  // intrinsic would do, but LLVM then folds and reschedules it (the
  // prologue's exp2(-inf - m) becomes 0, the ex2s move next to their
  // users): another instruction sequence, not yet timed against this one.
  auto op = LLVM::InlineAsmOp::create(
      b, b.getF32Type(), ValueRange{v}, "ex2.approx.ftz.f32 $0, $1;", "=f,f",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  return op.getResult(0);
}

Value FragmentBuilder::exp2(Value x) {
  // math.exp2 becomes the non-ftz form, which ptxas wraps in a range test
  // and two multiplies for subnormal results. Probabilities below 2^-126
  // flush to 0 next to a row sum of at least 1.
  auto vt = dyn_cast<VectorType>(x.getType());
  if (!vt)
    return exp2Scalar(x);
  SmallVector<Value> parts;
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    parts.push_back(exp2Scalar(elem(x, i)));
  return vector::FromElementsOp::create(b, vt, parts);
}

Value FragmentBuilder::tree(SmallVector<Value> vals, bool isMax) {
  // log2(n) dependent steps instead of n - 1: the softmax's row reductions
  // sit on the critical path between a tile's S and its P V.
  while (vals.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < vals.size(); i += 2)
      next.push_back(
          isMax ? Value(arith::MaximumFOp::create(b, vals[i], vals[i + 1]))
                : Value(arith::AddFOp::create(b, vals[i], vals[i + 1])));
    if (vals.size() % 2)
      next.push_back(vals.back());
    vals = std::move(next);
  }
  return vals.front();
}

Value FragmentBuilder::quadReduce(Value v, bool isMax) {
  for (int32_t off : {1, 2}) {
    Value o = gpu::ShuffleOp::create(b, v, off, 32, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    v = isMax ? Value(arith::MaximumFOp::create(b, v, o))
              : Value(arith::AddFOp::create(b, v, o));
  }
  return v;
}

SmallVector<Value> MMAKernel::maskScores(SmallVector<Value> S, Value kv0,
                                         ArrayRef<Value> maskTile) {
  // The additive mask (Mask.cpp: `maskTile` when loaded ahead, else loaded
  // now) and the invisible keys (past Skv, or hidden by KeyVisibility:
  // -inf) applied to the scores of the key tile at kv0. Only tiles that
  // reach the sequence end or hide a key from a row check.
  if (mask) {
    SmallVector<Value> values(maskTile);
    if (values.empty())
      values = loadMask(kv0);
    addMask(S, values);
  }
  Value needsMask = tileNeedsMask(kv0);
  if (!needsMask)
    return S;
  SmallVector<Type> types(MT * NT, mb.acc2x2);
  auto ifOp = scf::IfOp::create(b, types, needsMask, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, hideKeys(S, kv0));
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, S);
  return SmallVector<Value>(ifOp.getResults());
}

Value MMAKernel::tileNeedsMask(Value kv0) {
  // Whether the key tile at kv0 reaches past the sequence end or holds a
  // key that a row of the block may not see.
  Value needsMask;
  if (Skv % BN != 0)
    needsMask = mb.cmp(arith::CmpIPredicate::ugt, mb.add(kv0, BN), kb.idx(Skv));
  if (Value hides =
          visibility.buildTileNeedsMask(b, b.getLoc(), q0, BM, kv0, BN))
    needsMask = needsMask ? arith::OrIOp::create(b, needsMask, hides) : hides;
  return needsMask;
}

SmallVector<Value> MMAKernel::hideKeys(ArrayRef<Value> S, Value kv0) {
  SmallVector<Value> masked(S);
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r) {
      KeyVisibility::QueryBound row =
          visibility.forQuery(b, b.getLoc(), rowOf(mt, r));
      for (int64_t nt = 0; nt < NT; ++nt) {
        Value rv = mb.row(masked[mt * NT + nt], r);
        for (int64_t c = 0; c < 2; ++c) {
          Value j = keyOf(kv0, nt, c);
          Value vis = mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv));
          if (Value seen = row.isVisible(b, b.getLoc(), j))
            vis = arith::AndIOp::create(b, vis, seen);
          Value s = arith::SelectOp::create(b, vis, mb.elem(rv, c), negInf);
          rv = vector::InsertOp::create(b, s, rv, ArrayRef<int64_t>{c});
        }
        masked[mt * NT + nt] = mb.setRow(masked[mt * NT + nt], rv, r);
      }
    }
  return masked;
}

Value MMAKernel::softmax(SmallVector<Value> &S, RowState &st, Value kv0,
                         SmallVector<Value> &alpha) {
  // Online softmax of the key tile at kv0, per row (mt, r): P overwrites S
  // (still f32), M and L move on; returns whether any row of this thread
  // moved its reference, and each row's rescale factor in `alpha`.
  Value anyGrow;
  alpha.assign(MT * 2, Value());
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r)
      softmaxRow(S, st, kv0, mt, r, alpha[mt * 2 + r], anyGrow);
  dropout(S, kv0);
  return anyGrow;
}

void MMAKernel::softmaxRow(SmallVector<Value> &S, RowState &st, Value kv0,
                           int64_t mt, int64_t r, Value &alpha,
                           Value &anyGrow) {
  SmallVector<Value> maxes;
  for (int64_t nt = 0; nt < NT; ++nt) {
    Value rv = mb.row(S[mt * NT + nt], r);
    maxes.push_back(
        arith::MaximumFOp::create(b, mb.elem(rv, 0), mb.elem(rv, 1)));
  }
  Value rowMax = mb.quadReduce(mb.tree(maxes, /*isMax=*/true),
                               /*isMax=*/true);
  // The reference max m (log2 units) moves only when the row max exceeds
  // it by more than kLazyRescale: probabilities stay below 2^kLazyRescale,
  // exact enough in f32 accumulators and bf16/f16 P, and most tiles skip
  // rescaling O (FlashAttention-4's trick).
  Value mOld = st.M[mt * 2 + r];
  Value maxScaled = arith::MulFOp::create(b, rowMax, cScale);
  Value grow = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OGT, maxScaled,
      arith::AddFOp::create(b, mOld, kb.f32(kLazyRescale)));
  Value mNew = arith::SelectOp::create(b, grow, maxScaled, mOld);
  anyGrow = anyGrow ? Value(arith::OrIOp::create(b, anyGrow, grow)) : grow;
  // A row that has seen only -inf keeps reference 0: exp2 gives 0.
  Value none =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf);
  Value ref = arith::SelectOp::create(b, none, kb.f32(0.0), mNew);
  alpha = mb.exp2(arith::SubFOp::create(b, mOld, ref));
  Value negRef2 = mb.splat2(arith::NegFOp::create(b, ref));
  Value c2 = mb.splat2(cScale);
  SmallVector<Value> sums;
  for (int64_t nt = 0; nt < NT; ++nt) {
    Value rv = mb.row(S[mt * NT + nt], r);
    Value p = mb.exp2(math::FmaOp::create(b, rv, c2, negRef2));
    sums.push_back(arith::AddFOp::create(b, mb.elem(p, 0), mb.elem(p, 1)));
    S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], p, r);
  }
  st.L[mt * 2 + r] = arith::AddFOp::create(
      b, arith::MulFOp::create(b, st.L[mt * 2 + r], alpha),
      mb.tree(sums, /*isMax=*/false));
  st.M[mt * 2 + r] = mNew;
}

SmallVector<Value> MMAKernel::rescale(SmallVector<Value> O, Value anyGrow,
                                      ArrayRef<Value> alpha) {
  // O scaled by each row's alpha, only when some row of this thread moved
  // its reference (the branch is skipped when no lane of the warp needs
  // it).
  SmallVector<Type> types(MT * DT, mb.acc2x2);
  auto ifOp = scf::IfOp::create(b, types, anyGrow, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  SmallVector<Value> scaled(O);
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r) {
      Value alpha2 = mb.splat2(alpha[mt * 2 + r]);
      for (int64_t dt = 0; dt < DT; ++dt) {
        Value o = mb.row(scaled[mt * DT + dt], r);
        scaled[mt * DT + dt] = mb.setRow(
            scaled[mt * DT + dt], arith::MulFOp::create(b, o, alpha2), r);
      }
    }
  scf::YieldOp::create(b, scaled);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, O);
  return SmallVector<Value>(ifOp.getResults());
}
