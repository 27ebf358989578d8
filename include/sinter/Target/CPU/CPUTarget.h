//===- CPUTarget.h - Host shared-object artifacts ---------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Turns a module lowered by the CPU pipeline into an artifact directory:
//
//   <dir>/kernels.so      one `_mlir_ciface_<name>` entry point per function
//   <dir>/manifest.json   the functions and their arguments (see
//                         describeFunctions and cpuManifest)
//   <dir>/SHA256SUMS      the SHA-256 of both (writeCPUArtifact)
//
// Running an artifact needs neither MLIR nor LLVM: only the C ABI of the
// entry points, described by the manifest.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CPU_CPUTARGET_H
#define SINTER_TARGET_CPU_CPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace sinter {

/// The shared object of a CPU artifact.
constexpr char kCPULibraryFile[] = "kernels.so";

/// One argument of a compiled function in calling-convention order.
struct ArgumentInfo {
  std::string name;
  /// "input" or "output".
  std::string role;
  /// numpy dtype name: float32, float16, bfloat16, float64, int32, ...
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  /// A scalar (passed by value); otherwise a memref passed by descriptor.
  bool scalar = false;
};

/// A public function of an artifact.
struct FunctionInfo {
  std::string name;
  llvm::SmallVector<ArgumentInfo> arguments;
};

/// Source-level argument names per function (`%k` gives "k"), as recorded by
/// the parser; functions or arguments without a name fall back to "argN".
using ArgumentNameMap = llvm::StringMap<llvm::SmallVector<std::string>>;

/// Describes every public function of `module`, which must still be on
/// tensors: its arguments (inputs) followed by one output per result.
/// Emits a located error and fails on signatures the CPU calling convention
/// cannot express (dynamic shapes, unsupported element types).
mlir::FailureOr<llvm::SmallVector<FunctionInfo>>
describeFunctions(mlir::ModuleOp module, const ArgumentNameMap &names);

/// The manifest for `functions` (format manifest::kCPUFormatVersion,
/// sinter/Artifact/Manifest.h), whose library exports `entryPoints` and is
/// compiled from `llvmModule` (whose SHA-256 it records as code_sha256, so
/// that the manifests of programs with the same functions but other code
/// differ, and so the digests kernels.so records).
std::string cpuManifest(llvm::ArrayRef<FunctionInfo> functions,
                        llvm::ArrayRef<std::string> entryPoints,
                        llvm::Module &llvmModule);

/// The C entry points that `llvmModule` (from translateForHost) exports,
/// sorted: what kernels.so may be asked for.
llvm::SmallVector<std::string> exportedEntryPoints(llvm::Module &llvmModule);

/// Records the SHA-256 of `manifestText` in `llvmModule` as the exported
/// constant string manifest::kCPUManifestDigestSymbol, so that kernels.so
/// says which manifest it was compiled with: a loader refuses any other.
void embedManifestDigest(llvm::Module &llvmModule,
                         llvm::StringRef manifestText);

/// Completes the artifact in `outDir` once kernels.so is linked there:
/// writes `manifestText` as manifest.json, then SHA256SUMS with the SHA-256
/// of both. On failure returns false and sets `error`.
bool writeCPUArtifact(llvm::StringRef manifestText, llvm::StringRef outDir,
                      std::string &error);

/// Translates an LLVM-dialect module to LLVM IR for the host, with internal
/// linkage for everything but the C-interface entry points, and optimizes it
/// at -O`optLevel` (0 to 3; sinterc's --cpu-opt-level) for the host CPU.
/// Emits an error on `module` and returns null on failure.
std::unique_ptr<llvm::Module> translateForHost(mlir::ModuleOp module,
                                               llvm::LLVMContext &llvmContext,
                                               unsigned optLevel = 2);

/// Emits `llvmModule` (from translateForHost) as a host object file at
/// -O`optLevel`, then links `<outDir>/kernels.so` with the system C
/// compiler driver (`cc`, or $SINTER_CC). On failure returns false and sets
/// `error`.
bool linkHostSharedObject(llvm::Module &llvmModule, llvm::StringRef outDir,
                          std::string &error, unsigned optLevel = 2);

} // namespace sinter

#endif // SINTER_TARGET_CPU_CPUTARGET_H
