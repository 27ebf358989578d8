//===- TensorOpsToLinalg.cpp - Leftover tensor ops as device generics -----===//
//
// Part of the Sinter project.
//
// A CUDA artifact runs kernels; the host only sequences launches and views
// buffers. Tensor ops that real models leave between the fused kernels --
// `tensor.concat` of i1 (HF's position checks; others run as elementwise
// kernels: ConcatKernel.cpp),
// `tensor.insert_slice` (TOSA's rotate_half), `tensor.pad` with low pads
// (high pads alone run as elementwise kernels: PadKernel.cpp), and scalars
// `tensor.extract`ed on the host and captured by a generic (torch-mlir's 0-d
// AdamW step math) -- become `linalg.generic`s that gather from their
// sources, which the general (serial) kernel runs:
//
//   %c = tensor.concat dim(2) %a, %b : (tensor<1x32x16xf32>,
//        tensor<1x32x16xf32>) -> tensor<1x32x32xf32>
//   ->
//   %c = linalg.generic ... outs(%e : tensor<1x32x32xf32>) {
//     %k = linalg.index 2 ; in_a = %k < 16
//     %x = tensor.extract %a[.., min(%k, 15)]
//     %y = tensor.extract %b[.., max(%k - 16, 0)]
//     linalg.yield (select in_a, %x, %y)
//   }
//
// Gathers read every source at a clamped, in-bounds index and select the
// right one: no branch, no out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/GPU/Passes.h"

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace sinter {
#define GEN_PASS_DEF_TENSOROPSTOLINALG
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {

/// A parallel generic over `type` (no inputs) whose body `fn` computes the
/// element from the loop indices.
Value gatherGeneric(
    PatternRewriter &rewriter, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  int64_t rank = type.getRank();
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto g = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)}, iters,
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t d = 0; d < rank; ++d)
          idx.push_back(linalg::IndexOp::create(b, l, d));
        linalg::YieldOp::create(b, l, fn(b, l, idx));
      });
  return g.getResult(0);
}

Value cIdx(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

/// `x` clamped into [lo, hi].
Value clampIdx(OpBuilder &b, Location l, Value x, int64_t lo, int64_t hi) {
  Value y = arith::MaxSIOp::create(b, l, x, cIdx(b, l, lo));
  return arith::MinSIOp::create(b, l, y, cIdx(b, l, hi));
}

/// `lo <= x < hi` as an i1.
Value inRange(OpBuilder &b, Location l, Value x, int64_t lo, int64_t hi) {
  Value a =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, x, cIdx(b, l, lo));
  Value c =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, cIdx(b, l, hi));
  return arith::AndIOp::create(b, l, a, c);
}

