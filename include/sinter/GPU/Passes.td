//===- Passes.td - Sinter's CUDA backend passes ------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_PASSES_TD
#define SINTER_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineCUDAKernels : Pass<"sinter-outline-cuda-kernels", "mlir::ModuleOp"> {
  let summary = "Turn every sinter op into a CUDA kernel and a gpu.launch_func";
  let description = [{
    Builds one `gpu.func` kernel per sinter op in a `gpu.module @sinter_kernels`
    and replaces the op in its function by host-side IR: its tensor operands
    become buffers (`bufferization.to_buffer`), its results fresh buffers
    (`memref.alloc`), and a `gpu.launch_func` runs the kernel over them.
    The kernels are written for memory-bound work: one row (or a few rows)
    per block for softmax and the norms, with the row held in registers,
    16-byte vector loads and stores, f32 arithmetic, warp shuffles and a
    shared-memory reduction across warps; `sinter.fused` chains are one pass
    over the iteration space, each thread handling one 16-byte vector;
    `sinter.adamw` is one multi-tensor kernel.

    Before:

    ```mlir
    %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>)
        : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
    ```

    After:

    ```mlir
    %xb = bufferization.to_buffer %x read_only : ...
    %wb = bufferization.to_buffer %w read_only : ...
    %yb = memref.alloc() : memref<16x4096xbf16>
    gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c8, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%xb : ..., %wb : ..., %yb : ...)
    %y = bufferization.to_tensor %yb restrict writable : ...
    ```

    Ops that no fusion pattern absorbed run too: linalg.matmul and
    linalg.batch_matmul through a simple shared-memory-tiled kernel on CUDA
    cores (f32 accumulation), and elementwise linalg ops (generics with
    parallel loops, and named ops such as add, transpose, fill and broadcast,
    which are generalized first) through the same one-pass kernel as
    sinter.fused.

    Shapes must be static. An op the backend cannot run yet is reported as
    an error at its location.
  }];
  let options = [
    Option<"rowVectors", "row-vectors", "int64_t", /*default=*/"4",
           "16-byte vectors each thread of a softmax/norm kernel keeps in "
           "flight (sets the lanes per row)">,
    Option<"fusedVectors", "fused-vectors", "int64_t", /*default=*/"2",
           "16-byte vectors per thread in a sinter.fused kernel">,
    Option<"rowBlock", "row-block", "int64_t", /*default=*/"256",
           "threads per block of a softmax/norm kernel (short rows share a "
           "block)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::gpu::GPUDialect", "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

#endif // SINTER_GPU_PASSES_TD
