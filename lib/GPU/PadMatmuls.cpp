//===- PadMatmuls.cpp - Align the rows of large matmuls for cuBLASLt ------===//
//
// Part of the Sinter project.
//
// sinter-pad-matmuls (Passes.td has the before and after): a linalg.matmul
// of 2-byte or 4-byte floats whose stored rows are not 16-byte aligned --
// GPT-2's logits over its 50257-word vocabulary, their gradient -- runs on
// cuBLASLt's sm_75 align1 kernels, several times slower than its aligned
// ones. Its misaligned dimensions are padded with zeros up to the next
// multiple and the result sliced back:
//
//   %y = linalg.matmul ins(%a, %b : tensor<MxKxT>, tensor<KxNxT>)
//        outs(%zero : tensor<MxNxU>)
//
// where a transposed operand (`%b = linalg.transpose %w [1, 0]`, nn.Linear)
// is padded before its transpose, which the matmul then reads in place
// (InPlaceOperands.cpp). Which rows are stored and so must be aligned:
// A's (K elements, or M when A is a transpose), B's (N, or K), C's (N).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "sinter/GPU/Passes.h"
#include "llvm/Support/MathExtras.h"

namespace sinter {
#define GEN_PASS_DEF_PADMATMULS
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter::gpu_kernels;

namespace {

/// Elements of `t` in one aligned row step (8 for bf16, 4 for f32).
int64_t rowStep(Type t) {
  return kLibraryGemmRowAlignmentBytes /
         std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// The source of `v` when it is a 2-D transpose: linalg.transpose [1, 0]
/// as frontends write it, or its generic form (isTransposeCopy).
Value transposeSource(Value v) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>())
    return t.getPermutation() == ArrayRef<int64_t>{1, 0} ? t.getInput()
                                                         : Value();
  auto g = v.getDefiningOp<linalg::GenericOp>();
  return isTransposeCopy(g, {1, 0}) ? g.getDpsInputs()[0] : Value();
}

/// `v` padded with zeros at the high end to `shape`, one pad per value and
/// shape (GPT-2's logits gradient feeds two matmuls).
struct Padder {
  explicit Padder(IRRewriter &rewriter) : rewriter(rewriter) {}
  IRRewriter &rewriter;
  llvm::DenseMap<std::pair<Value, std::pair<int64_t, int64_t>>, Value> made;

  Value pad(Location loc, Value v, int64_t rows, int64_t cols) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getDimSize(0) == rows && type.getDimSize(1) == cols)
      return v;
    auto key = std::make_pair(v, std::make_pair(rows, cols));
    if (Value done = made.lookup(key))
      return done;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfterValue(v);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    SmallVector<OpFoldResult> low(2, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high = {
        rewriter.getIndexAttr(rows - type.getDimSize(0)),
        rewriter.getIndexAttr(cols - type.getDimSize(1))};
    auto padded = RankedTensorType::get({rows, cols}, type.getElementType());
    Value p = tensor::PadOp::create(rewriter, loc, padded, v, low, high, zero);
    made[key] = p;
    return p;
  }

  /// Operand `v` of logical shape [rows, cols] padded to [prows, pcols]:
  /// a transpose's source is padded and transposed again.
  Value operand(Location loc, Value v, int64_t prows, int64_t pcols) {
    if (Value src = transposeSource(v)) {
      Value p = pad(loc, src, pcols, prows);
      auto type = cast<RankedTensorType>(p.getType());
      Value init = tensor::EmptyOp::create(rewriter, loc,
                                           ArrayRef<int64_t>{prows, pcols},
                                           type.getElementType());
      return linalg::TransposeOp::create(rewriter, loc, p, init,
                                         ArrayRef<int64_t>{1, 0})
          ->getResult(0);
    }
    return pad(loc, v, prows, pcols);
  }
};

/// A zero pad of a transpose that a matmul reads -- the lm_head's weight
/// padded after its transpose, as the forward saving the padded logits
/// writes it (python/sinter/torch/_padded_saves.py):
///
///   %t = linalg.transpose ins(%w : tensor<50257x768xbf16>) permutation = [1,
///   0] %p = tensor.pad %t low[0, 0] high[0, 7] { tensor.yield %zero }
///   linalg.matmul ins(%x, %p : ...)
///
/// is the transpose of the padded source, which the matmul reads in place
/// (InPlaceOperands.cpp) instead of a kernel transposing it.
void padBeforeTranspose(tensor::PadOp pad, Padder &padder) {
  auto type = pad.getResultType();
  Value src = transposeSource(pad.getSource());
  Value value = pad.getConstantPaddingValue();
  if (!src || type.getRank() != 2 || !type.hasStaticShape() || !value ||
      !(matchPattern(value, m_AnyZeroFloat()) ||
        matchPattern(value, m_Zero())) ||
      !llvm::all_of(pad.getMixedLowPad(),
                    [](OpFoldResult o) { return isConstantIntValue(o, 0); }) ||
      !llvm::any_of(pad->getUsers(),
                    [](Operation *u) { return isa<linalg::MatmulOp>(u); }))
    return;
  IRRewriter &rewriter = padder.rewriter;
  rewriter.setInsertionPoint(pad);
  Value t = padder.operand(pad.getLoc(), pad.getSource(), type.getDimSize(0),
                           type.getDimSize(1));
  rewriter.replaceOp(pad, t);
}

