//===- InPlaceOperands.cpp - Matmul operands read around transposes -------===//
//
// Part of the Sinter project.
//
// torch-mlir lowers nn.Linear to a transpose of the weight and a matmul,
// and AOTAutograd's weight gradients to a transpose of the output gradient
// and a matmul; after the outliner's generalization of named ops:
//
//   %wt = linalg.generic {indexing_maps = [(d0, d1) -> (d1, d0),
//                                          (d0, d1) -> (d0, d1)]}
//         ins(%w : tensor<NxKxbf16>) outs(%e : tensor<KxNxbf16>) {
//           ^bb0(%in, %out): linalg.yield %in }
//   %y = linalg.matmul ins(%x, %wt : tensor<MxKxbf16>, tensor<KxNxbf16>)
//        outs(%zero : tensor<MxNxf32>)
//
// (and batch_matmul's (d0, d2, d1)). Each transpose would be a kernel
// moving its whole tensor twice -- the [8192, 50257] logits gradient of a
// GPT-2 step alone is 1.6 GB of traffic. cuBLASLt reads either operand
// transposed (CUBLAS_OP_T) and the fallback kernel indexes it so, so the
// matmul reads the transpose's input in place and the transpose goes when
// nothing else reads it.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

bool sinter::gpu_kernels::isTransposeCopy(linalg::GenericOp t,
                                          ArrayRef<unsigned> permutation) {
  unsigned rank = permutation.size();
  if (!t || !t.hasPureTensorSemantics() || t.getNumDpsInputs() != 1 ||
      t.getNumDpsInits() != 1 || t.getNumLoops() != rank ||
      t.getNumParallelLoops() != rank)
    return false;
  AffineMap swapped = AffineMap::getPermutationMap(permutation, t.getContext());
  if (t.getMatchingIndexingMap(t.getDpsInputOperand(0)) != swapped ||
      !t.getMatchingIndexingMap(t.getDpsInitOperand(0)).isIdentity())
    return false;
  Block &body = t.getRegion().front();
  return body.getOperations().size() == 1 &&
         body.getTerminator()->getOperand(0) == body.getArgument(0);
}

/// Whether rows of `elements` elements of `t` are cuBLASLt-aligned.
static bool alignedRows(int64_t elements, Type t) {
  return elements * std::max<unsigned>(1, t.getIntOrFloatBitWidth() / 8) %
             kLibraryGemmRowAlignmentBytes ==
         0;
}

/// The input of `operand`'s transpose of its last two dimensions, or null.
/// Not when the transpose's copy would have aligned rows and its input has
/// not (a vocabulary-wide logits gradient the matmul was not padded for):
/// cuBLASLt's aligned kernels then gain more than the copy costs.
static Value transposedSource(Value operand, unsigned rank) {
  auto t = operand.getDefiningOp<linalg::GenericOp>();
  SmallVector<unsigned> swap = {1, 0};
  if (rank == 3)
    swap = {0, 2, 1};
  if (!isTransposeCopy(t, swap))
    return {};
  Value source = t.getDpsInputs()[0];
  auto stored = cast<RankedTensorType>(source.getType());
  auto copy = cast<RankedTensorType>(operand.getType());
  if (!alignedRows(stored.getShape().back(), stored.getElementType()) &&
      alignedRows(copy.getShape().back(), copy.getElementType()))
    return {};
  return source;
}

MatmulOperands sinter::gpu_kernels::planMatmulOperands(linalg::LinalgOp op) {
  MatmulOperands plan;
  plan.a = op.getDpsInputs()[0];
  plan.b = op.getDpsInputs()[1];
  unsigned rank = cast<RankedTensorType>(plan.a.getType()).getRank();
  for (auto [value, trans] :
       {std::pair{&plan.a, &plan.transA}, std::pair{&plan.b, &plan.transB}}) {
    Value source = transposedSource(*value, rank);
    if (!source)
      continue;
    if (!llvm::is_contained(plan.readTransposes, value->getDefiningOp()))
      plan.readTransposes.push_back(value->getDefiningOp());
    *value = source;
    *trans = true;
  }
  return plan;
}
