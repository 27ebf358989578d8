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

// The chain a 2-D f32 matmul's only use must be:
//
//   %acc = linalg.matmul ins(%a, %b : tensor<MxKxbf16>, tensor<KxNxbf16>)
//          outs(%zero_fill : tensor<MxNxf32>)
//   %y = sinter.fused ins(%acc, %bias : tensor<MxNxf32>, tensor<Nxf32>)
//        maps [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] {
//   ^bb0(%x: f32, %c: f32):
//     %s = arith.addf %x, %c : f32          (either order)
//     %r = arith.truncf %s : f32 to bf16    (or none: an f32 result)
//     sinter.yield %r : bf16
//   } -> tensor<MxNxbf16>
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
  if (!fused || fused.getInputs().size() != 2 ||
      fused->getNumResults() != 1 || fused.getInputs()[0] != mm->getResult(0))
    return std::nullopt;
  Value bias = fused.getInputs()[1];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  int64_t n = accType.getDimSize(1);
  MLIRContext *ctx = op->getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  SmallVector<AffineMap> maps = llvm::map_to_vector(
      fused.getIndexingMaps(),
      [](Attribute a) { return cast<AffineMapAttr>(a).getValue(); });
  if (!biasType || biasType.getShape() != ArrayRef<int64_t>{n} ||
      !biasType.getElementType().isF32() ||
      maps[0] != AffineMap::get(2, 0, {d0, d1}, ctx) ||
      maps[1] != AffineMap::get(2, 0, {d1}, ctx))
    return std::nullopt;
  Block &body = fused.getBody().front();
  auto ops = body.without_terminator();
  auto it = ops.begin();
  if (it == ops.end())
    return std::nullopt;
  auto add = dyn_cast<arith::AddFOp>(*it++);
  if (!add || !llvm::is_contained(add->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(add->getOperands(), body.getArgument(1)))
    return std::nullopt;
  Value out = add.getResult();
  if (it != ops.end()) {
    auto trunc = dyn_cast<arith::TruncFOp>(*it++);
    if (!trunc || trunc.getIn() != out || it != ops.end() ||
        !(trunc.getType().isBF16() || trunc.getType().isF16()))
      return std::nullopt;
    out = trunc.getResult();
  }
  if (body.getTerminator()->getOperand(0) != out)
    return std::nullopt;
  return MatmulEpilogue{bias, fused->getResult(0)};
}
