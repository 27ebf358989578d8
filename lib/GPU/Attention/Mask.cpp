//===- Mask.cpp - The additive mask of the MMA kernels --------------------===//
//
// Part of the Sinter project.
//
// The additive mask's values of one key tile, per fragment row (mt, r) and
// n-tile nt: the two keys quadCol + {0, 1} a lane holds (Fragments.h), read
// through the mask's broadcast strides. Where the keys are contiguous in the
// mask and every row starts at an even element, the pair is one aligned
// vector load (HF's [B, 1, Sq, Skv] padding and causal masks, [Skv] key
// biases); otherwise two scalar loads. The values stay in the mask's element
// type until they are added (half the registers of a bf16 mask), and in the
// two-stage steady state they are loaded before the scores' wgmma is waited
// on, so that their latency hides behind the tensor cores.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

bool MMAKernel::maskByPairs() const {
  // Pairs start at even keys (quadCol + 8nt + kv0): aligned when every
  // row's first element is even and the keys are contiguous.
  return maskStride[3] == 1 && Skv % 2 == 0 && maskStride[0] % 2 == 0 &&
         maskStride[1] % 2 == 0 && maskStride[2] % 2 == 0;
}

bool MMAKernel::maskLoadedAhead() const {
  // 16-bit masks by pairs: one register per pair carried across the wait
  // (an f32 mask would take two, which the two-stage kernels' 240
  // registers do not have to spare at 128-key tiles).
  return mask && maskByPairs() &&
         cast<MemRefType>(mask.getType()).getElementTypeBitWidth() == 16;
}

SmallVector<Value> MMAKernel::loadMask(Value kv0) {
  // [mt][r][nt]: vector<2 x mask element> each.
  SmallVector<Value> vals;
  bool pairs = maskByPairs();
  // Keys past Skv: only in the last tile of a ragged sequence (pairs never
  // straddle Skv: both Skv and the pair's first key are even).
  bool ragged = Skv % BN != 0;
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r) {
      Value i = rowOf(mt, r);
      Value iOk = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
      Value rowBase =
          mb.add(maskBase, mb.mul(arith::SelectOp::create(b, iOk, i, kb.idx(0)),
                                  maskStride[2]));
      for (int64_t nt = 0; nt < NT; ++nt) {
        SmallVector<Value> at;
        for (int64_t c = 0; c < (pairs ? 1 : 2); ++c) {
          Value j = keyOf(kv0, nt, c);
          Value idx = mb.add(rowBase, mb.mul(j, maskStride[3]));
          if (ragged || !pairs)
            idx = arith::SelectOp::create(
                b, mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv)), idx,
                kb.idx(0));
          at.push_back(idx);
        }
        if (pairs) {
          vals.push_back(kb.loadAll({mask}, at, 2, Value(), /*toF32=*/false,
                                    /*stream=*/false)[0]);
          continue;
        }
        SmallVector<Value> two = kb.loadAll({mask, mask}, at, 1, Value(),
                                            /*toF32=*/false, /*stream=*/false);
        Type elt = cast<VectorType>(two[0].getType()).getElementType();
        vals.push_back(vector::FromElementsOp::create(
            b, VectorType::get({2}, elt),
            ValueRange{mb.elem(two[0], 0), mb.elem(two[1], 0)}));
      }
    }
  return vals;
}

void MMAKernel::addMask(SmallVector<Value> &S, ArrayRef<Value> maskTile) {
  // s + mask / scale: the mask in raw score units (the softmax multiplies
  // by the scale), one fma per score.
  Value invScale = kb.f32(1.0 / op.getEffectiveScale());
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t nt = 0; nt < NT; ++nt) {
        Value m = kb.extF32(maskTile[(mt * 2 + r) * NT + nt]);
        Value rv = mb.row(S[mt * NT + nt], r);
        rv = math::FmaOp::create(b, m, mb.splat2(invScale), rv);
        S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], rv, r);
      }
}
