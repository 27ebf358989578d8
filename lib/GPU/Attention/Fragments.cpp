//===- Fragments.cpp - Register fragments of the MMA kernels --------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Fragments.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

FragmentBuilder::FragmentBuilder(ImplicitLocOpBuilder &b, Type elt)
    : b(b), kb(b), elt(elt) {
  acc2x2 = VectorType::get({2, 2}, b.getF32Type());
  frag4x2 = VectorType::get({4, 2}, elt);
  frag2x2 = VectorType::get({2, 2}, elt);
  f32x2 = VectorType::get({2}, b.getF32Type());
  elt2 = VectorType::get({2}, elt);
}

Value FragmentBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, x, y);
}

Value FragmentBuilder::add(Value x, int64_t c) {
  return c ? add(x, kb.idx(c)) : x;
}

Value FragmentBuilder::mul(Value x, int64_t c) {
  return arith::MulIOp::create(b, x, kb.idx(c));
}

Value FragmentBuilder::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, p, x, y);
}

Value FragmentBuilder::toI32(Value index) {
  return arith::IndexCastOp::create(b, b.getI32Type(), index);
}

Value OperandRows::element(FragmentBuilder &mb, Value row, Value col) const {
  // Dense operands keep the form (seqBase + row) * stride (their PTX as it
  // was before heads were read in place).
  Value start = elementBase ? mb.add(elementBase, mb.mul(row, stride))
                            : mb.mul(mb.add(seqBase, row), stride);
  return col ? mb.add(start, col) : start;
}

OperandRows OperandRows::of(FragmentBuilder &mb, const HeadLayout &layout,
                            Value seqBase, Value batch, Value head,
                            int64_t seqLen, int64_t headDim) {
  if (!layout.seqMajor)
    return OperandRows{seqBase, {}, headDim};
  // [B, S, Hbuf, D]: batch b's rows start at b * S * Hbuf * D, head
  // (head + headOffset)'s columns at (head + headOffset) * D.
  int64_t stride = layout.rowStride(headDim);
  Value start = mb.add(mb.mul(batch, seqLen * stride),
                       mb.mul(mb.add(head, layout.headOffset), headDim));
  return OperandRows{{}, start, stride};
}

std::pair<Value, Value>
FragmentBuilder::rowChunkSource(const OperandRows &rows, Value seqRow,
                                int64_t seqLen, Value col, int64_t vecElems,
                                bool ragged) {
  Value n;
  if (ragged) {
    Value in = cmp(arith::CmpIPredicate::ult, seqRow, kb.idx(seqLen));
    seqRow = arith::SelectOp::create(b, in, seqRow, kb.idx(0));
    n = arith::SelectOp::create(b, in, kb.idx(vecElems), kb.idx(0));
  }
  return {rows.element(*this, seqRow, col), n};
}

Value FragmentBuilder::zeroAcc() {
  return arith::ConstantOp::create(
      b, acc2x2,
      DenseElementsAttr::get(acc2x2, b.getF32FloatAttr(0.0).getValue()));
}

Value FragmentBuilder::splat2(Value s) {
  return vector::BroadcastOp::create(b, f32x2, s);
}

Value FragmentBuilder::row(Value acc, int64_t r) {
  return vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{r});
}

Value FragmentBuilder::setRow(Value acc, Value v, int64_t r) {
  return vector::InsertOp::create(b, v, acc, ArrayRef<int64_t>{r});
}

Value FragmentBuilder::elem(Value v2, int64_t c) {
  return vector::ExtractOp::create(b, v2, ArrayRef<int64_t>{c});
}

SmallVector<Value> FragmentBuilder::flatten(ArrayRef<Value> accs) {
  SmallVector<Value> out;
  for (Value a : accs)
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(
          vector::ExtractOp::create(b, a, ArrayRef<int64_t>{i / 2, i % 2}));
  return out;
}

SmallVector<Value> FragmentBuilder::unflatten(ArrayRef<Value> regs) {
  SmallVector<Value> out;
  for (size_t i = 0; i < regs.size(); i += 4)
    out.push_back(vector::FromElementsOp::create(b, acc2x2, regs.slice(i, 4)));
  return out;
}

SmallVector<Value> FragmentBuilder::callAsm(StringRef text, StringRef cons,
                                            ArrayRef<Value> operands,
                                            ArrayRef<Type> types) {
  return kb.callAsm(text, cons, operands, types);
}
