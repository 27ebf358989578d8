//===- RowCommon.h - What the row kernels share -----------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The thread-to-row mapping of the row kernels (RowKernels.cpp: softmax and
// the norms; NormBackwardKernel.cpp: their backward): which lanes hold which
// 16-byte vectors of a row, and the kernel skeleton with its two
// shared-memory reduction buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ROWCOMMON_H
#define SINTER_LIB_GPU_ROWCOMMON_H

#include "Kernels.h"

#include <tuple>

namespace sinter::gpu_kernels {

/// What is the same for every row a thread handles (persistent kernels):
/// its lane in the row, its row in the block, the element index of each of
/// its vectors and whether that vector lies inside the row (null: always).
struct RowLanes {
  mlir::Value lane, rowInBlock;
  llvm::SmallVector<mlir::Value> colIndex, inRow;
};

/// The per-thread view of one row: indices and predicates of its vectors.
struct RowThread {
  mlir::Value lane, rowInBlock, row, rowValid;
  llvm::SmallVector<mlir::Value> colIndex; // element index in the row
  llvm::SmallVector<mlir::Value> pred;     // null when always in bounds
};

RowLanes setupLanes(KernelBuilder &kb, const RowConfig &c);

/// The thread's view of row group `group`. Rows are checked against the row
/// count when the groups do not divide it, and always with `check` (a group
/// that may lie past the last one).
RowThread rowOf(KernelBuilder &kb, const RowConfig &c, const RowLanes &l,
                mlir::Value group, bool check);

/// The normalized rank of a LayerNorm or RMSNorm op, forward or backward:
/// how many trailing dimensions make a row.
int64_t normalizedRankOf(mlir::Operation *norm);

/// Rows and columns of `type` when its trailing `rowRank` dimensions make a
/// row.
std::pair<int64_t, int64_t> rowsAndColumns(mlir::RankedTensorType type,
                                           int64_t rowRank);

/// The index of the first element of `row`.
mlir::Value rowBase(KernelBuilder &kb, const RowConfig &c, mlir::Value row);

/// Creates the kernel of a row op: arguments are its operands then its
/// results, two shared-memory reduction buffers (two slots per warp in
/// persistent kernels); positions `b` in the body. A persistent grid is
/// sized again by the runtime for the device unless `runtimeSizedGrid` is
/// false (a kernel whose scratch depends on the grid). `results` and
/// `operands`, when given, replace the op's results and operands as the
/// kernel's outputs and inputs.
std::tuple<KernelLaunch, mlir::Value, mlir::Value>
startRowKernel(mlir::ImplicitLocOpBuilder &b, mlir::Operation *op,
               const RowConfig &c, mlir::gpu::GPUModuleOp module,
               llvm::StringRef name, bool runtimeSizedGrid = true,
               llvm::ArrayRef<mlir::Value> results = {},
               llvm::ArrayRef<mlir::Value> operands = {});

/// An elementwise chain a row kernel computes per vector of its rows (a
/// norm's prologue, a norm backward's epilogue: NormPrologue.cpp): its body
/// cloned per element as the elementwise kernel runs it (the same ops on
/// the same element types, so the same roundings).
struct ChainEvaluator {
  FusedOp chain;
  /// cloneConstantsAbove's map of the body's constants into the kernel.
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> constants;
  /// As the elementwise kernel: tanh's approximation for bf16 results.
  bool fastTanh = false;

  /// Clones the constants the body reads from above into the kernel at
  /// the builder's position.
  ChainEvaluator(mlir::OpBuilder &b, FusedOp chain);
  /// The yielded values, as vectors of their types, for `ins` (one
  /// `vec`-wide vector per body argument, in its type).
  llvm::SmallVector<mlir::Value> evaluate(mlir::ImplicitLocOpBuilder &b,
                                          mlir::ValueRange ins,
                                          int64_t vec) const;
};

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_ROWCOMMON_H