/// The padded sizes (M', N', K') that align every stored row of `mm`, or
/// nothing when they all are (or the matmul is not one this pass pads).
std::optional<std::array<int64_t, 3>> paddedSizes(linalg::MatmulOp mm,
                                                  int64_t minFlops) {
  if (mm.hasUserDefinedMaps() || !mm.hasPureTensorSemantics())
    return std::nullopt;
  auto fill = mm.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant()))
    return std::nullopt;
  Value a = mm.getDpsInputs()[0], b = mm.getDpsInputs()[1];
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  auto cType = cast<RankedTensorType>(mm.getResultTypes()[0]);
  Type in = aType.getElementType(), out = cType.getElementType();
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !cType.hasStaticShape() || in != bType.getElementType() ||
      !llvm::is_contained({16u, 32u}, in.getIntOrFloatBitWidth()) ||
      !isa<FloatType>(in) || !isa<FloatType>(out))
    return std::nullopt;
  int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
          N = bType.getDimSize(1);
  if (2.0 * M * N * K < static_cast<double>(minFlops))
    return std::nullopt;
  bool transA = bool(transposeSource(a)), transB = bool(transposeSource(b));
  int64_t s = rowStep(in), sc = std::max(rowStep(in), rowStep(out));
  auto up = [](int64_t x, int64_t m) { return llvm::alignTo(x, m); };
  // Stored rows: A's K (M if transposed), B's N (K if transposed), C's N.
  // C's rows are aligned for the input type too: a matmul whose product is
  // rounded first (GPT-2's logits) writes C in that type through its
  // epilogue (splitMatmulRoundings), and a bf16 C of 50260-element rows
  // took cutlass's align2 kernel (2.6 ms at B8 T1024 on an H100, against
  // ~1 ms aligned).
  int64_t Mp = transA ? up(M, s) : M;
  int64_t Kp = (!transA || transB) ? up(K, s) : K;
  int64_t Np = up(N, sc);
  if (Mp == M && Np == N && Kp == K)
    return std::nullopt;
  return std::array<int64_t, 3>{Mp, Np, Kp};
}

struct PadMatmulsPass : sinter::impl::PadMatmulsBase<PadMatmulsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp mm) { matmuls.push_back(mm); });
    IRRewriter rewriter(&getContext());
    Padder padder(rewriter);
    SmallVector<tensor::PadOp> pads;
    getOperation()->walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads)
      padBeforeTranspose(pad, padder);
    for (linalg::MatmulOp mm : matmuls) {
      std::optional<std::array<int64_t, 3>> sizes = paddedSizes(mm, minFlops);
      if (!sizes)
        continue;
      auto [Mp, Np, Kp] = *sizes;
      Location loc = mm.getLoc();
      rewriter.setInsertionPoint(mm);
      Value a = padder.operand(loc, mm.getDpsInputs()[0], Mp, Kp);
      Value b = padder.operand(loc, mm.getDpsInputs()[1], Kp, Np);
      auto fill = mm.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      auto cType = cast<RankedTensorType>(mm.getResultTypes()[0]);
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, ArrayRef<int64_t>{Mp, Np}, cType.getElementType());
      Value init =
          linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
              ->getResult(0);
      Value product = linalg::MatmulOp::create(rewriter, loc, ValueRange{a, b},
                                               ValueRange{init})
                          ->getResult(0);
      SmallVector<OpFoldResult> zeros(2, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizesOf = {
          rewriter.getIndexAttr(cType.getDimSize(0)),
          rewriter.getIndexAttr(cType.getDimSize(1))};
      SmallVector<OpFoldResult> ones(2, rewriter.getIndexAttr(1));
      Value slice = tensor::ExtractSliceOp::create(
          rewriter, loc, cType, product, zeros, sizesOf, ones);
      rewriter.replaceOp(mm, slice);
    }
  }
};
} // namespace