struct ConcatToGather : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    if (sinter::gpu_kernels::isElementwiseConcat(op))
      return rewriter.notifyMatchFailure(
          op, "the elementwise kernel stores its parts (ConcatKernel.cpp)");
    int64_t dim = op.getDim();
    Value out = gatherGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          Value result;
          int64_t offset = 0;
          for (Value in : op.getInputs()) {
            int64_t size = cast<RankedTensorType>(in.getType()).getDimSize(dim);
            SmallVector<Value> at(idx.begin(), idx.end());
            Value local =
                arith::SubIOp::create(b, l, idx[dim], cIdx(b, l, offset));
            at[dim] = clampIdx(b, l, local, 0, size - 1);
            Value v = tensor::ExtractOp::create(b, l, in, at);
            result = result
                         ? arith::SelectOp::create(
                               b, l, inRange(b, l, local, 0, size), v, result)
                         : v;
            offset += size;
          }
          return result;
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct InsertSliceToGather : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getDestType();
    auto srcType = op.getSourceType();
    if (!type.hasStaticShape() || !srcType.hasStaticShape() ||
        !op.hasUnitStride() ||
        ShapedType::isDynamicShape(op.getStaticOffsets()) ||
        srcType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(
          op, "static, unit-stride, rank-preserving slices only");
    Value out = gatherGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> at;
          Value inside;
          for (auto [d, off] : llvm::enumerate(op.getStaticOffsets())) {
            Value local = arith::SubIOp::create(b, l, idx[d], cIdx(b, l, off));
            int64_t size = srcType.getDimSize(d);
            at.push_back(clampIdx(b, l, local, 0, size - 1));
            Value in = inRange(b, l, local, 0, size);
            inside = inside ? arith::AndIOp::create(b, l, inside, in) : in;
          }
          Value fromSrc = tensor::ExtractOp::create(b, l, op.getSource(), at);
          // Outside the slice the destination's element; an empty
          // destination has none (any value will do: zero).
          Value fromDest =
              op.getDest().getDefiningOp<tensor::EmptyOp>()
                  ? Value(arith::ConstantOp::create(
                        b, l, b.getZeroAttr(type.getElementType())))
                  : Value(tensor::ExtractOp::create(b, l, op.getDest(), idx));
          return inside
                     ? arith::SelectOp::create(b, l, inside, fromSrc, fromDest)
                     : fromSrc;
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct PadToGather : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResultType();
    auto srcType = op.getSourceType();
    Value pad = op.getConstantPaddingValue();
    // Low pads as attributes or constant SSA values (TOSA's cumsum).
    SmallVector<int64_t> lows;
    for (OpFoldResult low : op.getMixedLowPad()) {
      std::optional<int64_t> c = getConstantIntValue(low);
      if (!c)
        return rewriter.notifyMatchFailure(op, "a dynamic low pad");
      lows.push_back(*c);
    }
    if (!type.hasStaticShape() || !srcType.hasStaticShape() || !pad)
      return rewriter.notifyMatchFailure(op, "static constant pads only");
    if (sinter::gpu_kernels::isElementwisePad(op))
      return rewriter.notifyMatchFailure(
          op, "a high pad: the elementwise kernel runs it (PadKernel.cpp)");
    Value out = gatherGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> at;
          Value inside;
          for (auto [d, low] : llvm::enumerate(lows)) {
            Value local = arith::SubIOp::create(b, l, idx[d], cIdx(b, l, low));
            int64_t size = srcType.getDimSize(d);
            at.push_back(clampIdx(b, l, local, 0, size - 1));
            Value in = inRange(b, l, local, 0, size);
            inside = inside ? arith::AndIOp::create(b, l, inside, in) : in;
          }
          Value v = tensor::ExtractOp::create(b, l, op.getSource(), at);
          return inside ? arith::SelectOp::create(b, l, inside, v, pad) : v;
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

// A scalar read on the host from a tensor a kernel computes, and used by a
// generic's region (torch-mlir's 0-d step math), is read by the kernel:
//
//   %s = tensor.extract %t[] : tensor<f32>
//   linalg.generic ... { arith.mulf %in, %s }
//   ->
//   linalg.generic ... { %s' = tensor.extract %t[] ; arith.mulf %in, %s' }
struct SinkExtractIntoRegion : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getParentOfType<linalg::LinalgOp>())
      return failure();
    bool changed = false;
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      auto owner = use.getOwner()->getParentOfType<linalg::GenericOp>();
      if (!owner || use.getOwner() == owner.getOperation())
        continue;
      Block *body = owner.getBlock();
      for (Value i : op.getIndices())
        if (!matchPattern(i, m_Constant()))
          return failure(); // Indices from the host stay there.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(body);
      IRMapping map;
      for (Value i : op.getIndices())
        map.map(i, rewriter.clone(*i.getDefiningOp())->getResult(0));
      Operation *clone = rewriter.clone(*op, map);
      rewriter.modifyOpInPlace(use.getOwner(),
                               [&] { use.set(clone->getResult(0)); });
      changed = true;
    }
    if (op->use_empty())
      rewriter.eraseOp(op);
    return success(changed);
  }
};

// A kernel's gather from a static unit-stride slice reads the slice's
// source at the slice's offsets: the slice needs no copy kernel of its own
// (the cross-entropy's target logit, gathered from the logits sliced out
// of their padded product):
//
//   %s = tensor.extract_slice %p[0, 0] [8192, 50257] [1, 1]
//   linalg.generic ... { %v = tensor.extract %s[%i, %t] }
//   ->
//   linalg.generic ... { %v = tensor.extract %p[%i + 0, %t + 0] }
struct ExtractFromSlice : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !op->getParentOfType<linalg::GenericOp>() ||
        !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != slice.getType().getRank() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return failure();
    SmallVector<Value> indices;
    for (auto [index, offset] :
         llvm::zip(op.getIndices(), slice.getStaticOffsets())) {
      Value at = index;
      if (offset != 0)
        at = arith::AddIOp::create(
            rewriter, op.getLoc(), index,
            arith::ConstantIndexOp::create(rewriter, op.getLoc(), offset));
      indices.push_back(at);
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, slice.getSource(),
                                                   indices);
    return success();
  }
};

