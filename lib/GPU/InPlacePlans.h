//===- InPlacePlans.h - What kernels read and write in place -----*- C++
//-*-===//
//
// Part of the Sinter project.
//
// Before outlining, each op's kernel is told which tensors it reads or
// writes in place of the ops that made them (transposes of attention
// heads and matmul operands, chains a norm or a pad computes, slices read
// in their source, a concatenation's parts, a matmul's activation); the
// ops it reads around or computes itself join `taken` and run no kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_INPLACEPLANS_H
#define SINTER_LIB_GPU_INPLACEPLANS_H

#include "Kernels.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace sinter::gpu_kernels {

/// What kernels read and write in place of the tensors transposes make
/// (InPlaceHeads.cpp, InPlaceOperands.cpp), by op: where tensor-core
/// attention kernels find their heads, which matmul operands are read
/// transposed.
struct InPlacePlans {
  llvm::DenseMap<mlir::Operation *, AttentionHeads> heads;
  llvm::DenseMap<mlir::Operation *, MatmulOperands> matmuls;
  /// Norms that compute their input's elementwise chain, norm backwards the
  /// chain that reads their dx (NormPrologue.cpp).
  llvm::DenseMap<mlir::Operation *, FusedOp> prologues;
  llvm::DenseMap<mlir::Operation *, FusedOp> epilogues;
  /// Column sums of an epilogue's result that its norm backward adds up.
  llvm::DenseMap<mlir::Operation *, EpilogueColumnSum> epilogueSums;
  /// Pads whose kernel runs the elementwise op that produced their source.
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> padProducers;
  /// The parts of concatenations (ConcatKernel.cpp).
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<ConcatPart>> concatParts;
  /// Reductions that read a slice in its source (SlicedInputs.cpp).
  llvm::DenseMap<mlir::Operation *, SlicedInput> slicedInputs;

  const AttentionHeads *headsOf(mlir::Operation *op) const {
    auto it = heads.find(op);
    return it == heads.end() ? nullptr : &it->second;
  }
  const MatmulOperands *matmulOf(mlir::Operation *op) const {
    auto it = matmuls.find(op);
    return it == matmuls.end() ? nullptr : &it->second;
  }
  std::optional<EpilogueColumnSum> epilogueSumOf(mlir::Operation *op) const {
    auto it = epilogueSums.find(op);
    if (it == epilogueSums.end())
      return std::nullopt;
    return it->second;
  }
  const SlicedInput *slicedOf(mlir::Operation *op) const {
    auto it = slicedInputs.find(op);
    return it == slicedInputs.end() ? nullptr : &it->second;
  }
  /// Plans again for `op` on the IR as it is now: the tensors a plan names
  /// may be the results of ops outlined since it was made, replaced by
  /// their buffers (the transposes, not outlined, still stand).
  void refresh(mlir::Operation *op) {
    if (auto it = heads.find(op); it != heads.end())
      it->second =
          mlir::isa<AttentionOp>(op)
              ? planAttentionHeads(mlir::cast<AttentionOp>(op))
              : planAttentionBackwardHeads(mlir::cast<AttentionBackwardOp>(op));
    if (auto it = matmuls.find(op); it != matmuls.end())
      it->second = planMatmulOperands(mlir::cast<mlir::linalg::LinalgOp>(op));
  }
  /// Whether `use` is an operand its kernel reads around (the transpose
  /// that produced it need not run for it).
  bool readsAround(mlir::OpOperand &use) const {
    unsigned i = use.getOperandNumber();
    if (const AttentionHeads *h = headsOf(use.getOwner()))
      return llvm::is_contained(h->operandsReadInPlace, i);
    if (const MatmulOperands *m = matmulOf(use.getOwner()))
      return (i == 0 && m->transA) || (i == 1 && m->transB);
    return false;
  }
};

/// The in-place plans of `ops`: the attention ops and backwards that take
/// the tensor-core kernels (planHeads) and the plain matmuls
/// (planMatmulOperands). The transposes this makes dead join `taken`:
/// attention's O transposes, and those whose every use a kernel reads
/// around.
/// `planHeads` says where an attention op's (or backward's) kernel finds
/// its heads, if it takes the tensor cores.
InPlacePlans
planInPlace(llvm::ArrayRef<mlir::Operation *> ops, const Tuning &tuning,
            llvm::SmallPtrSetImpl<mlir::Operation *> &taken,
            llvm::function_ref<std::optional<AttentionHeads>(mlir::Operation *)>
                planHeads);

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_INPLACEPLANS_H
