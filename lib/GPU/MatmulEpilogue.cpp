//===- MatmulEpilogue.cpp - Bias epilogues taken into matmuls -------------===//
//
// Part of the Sinter project.
//
// torch-mlir lowers every nn.Linear / Conv1D with a bias of a bf16 model to
// an f32-accumulating matmul followed by the bias add and the rounding to
// bf16, which fusion makes one elementwise chain. Run apart, the matmul
// writes its f32 product and the chain reads it back: three bytes of
// traffic per byte of the result that matters. The matmul takes the chain
// as its epilogue instead -- cuBLASLt's bias epilogue (D = A x B + bias,
// rounded once to D's type) or the fallback kernel's equivalent -- which
// computes the same values: one f32 sum per element, one rounding.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace sinter;

/// Whether `init` is a zero fill (the matmul computes A x B alone).
static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  return fill && matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
         value.getValue().isZero();
}

/// The 1-D tensor of narrow floats that `bias` is the exact f32 widening of
/// (an elementwise chain that only extends it, as fusion leaves GPT-2's
/// biases), or null.
static Value narrowSourceOf(Value bias) {
  auto widen = bias.getDefiningOp<FusedOp>();
  if (!widen || widen.getInputs().size() != 1 || widen->getNumResults() != 1)
    return {};
  Value source = widen.getInputs()[0];
  auto type = dyn_cast<RankedTensorType>(source.getType());
  Block &body = widen.getBody().front();
  auto ext = dyn_cast<arith::ExtFOp>(body.front());
  if (!type || type.getRank() != 1 || body.getOperations().size() != 2 ||
      !ext || ext.getIn() != body.getArgument(0) || !ext.getType().isF32() ||
      body.getTerminator()->getOperand(0) != ext.getResult() ||
      !cast<AffineMapAttr>(widen.getIndexingMaps()[0]).getValue().isIdentity())
    return {};
  return source;
}

void gpu_kernels::foldBiasWidenings(ModuleOp module) {
  SmallVector<FusedOp> chains;
  module.walk([&](FusedOp chain) {
    if (chain.getInputs().size() == 2 && narrowSourceOf(chain.getInputs()[1]))
      chains.push_back(chain);
  });
  for (FusedOp chain : chains) {
    OpOperand &operand = chain.getInputsMutable()[1];
    auto widen = operand.get().getDefiningOp<FusedOp>();
    Value narrow = narrowSourceOf(operand.get());
    Block &body = chain.getBody().front();
    BlockArgument arg = body.getArgument(1);
    // The chain reads the narrow vector and widens each element itself.
    operand.set(narrow);
    arg.setType(getElementTypeOrSelf(narrow.getType()));
    OpBuilder b(chain.getContext());
    b.setInsertionPointToStart(&body);
    auto ext = arith::ExtFOp::create(b, chain.getLoc(), b.getF32Type(), arg);
    arg.replaceAllUsesExcept(ext.getResult(), ext);
    if (widen->use_empty())
      widen->erase();
  }
}

/// Whether `chain` only rounds its one identity-mapped f32 input to a
/// narrower float: `sinter.fused ins(%acc) { truncf; yield }`.
static bool isRounding(FusedOp chain) {
  Block &body = chain.getBody().front();
  auto trunc = dyn_cast<arith::TruncFOp>(body.front());
  return chain.getInputs().size() == 1 && chain->getNumResults() == 1 &&
         body.getOperations().size() == 2 && trunc &&
         trunc.getIn() == body.getArgument(0) &&
         body.getArgument(0).getType().isF32() &&
         body.getTerminator()->getOperand(0) == trunc.getResult() &&
         cast<AffineMapAttr>(chain.getIndexingMaps()[0])
             .getValue()
             .isIdentity();
}

/// The narrow type every use of `arg` rounds it to (all uses are
/// arith.truncf to one type), or null.
static Type roundedOnlyTo(BlockArgument arg) {
  Type narrow;
  for (Operation *user : arg.getUsers()) {
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    if (!trunc || (narrow && trunc.getType() != narrow))
      return Type();
    narrow = trunc.getType();
  }
  return narrow;
}