// Scalar arithmetic between kernels, on values read from 0-d tensors
// (torch-mlir's update of its RNG seed in train mode): an artifact runs no
// host code, so it becomes a 0-d generic, whose result is read back the same
// way; chains of such ops become chains of 0-d kernels.
//
//   %s = tensor.extract %t[] : tensor<i64>
//   %n = arith.muli %s, %c : i64
//   ->
//   %g = linalg.generic ins(%t) outs(%e : tensor<i64>) { arith.muli %a, %c }
//   %n = tensor.extract %g[] : tensor<i64>
struct ScalarArithToZeroDimGeneric : RewritePattern {
  ScalarArithToZeroDimGeneric(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  /// The 0-d tensor `v` is read from, if any.
  static Value zeroDimSource(Value v) {
    auto extract = v.getDefiningOp<tensor::ExtractOp>();
    if (!extract || extract.getTensor().getType().getRank() != 0)
      return {};
    return extract.getTensor();
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op->getDialect()) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        isa<arith::ConstantOp>(op) || !isa<func::FuncOp>(op->getParentOp()))
      return failure();
    Type type = op->getResult(0).getType();
    if (!type.isIntOrFloat())
      return failure();
    SmallVector<Value> sources;
    for (Value operand : op->getOperands()) {
      if (Value t = zeroDimSource(operand)) {
        if (!llvm::is_contained(sources, t))
          sources.push_back(t);
      } else if (!matchPattern(operand, m_Constant())) {
        return failure();
      }
    }
    if (sources.empty())
      return failure();
    Location loc = op->getLoc();
    auto resultType = RankedTensorType::get({}, type);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType, ValueRange{});
    AffineMap scalar = AffineMap::get(0, 0, rewriter.getContext());
    SmallVector<AffineMap> maps(sources.size() + 1, scalar);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, sources, init, maps,
        ArrayRef<utils::IteratorType>{},
        [&](OpBuilder &b, Location l, ValueRange args) {
          IRMapping map;
          for (Value operand : op->getOperands()) {
            if (Value t = zeroDimSource(operand))
              map.map(operand, args[llvm::find(sources, t) - sources.begin()]);
            else
              map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
          }
          linalg::YieldOp::create(b, l, b.clone(*op, map)->getResult(0));
        });
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, generic.getResult(0),
                                                   ValueRange{});
    return success();
  }
};

// The only element of a 0-d tensor overwritten by a value read from another
// 0-d tensor is that tensor (torch-mlir's seed update stores back so):
//
//   %s = tensor.extract %u[] : tensor<i64>
//   %n = tensor.insert %s into %t[] : tensor<i64>   ->   %u
struct InsertIntoZeroDim : OpRewritePattern<tensor::InsertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertOp op,
                                PatternRewriter &rewriter) const override {
    auto extract = op.getScalar().getDefiningOp<tensor::ExtractOp>();
    if (op.getDest().getType().getRank() != 0 || !extract ||
        extract.getTensor().getType() != op.getDest().getType())
      return failure();
    rewriter.replaceOp(op, extract.getTensor());
    return success();
  }
};

// A slice whose result is then split into more dimensions (GPT-2's Q, K and
// V, sliced from the fused projection and split into heads) is the same
// slice of the split source, so that the kernel reading it can read the
// source at an offset (sinter-outline-cuda-kernels reads slices in place):
//
//   %s = tensor.extract_slice %x[0, 0, 768] [8, 1024, 768] [1, 1, 1]
//       : tensor<8x1024x2304xbf16> to tensor<8x1024x768xbf16>
//   %e = tensor.expand_shape %s [[0], [1], [2, 3]]
//       output_shape [8, 1024, 12, 64]
//   ->
//   %xe = tensor.expand_shape %x [[0], [1], [2, 3]]
//       output_shape [8, 1024, 36, 64]
//   %e = tensor.extract_slice %xe[0, 0, 12, 0] [8, 1024, 12, 64] [1, 1, 1, 1]
//
// A sliced dimension must split into an outer part and inner parts whose
// product divides its offset and its extent (whole rows of the inner part).
struct SliceBeforeExpand : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
    RankedTensorType outType = op.getResultType();
    if (!slice || !slice.hasUnitStride() || !outType.hasStaticShape() ||
        slice.getSourceType().getRank() != slice.getType().getRank() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
        !slice.getSourceType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a static slice");
    ArrayRef<int64_t> srcShape = slice.getSourceType().getShape();
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> out = outType.getShape();
    SmallVector<int64_t> shape, newOffsets, sizes;
    for (auto [i, group] : llvm::enumerate(op.getReassociationIndices())) {
      int64_t inner = 1;
      for (int64_t j : ArrayRef<int64_t>(group).drop_front())
        inner *= out[j];
      if (offsets[i] % inner != 0 || srcShape[i] % inner != 0)
        return rewriter.notifyMatchFailure(op, "a slice inside the inner dims");
      shape.push_back(srcShape[i] / inner);
      newOffsets.push_back(offsets[i] / inner);
      sizes.push_back(out[group.front()]);
      for (int64_t j : ArrayRef<int64_t>(group).drop_front()) {
        shape.push_back(out[j]);
        newOffsets.push_back(0);
        sizes.push_back(out[j]);
      }
    }
    auto expandedType = RankedTensorType::get(shape, outType.getElementType());
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, op.getLoc(), expandedType, slice.getSource(),
        op.getReassociationIndices());
    SmallVector<int64_t> strides(shape.size(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, outType, expanded, ValueRange{}, ValueRange{}, ValueRange{},
        newOffsets, sizes, strides);
    return success();
  }
};

