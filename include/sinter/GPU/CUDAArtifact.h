//===- CUDAArtifact.h - Compile a module into a CUDA artifact ---*- C++ -*-===//
//
// Part of the Sinter project.
//
// A CUDA artifact is a directory that the driver-only runtime
// (lib/Runtime, include/sinter-c/Runtime.h) loads without MLIR:
//
//   manifest.json   functions, their arguments (role, dtype, shape), the
//                   temporary buffers and the ordered launches: kernels
//                   (kernel, grid, block, shared memory, arguments) and
//                   library calls (cuBLASLt GEMMs with a fallback kernel);
//                   docs/Manifest.md describes every field
//   kernels.cubin   the kernels for the chosen chip (through ptxas)
//   kernels.ptx     the same kernels as PTX, for inspection and JIT
//   SHA256SUMS      the SHA-256 of the three, checked by the runtime
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_CUDAARTIFACT_H
#define SINTER_GPU_CUDAARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "sinter/GPU/Passes.h"
#include "sinter/Pipelines/Stages.h"
#include "llvm/ADT/StringMap.h"

namespace sinter {

/// The kernels of a CUDA artifact, for the chip and as PTX. The manifest's
/// format and keys are sinter/Artifact/Manifest.h's.
constexpr char kCUDACubinFile[] = "kernels.cubin";
constexpr char kCUDAPTXFile[] = "kernels.ptx";

/// The discardable attribute of a gpu.launch_func whose kernel is the
/// fallback of a library call: a dictionary with `kind` ("cublas_gemm"),
/// `m`, `n`, `k`, `batch` and the kernel argument indices of the operands
/// `a`, `b`, `c` (the result) and, when C starts from its initial value
/// instead of zero, `c_init`. The artifact turns it into a "cublas_gemm"
/// launch entry (docs/Manifest.md).
constexpr llvm::StringLiteral kLibraryCallAttrName = "sinter.library_call";

/// The discardable attribute of a gpu.launch_func whose kernel is
/// persistent (its blocks loop over `work` items with a gridDim.x stride):
/// {work, ctas_per_sm}. The manifest passes it on ("persistent"), and the
/// runtime sizes the grid for the device's SM count (docs/Manifest.md).
constexpr llvm::StringLiteral kPersistentAttrName = "sinter.persistent";

/// Compiles every public function of `module` (sinter ops on statically
/// shaped tensors) for `chip` and writes the artifact into `outDir`, which
/// must exist. `module` is lowered in place. Errors are emitted as
/// diagnostics at the offending op.
/// Source names of each function's arguments (`%k` gives "k"), by function.
using ArgumentNames = llvm::StringMap<llvm::SmallVector<std::string>>;

/// `argNames`, when given, names the manifest's arguments after the source
/// (as the CPU manifest does); otherwise they are arg0, arg1, ...
/// `onStage` hears of the "outline" (with the kernel census: tuned kernels,
/// library calls, general-path kernels), "nvvm" and "serialize" (LLVM to
/// PTX, ptxas) stages.
mlir::LogicalResult compileCUDAArtifact(mlir::ModuleOp module,
                                        const NVVMPipelineOptions &options,
                                        llvm::StringRef outDir,
                                        const ArgumentNames *argNames = nullptr,
                                        const StageCallback &onStage = {});

/// The manifest.json that compileCUDAArtifact would write for `module`,
/// planned right after sinter-outline-cuda-kernels (the host side of every
/// function is final there), without compiling the kernels: the fuzz target
/// and tests of the planner run it on machines without a CUDA toolkit. Its
/// entry points are the outlined kernels. `module` is changed in place.
mlir::FailureOr<std::string>
planCUDAManifest(mlir::ModuleOp module, const NVVMPipelineOptions &options,
                 const ArgumentNames *argNames = nullptr);

/// Lowers `module` for `options.chip` and returns the kernels' PTX
/// (`--emit=ptx`).
mlir::FailureOr<std::string>
compileCUDAToPTX(mlir::ModuleOp module, const NVVMPipelineOptions &options,
                 const StageCallback &onStage = {});

} // namespace sinter

#endif // SINTER_GPU_CUDAARTIFACT_H