/// The block argument through which the op using `use` reads it: a chain's
/// or a generic's input (the same tensor read through the same map either
/// way), or null.
static BlockArgument roundedArgument(OpOperand &use) {
  if (auto chain = dyn_cast<FusedOp>(use.getOwner()))
    return chain.getBody().front().getArgument(use.getOperandNumber());
  auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!generic || !generic.isDpsInput(&use))
    return BlockArgument();
  return generic.getMatchingBlockArgument(&use);
}

namespace {
/// The uses of a tensor that only round it, and the type they round to.
struct RoundingUses {
  Type narrow;
  SmallVector<std::pair<OpOperand *, BlockArgument>> uses;
};
} // namespace

/// The uses of `v` when every one is an input of a chain or a generic (a
/// reduction) whose block argument is only rounded, to one type for all.
static std::optional<RoundingUses> roundingUsesOf(Value v) {
  RoundingUses r;
  for (OpOperand &use : v.getUses()) {
    BlockArgument arg = roundedArgument(use);
    Type t = arg ? roundedOnlyTo(arg) : Type();
    if (!t || (r.narrow && t != r.narrow))
      return std::nullopt;
    r.narrow = t;
    r.uses.push_back({&use, arg});
  }
  if (!r.narrow)
    return std::nullopt;
  return r;
}

/// `sinter.fused ins(%acc) { truncf }` to `narrow`, created after `acc`'s
/// producer.
static Value createRounding(Value acc, Type narrow) {
  Operation *def = acc.getDefiningOp();
  Location loc = def->getLoc();
  OpBuilder b(def->getContext());
  b.setInsertionPointAfter(def);
  auto accType = cast<RankedTensorType>(acc.getType());
  AffineMap id = b.getMultiDimIdentityMap(accType.getRank());
  auto rounding =
      FusedOp::create(b, loc, TypeRange{accType.clone(narrow)}, ValueRange{acc},
                      b.getArrayAttr({AffineMapAttr::get(id)}));
  Block *body = b.createBlock(&rounding.getBody(), {}, {b.getF32Type()}, {loc});
  b.setInsertionPointToStart(body);
  Value t = arith::TruncFOp::create(b, loc, narrow, body->getArgument(0));
  YieldOp::create(b, loc, t);
  return rounding->getResult(0);
}

/// Whether `chain` yields its one input unchanged (a chain that only
/// rounded, once its rounding moved out).
static bool isCopy(FusedOp chain) {
  Block &body = chain.getBody().front();
  return chain.getInputs().size() == 1 && chain->getNumResults() == 1 &&
         body.getOperations().size() == 1 &&
         body.getTerminator()->getOperand(0) == body.getArgument(0) &&
         chain.getInputs()[0].getType() == chain->getResult(0).getType() &&
         cast<AffineMapAttr>(chain.getIndexingMaps()[0])
             .getValue()
             .isIdentity();
}

/// The uses read `rounded` instead, their truncations becoming its element;
/// a chain left copying its input goes.
static void readRounded(const RoundingUses &r, Value rounded) {
  for (auto [use, arg] : r.uses) {
    Operation *user = use->getOwner();
    use->set(rounded);
    arg.setType(r.narrow);
    for (Operation *trunc : llvm::make_early_inc_range(arg.getUsers())) {
      trunc->getResult(0).replaceAllUsesWith(arg);
      trunc->erase();
    }
    if (auto chain = dyn_cast<FusedOp>(user); chain && isCopy(chain)) {
      chain->getResult(0).replaceAllUsesWith(rounded);
      chain->erase();
    }
  }
}

/// Whether `t` is a float type narrower than f32 (bf16, f16, f8...).
static bool isNarrowerThanF32(Type t) {
  auto f = dyn_cast<FloatType>(t);
  return f && f.getWidth() < 32;
}

/// Whether `mm` is a 2-D matmul the epilogues take: default maps, a zero
/// fill as its init, an f32 product.
static bool isPlainZeroFilledMatmul(linalg::MatmulOp mm) {
  return !mm.hasUserDefinedMaps() && mm.hasPureTensorSemantics() &&
         isZeroFill(mm.getDpsInits()[0]) &&
         getElementTypeOrSelf(mm->getResult(0).getType()).isF32();
}

