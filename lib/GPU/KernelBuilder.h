//===- KernelBuilder.h - Helpers to write CUDA kernels in MLIR --*- C++ -*-===//
//
// Part of the Sinter project.
//
// Small building blocks shared by the kernel generators: constants, thread
// and block ids, predicated 16-byte vector loads/stores that convert to and
// from f32, and reductions across a group of lanes (warp shuffles, then
// shared memory across warps).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_KERNELBUILDER_H
#define SINTER_LIB_GPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace sinter::gpu_kernels {

enum class ReduceKind { Sum, Max };

/// Creates the kernel `name` in `module` with the given arguments and block
/// size, and positions `b` at the start of its body (before gpu.return).
mlir::gpu::GPUFuncOp createKernel(mlir::ImplicitLocOpBuilder &b,
                                  mlir::gpu::GPUModuleOp module,
                                  llvm::StringRef name,
                                  mlir::TypeRange argTypes, int64_t blockSize);

class KernelBuilder {
public:
  explicit KernelBuilder(mlir::ImplicitLocOpBuilder &b) : b(b) {}

  mlir::ImplicitLocOpBuilder &builder() { return b; }
  mlir::Value idx(int64_t v);
  mlir::Value i32(int32_t v);
  mlir::Value f32(double v);
  mlir::Value threadId();
  mlir::Value blockId();

  /// Views a statically shaped memref as 1-D.
  mlir::Value flatten(mlir::Value memref);

  /// Loads `width` consecutive elements of the 1-D `memref` at `index` as a
  /// vector<width x f32> (converting from the element type); yields `fill`
  /// splatted when `pred` is false (pred may be null: unconditional). The
  /// load is aligned to its size when `aligned`.
  mlir::Value loadF32(mlir::Value memref, mlir::Value index, int64_t width,
                      mlir::Value pred, double fill = 0.0, bool aligned = true);
  /// Converts the vector<width x f32> `value` to the element type of the 1-D
  /// `memref` and stores it at `index` when `pred` holds (pred may be null).
  void storeF32(mlir::Value memref, mlir::Value index, mlir::Value value,
                mlir::Value pred, bool aligned = true);

  /// Reduces `value` (f32) across the `groupSize` consecutive lanes (a power
  /// of two) that share `groupIndex`; every lane gets the result. Groups of
  /// more than 32 lanes go through `smem`, a workgroup buffer with at least
  /// (blockSize / 32) f32 slots that no other reduction uses. Every thread of
  /// the block must call this (it contains shuffles and barriers).
  mlir::Value groupReduce(mlir::Value value, ReduceKind kind, int64_t groupSize,
                          mlir::Value lane, mlir::Value groupIndex,
                          mlir::Value smem);

  mlir::Value combine(ReduceKind kind, mlir::Value a, mlir::Value b);
  /// Reduces the lanes of a vector<N x f32> to an f32.
  mlir::Value reduceVector(ReduceKind kind, mlir::Value vec);
  mlir::Value splat(mlir::Value scalar, int64_t width);

private:
  mlir::ImplicitLocOpBuilder &b;
};

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_KERNELBUILDER_H
