//===- Kernels.h - CUDA kernel generators for sinter ops --------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_KERNELS_H
#define SINTER_LIB_GPU_KERNELS_H

#include "KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace sinter::gpu_kernels {

/// A generated kernel and how to launch it: the kernel's arguments are the
/// buffers (or scalars) of `operands`, then fresh buffers for `results`.
/// `inPlace` lists results that the kernel writes into the buffer of one of
/// its operands (by kernel argument index) instead of a fresh buffer.
struct KernelLaunch {
  mlir::gpu::GPUFuncOp kernel;
  int64_t grid = 1;
  int64_t block = 1;
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Value> results;
  llvm::SmallVector<std::pair<mlir::Value, unsigned>> inPlace;
};

/// Most tensors one AdamW launch updates (4 pointers each must fit the
/// kernel parameter space).
constexpr unsigned kTensorsPerLaunch = 32;

/// Kernel argument types of `launch`: tensors become identity-layout
/// memrefs, scalars stay scalars.
llvm::SmallVector<mlir::Type> bufferTypes(const KernelLaunch &launch);

/// Tile parameters of the generated kernels (pass options).
struct Tuning {
  int64_t rowVectors = 4;   // 16-byte vectors per thread in row kernels
  int64_t fusedVectors = 2; // 16-byte vectors per thread in fused kernels
  int64_t rowBlock = 256;   // threads per block in row kernels (rows share)
};

/// How a row kernel maps rows of `cols` elements onto threads.
struct RowConfig {
  int64_t rows, cols;
  int64_t vec;           // elements per vector access (16 bytes when possible)
  int64_t nvec;          // vectors per row
  int64_t threadsPerRow; // power of two
  int64_t perThread;     // vectors held in registers by each thread
  int64_t rowsPerBlock;
  int64_t block, grid;
};
mlir::FailureOr<RowConfig> chooseRowConfig(mlir::Operation *op, int64_t rows,
                                           int64_t cols, mlir::Type elt,
                                           const Tuning &tuning);

mlir::FailureOr<KernelLaunch> buildNormKernel(mlir::Operation *op,
                                              mlir::gpu::GPUModuleOp module,
                                              llvm::StringRef name,
                                              const Tuning &tuning);
mlir::FailureOr<KernelLaunch> buildSoftmaxKernel(SoftmaxOp op,
                                                 mlir::gpu::GPUModuleOp module,
                                                 llvm::StringRef name,
                                                 const Tuning &tuning);
mlir::FailureOr<KernelLaunch>
buildAttentionKernel(AttentionOp op, mlir::gpu::GPUModuleOp module,
                     llvm::StringRef name);
mlir::FailureOr<llvm::SmallVector<KernelLaunch>>
buildAdamWKernels(AdamWOp op, mlir::gpu::GPUModuleOp module,
                  llvm::StringRef baseName);
/// Unfused linalg.matmul / linalg.batch_matmul on CUDA cores (f32
/// accumulation, 64x64 tiles through shared memory).
mlir::FailureOr<KernelLaunch> buildMatmulKernel(mlir::linalg::LinalgOp op,
                                                mlir::gpu::GPUModuleOp module,
                                                llvm::StringRef name);

/// One pass over the iteration space of `results` (all of one shape): the
/// body's arguments are the elements of `inputs` (by `inputMaps`, projected
/// permutations), its terminator's operands the elements of `results`.
/// Serves sinter.fused, unfused elementwise linalg.generic ops and slices:
/// `inputOffsets[i]`, when given, is a constant start added to input i's
/// indices (tensor.extract_slice).
mlir::FailureOr<KernelLaunch> buildElementwiseKernel(
    mlir::Operation *op, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::AffineMap> inputMaps, mlir::Block &body,
    mlir::ValueRange results, mlir::gpu::GPUModuleOp module,
    llvm::StringRef name, const Tuning &tuning,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> inputOffsets = {});
mlir::FailureOr<KernelLaunch> buildFusedKernel(FusedOp op,
                                               mlir::gpu::GPUModuleOp module,
                                               llvm::StringRef name,
                                               const Tuning &tuning);

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_KERNELS_H