bool gpu_kernels::readsRowsAndBias(FusedOp chain) {
  if (chain.getInputs().size() != 2)
    return false;
  MLIRContext *ctx = chain.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  auto map = [&](unsigned i) {
    return cast<AffineMapAttr>(chain.getIndexingMaps()[i]).getValue();
  };
  return map(0) == AffineMap::get(2, 0, {d0, d1}, ctx) &&
         map(1) == AffineMap::get(2, 0, {d1}, ctx);
}

// The chain of torch-mlir's bf16 addmm, its product rounded before the bias
// is added in bf16 (two roundings):
//
//   %acc = linalg.matmul ins(%a, %b) outs(%zero_fill : tensor<MxNxf32>)
//   %y = sinter.fused ins(%acc, %bias : tensor<MxNxf32>, tensor<Nxbf16>)
//        maps [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] {
//   ^bb0(%x: f32, %c: bf16):
//     %r = arith.truncf %x : f32 to bf16
//     %s = arith.addf %c, %r : bf16          (either order)
//     sinter.yield %s : bf16
//   } -> tensor<MxNxbf16>
//
// becomes the one-rounding form matchMatmulEpilogue takes:
//
//   ^bb0(%x: f32, %c: bf16):
//     %c32 = arith.extf %c : bf16 to f32
//     %s = arith.addf %x, %c32 : f32
//     %r = arith.truncf %s : f32 to bf16
//     sinter.yield %r : bf16
void gpu_kernels::roundBiasOnce(ModuleOp module) {
  SmallVector<FusedOp> chains;
  module.walk([&](FusedOp chain) {
    if (chain->getNumResults() != 1 || !readsRowsAndBias(chain))
      return;
    auto mm = chain.getInputs()[0].getDefiningOp<linalg::MatmulOp>();
    if (!mm || !isPlainZeroFilledMatmul(mm) || !mm->hasOneUse())
      return;
    Block &body = chain.getBody().front();
    BlockArgument x = body.getArgument(0), c = body.getArgument(1);
    auto ops = body.without_terminator();
    if (std::distance(ops.begin(), ops.end()) != 2 || !x.hasOneUse())
      return;
    auto trunc = dyn_cast<arith::TruncFOp>(*ops.begin());
    auto add = dyn_cast<arith::AddFOp>(*std::next(ops.begin()));
    if (!trunc || !add || trunc.getIn() != x ||
        !isNarrowerThanF32(c.getType()) || trunc.getType() != c.getType() ||
        !llvm::is_contained(add->getOperands(), trunc.getResult()) ||
        !llvm::is_contained(add->getOperands(), Value(c)) ||
        body.getTerminator()->getOperand(0) != add.getResult())
      return;
    chains.push_back(chain);
  });
  for (FusedOp chain : chains) {
    Block &body = chain.getBody().front();
    Operation *yield = body.getTerminator();
    auto add = cast<arith::AddFOp>(yield->getOperand(0).getDefiningOp());
    auto trunc = cast<arith::TruncFOp>(body.front());
    Location loc = add.getLoc();
    OpBuilder b(yield);
    Value c32 =
        arith::ExtFOp::create(b, loc, b.getF32Type(), body.getArgument(1));
    Value sum = arith::AddFOp::create(b, loc, body.getArgument(0), c32,
                                      add.getFastmathAttr());
    Value rounded = arith::TruncFOp::create(b, loc, trunc.getType(), sum);
    yield->setOperand(0, rounded);
    add->erase();
    trunc->erase();
  }
}

void gpu_kernels::splitMatmulRoundings(ModuleOp module) {
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp mm) {
    if (isPlainZeroFilledMatmul(mm) && !mm->use_empty())
      matmuls.push_back(mm);
  });
  for (linalg::MatmulOp mm : matmuls) {
    Value acc = mm->getResult(0);
    if (mm->hasOneUse())
      if (auto only = dyn_cast<FusedOp>(*mm->getUsers().begin());
          only && isRounding(only))
        continue; // already the rounding epilogue alone
    // A matmul padded for alignment (PadMatmuls.cpp) is read through the
    // slice that drops the padding: round the padded product, slice that.
    auto slice = mm->hasOneUse()
                     ? dyn_cast<tensor::ExtractSliceOp>(*mm->getUsers().begin())
                     : nullptr;
    Value read = slice ? slice.getResult() : acc;
    std::optional<RoundingUses> r = roundingUsesOf(read);
    if (!r)
      continue;
    Value rounded = createRounding(acc, r->narrow);
    if (slice) {
      OpBuilder b(slice);
      b.setInsertionPointAfter(rounded.getDefiningOp());
      rounded = tensor::ExtractSliceOp::create(
          b, slice.getLoc(), rounded, slice.getMixedOffsets(),
          slice.getMixedSizes(), slice.getMixedStrides());
    }
    readRounded(*r, rounded);
    if (slice && slice->use_empty())
      slice->erase();
  }
}