// A scalar input of a fused chain read on the host from a 0-d tensor a
// kernel computes (torch-mlir's 0-d AdamW step math, captured by fusion):
// the chain reads the tensor itself, through the empty map, as it reads any
// broadcast operand. The body still receives the scalar.
//
//   %s = tensor.extract %t[] : tensor<f32>
//   sinter.fused ins(%x, %s : tensor<64x256xf32>, f32) maps [#id, ()]
//   ->
//   sinter.fused ins(%x, %t : tensor<64x256xf32>, tensor<f32>) maps [#id, ()]
struct FusedReadsZeroDimTensors : OpRewritePattern<sinter::FusedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(sinter::FusedOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<std::pair<OpOperand *, Value>> reads;
    for (OpOperand &in : op.getInputsMutable()) {
      auto extract = in.get().getDefiningOp<tensor::ExtractOp>();
      if (extract && extract.getTensor().getType().getRank() == 0)
        reads.push_back({&in, extract.getTensor()});
    }
    if (reads.empty())
      return rewriter.notifyMatchFailure(op,
                                         "no scalar input from a 0-d tensor");
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [operand, tensor] : reads)
        operand->set(tensor);
    });
    return success();
  }
};

// A constant tensor read by a sinter op or any other kernel that takes
// buffers: a kernel writes it from the kernel module's copy (the general
// kernel keeps constant tensors as globals of the module), since an artifact
// has no host data to upload. Generics read their constant inputs from the
// module directly and keep them.
//
//   %c = arith.constant dense<[[32, 1]]> : tensor<1x2xi32>
//   sinter.fused ins(%x, %c ...)
//   ->
//   %m = linalg.generic outs(%e) { tensor.extract %c[%i, %j] }
//   sinter.fused ins(%x, %m ...)
struct MaterializeConstantOperands : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!dense || dense.isSplat() || !type || !type.hasStaticShape())
      return failure();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getUses()) {
      Operation *user = use.getOwner();
      if (isa<linalg::GenericOp>(user) || isa<tensor::ExtractOp>(user) ||
          user->getParentOfType<linalg::LinalgOp>())
        continue;
      uses.push_back(&use);
    }
    if (uses.empty())
      return failure();
    rewriter.setInsertionPointAfter(op);
    Value copy = gatherGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          return tensor::ExtractOp::create(b, l, op.getResult(), idx);
        });
    for (OpOperand *use : uses)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(copy); });
    return success();
  }
};

struct TensorOpsToLinalgPass
    : public sinter::impl::TensorOpsToLinalgBase<TensorOpsToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    sinter::populateTensorOpsToLinalgPatterns(patterns);
    sinter::populateSoftmaxAnyAxisPatterns(patterns);
    // Backward ops without a tuned kernel (softmax's, attention's outside
    // the tensor-core backward): the generics of their reference form,
    // which the general path runs. The norms' backward has its kernel
    // (NormBackwardKernel.cpp).
    int64_t sm = sinter::gpu_kernels::smVersionOf(chip);
    if (sm == 0) {
      getOperation()->emitError("sinter-tensor-ops-to-linalg: chip must look "
                                "like sm_90a or sm_80, got '")
          << chip << "'";
      return signalPassFailure();
    }
    sinter::populateSoftmaxBackwardToLinalgPatterns(patterns);
    sinter::populateAttentionBackwardToLinalgPatterns(
        patterns, [sm](sinter::AttentionBackwardOp op) {
          std::string why;
          return succeeded(
              sinter::gpu_kernels::checkAttentionBackwardKernel(op, sm, why));
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void sinter::populateTensorOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConcatToGather, InsertSliceToGather, PadToGather,
           SinkExtractIntoRegion, ExtractFromSlice, FusedReadsZeroDimTensors,
           ScalarArithToZeroDimGeneric, InsertIntoZeroDim, SliceBeforeExpand,
           MaterializeConstantOperands>(patterns.getContext());
}
