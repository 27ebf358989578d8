//===- Compiler.h - Source-to-artifact compilation driver -------*- C++ -*-===//
//
// Part of the Sinter project.
//
// What `sinterc` and the C API run: parse model IR, fuse (the fusion
// pipeline, when this build has it), lower for a target and write an
// artifact directory. Diagnostics go to the context's handler, located in
// the source buffer.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_COMPILER_H
#define SINTER_TARGET_COMPILER_H

#include "mlir/Support/LLVM.h"
#include "sinter/GPU/Defaults.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace sinter {

/// What a compilation writes into the output directory.
enum class EmitKind {
  /// kernels.so and manifest.json.
  Artifact,
  /// kernels.mlir: the module lowered to the LLVM dialect.
  MLIR,
  /// kernels.ll: the optimized LLVM IR.
  LLVMIR,
  /// kernels.ptx: the kernels of a CUDA target as PTX.
  PTX,
};

struct CompileOptions {
  /// "cpu" or "cuda:sm_<arch>" (when the build has the CUDA backend).
  std::string target = "cpu";
  /// Run the fusion pipeline before lowering (when it is built).
  bool fusion = true;
  /// Let fusion replace a frontend's dropout generator by Sinter's Philox
  /// dropout (same distribution, other random bits; docs/Rationale.md).
  bool allowRngChange = false;
  EmitKind emit = EmitKind::Artifact;
  /// CUDA targets: attention tile configuration overriding the shipped
  /// table ("warps=4,mtiles=1,bn=64" or "cuda-cores"); empty: the table.
  std::string attentionConfig;
  /// CUDA targets: cache policy of the 16-byte loads/stores of data the
  /// memory-bound kernels touch once ("none", "evict-first", "no-allocate",
  /// "l2-256b", "streaming"; the pass option cache-hints).
  std::string cudaCacheHints = "none";
  /// CUDA targets: persistent variants of the softmax/norm and AdamW kernels
  /// (0 = off, 1 = a grid sized to the chip, 2 = also prefetching the next
  /// row / chunk, 3 = rows only: prefetch without keeping the weights in
  /// registers) and the blocks per SM their grids count on (0: 1024
  /// threads' worth); the pass options row-persistent, adamw-persistent and
  /// persistent-ctas.
  int64_t cudaRowPersistent = ::sinter::cuda_defaults::kRowPersistent;
  /// CUDA targets: 16-byte vectors per thread of the softmax/norm kernels
  /// (the pass option row-vectors).
  int64_t cudaRowVectors = ::sinter::cuda_defaults::kRowVectors;
  int64_t cudaAdamWPersistent = ::sinter::cuda_defaults::kAdamWPersistent;
  int64_t cudaPersistentCtas = ::sinter::cuda_defaults::kPersistentCtas;
  /// CUDA targets: SMs the persistent grids are sized for (0: by chip; the
  /// pass option sm-count).
  int64_t cudaSmCount = ::sinter::cuda_defaults::kSmCount;
  /// CUDA targets: how unfused matmuls run: "cublas" (a cuBLASLt library
  /// call with the CUDA-core kernel as its fallback) or "kernel" (the pass
  /// option matmul).
  std::string cudaMatmul = "cublas";
  /// Called after each stage ("parsing", "fusion", "lowering", "codegen",
  /// "link") with its wall time and a note ("skipped: ..." or empty).
  std::function<void(llvm::StringRef stage, double milliseconds,
                     llvm::StringRef note)>
      onStage;
};

/// Adds every dialect, interface model and LLVM IR translation that
/// compilation needs to `registry`.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Checks a target name; returns false with a message for unknown or
/// malformed targets.
bool checkTarget(llvm::StringRef target, std::string &error);

/// Compiles the main buffer of `sourceMgr` into `outDir` (created when
/// missing; "-" writes an --emit=mlir/llvm result to stdout). Errors are
/// reported through the diagnostics of `context`.
mlir::LogicalResult compileSource(llvm::SourceMgr &sourceMgr,
                                  mlir::MLIRContext &context,
                                  llvm::StringRef outDir,
                                  const CompileOptions &options);

} // namespace sinter

#endif // SINTER_TARGET_COMPILER_H