// The chain a 2-D f32 matmul's only use must be:
//
//   %acc = linalg.matmul ins(%a, %b : tensor<MxKxbf16>, tensor<KxNxbf16>)
//          outs(%zero_fill : tensor<MxNxf32>)
//   %y = sinter.fused ins(%acc, %bias : tensor<MxNxf32>, tensor<Nxbf16>)
//        maps [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] {
//   ^bb0(%x: f32, %c: bf16):
//     %c32 = arith.extf %c : bf16 to f32    (none for an f32 bias)
//     %s = arith.addf %x, %c32 : f32        (either order)
//     %r = arith.truncf %s : f32 to bf16    (or none: an f32 result)
//     sinter.yield %r : bf16
//   } -> tensor<MxNxbf16>
//
// where the bias has the result's element type (cuBLASLt's bias is of D's
// type; foldBiasWidenings moved GPT-2's separate widening into the chain).
std::optional<gpu_kernels::MatmulEpilogue>
gpu_kernels::matchMatmulEpilogue(linalg::LinalgOp op) {
  auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
  if (!mm || mm.hasUserDefinedMaps() || !op.hasPureTensorSemantics() ||
      !mm->hasOneUse() || !isZeroFill(op.getDpsInits()[0]))
    return std::nullopt;
  auto accType = cast<RankedTensorType>(mm->getResult(0).getType());
  if (!accType.getElementType().isF32())
    return std::nullopt;
  auto fused = dyn_cast<FusedOp>(*mm->getUsers().begin());
  if (!fused || fused->getNumResults() != 1 || fused.getInputs().empty() ||
      fused.getInputs()[0] != mm->getResult(0))
    return std::nullopt;
  if (fused.getInputs().size() == 1)
    return isRounding(fused) ? std::optional<MatmulEpilogue>(
                                   MatmulEpilogue{Value(), fused->getResult(0)})
                             : std::nullopt;
  if (fused.getInputs().size() != 2)
    return std::nullopt;
  Value bias = fused.getInputs()[1];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  Type resultType = getElementTypeOrSelf(fused->getResult(0).getType());
  int64_t n = accType.getDimSize(1);
  MLIRContext *ctx = op->getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  SmallVector<AffineMap> maps =
      llvm::map_to_vector(fused.getIndexingMaps(), [](Attribute a) {
        return cast<AffineMapAttr>(a).getValue();
      });
  if (!biasType || biasType.getShape() != ArrayRef<int64_t>{n} ||
      biasType.getElementType() != resultType ||
      maps[0] != AffineMap::get(2, 0, {d0, d1}, ctx) ||
      maps[1] != AffineMap::get(2, 0, {d1}, ctx))
    return std::nullopt;
  Block &body = fused.getBody().front();
  auto ops = body.without_terminator();
  auto it = ops.begin();
  Value biasValue = body.getArgument(1);
  if (it != ops.end())
    if (auto ext = dyn_cast<arith::ExtFOp>(*it);
        ext && ext.getIn() == biasValue && ext.getType().isF32()) {
      biasValue = ext.getResult();
      ++it;
    }
  if (it == ops.end() || !getElementTypeOrSelf(biasValue.getType()).isF32())
    return std::nullopt;
  auto add = dyn_cast<arith::AddFOp>(*it++);
  if (!add || !llvm::is_contained(add->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(add->getOperands(), biasValue))
    return std::nullopt;
  Value out = add.getResult();
  if (it != ops.end()) {
    auto trunc = dyn_cast<arith::TruncFOp>(*it++);
    if (!trunc || trunc.getIn() != out || it != ops.end() ||
        trunc.getType() != resultType)
      return std::nullopt;
    out = trunc.getResult();
  }
  if (body.getTerminator()->getOperand(0) != out)
    return std::nullopt;
  return MatmulEpilogue{bias, fused->getResult(0)};
}
