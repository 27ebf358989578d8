//===- CPUTarget.h - Host shared-object artifacts ---------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Turns a module lowered by the CPU pipeline into an artifact directory:
//
//   <dir>/kernels.so      one `_mlir_ciface_<name>` entry point per function
//   <dir>/manifest.json   the functions and their arguments (see
//                         describeFunctions and writeManifest)
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

/// Version of the manifest.json layout written by writeManifest.
constexpr int kManifestFormatVersion = 1;

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

/// Writes the manifest for `functions` (format kManifestFormatVersion).
void writeManifest(llvm::ArrayRef<FunctionInfo> functions,
                   llvm::raw_ostream &os);

/// Translates an LLVM-dialect module to LLVM IR for the host, with internal
/// linkage for everything but the C-interface entry points, and optimizes it
/// at -O2 for the host CPU. Emits an error on `module` and returns null on
/// failure.
std::unique_ptr<llvm::Module> translateForHost(mlir::ModuleOp module,
                                               llvm::LLVMContext &llvmContext);

/// Emits `llvmModule` (from translateForHost) as a host object file, then
/// links `<outDir>/kernels.so` with the system C compiler driver (`cc`, or
/// $SINTER_CC). On failure returns false and sets `error`.
bool linkHostSharedObject(llvm::Module &llvmModule, llvm::StringRef outDir,
                          std::string &error);

} // namespace sinter

#endif // SINTER_TARGET_CPU_CPUTARGET_H
