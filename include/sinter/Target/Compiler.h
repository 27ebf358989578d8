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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "sinter/Target/CompileOptions.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace sinter {

/// Adds every dialect, interface model and LLVM IR translation that
/// compilation needs to `registry`.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Checks a target name; returns false with a message for unknown or
/// malformed targets.
bool checkTarget(llvm::StringRef target, std::string &error);

/// The first stage of compileSource: the pre-parse scan, parsing,
/// verification and the checks of the parsed module (InputGuard.h). Returns
/// null after emitting diagnostics. `argumentNames`, when given, receives
/// the source names of every function's arguments (`%k` gives "k").
mlir::OwningOpRef<mlir::ModuleOp> parseForCompilation(
    llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
    llvm::StringMap<llvm::SmallVector<std::string>> *argumentNames = nullptr);

/// Compiles the main buffer of `sourceMgr` into `outDir` (created when
/// missing; "-" writes an --emit=mlir/llvm result to stdout). Errors are
/// reported through the diagnostics of `context`. Runs on a stack of its
/// own (runOnCompilerStack), so that the caller's stack size does not
/// matter.
mlir::LogicalResult compileSource(llvm::SourceMgr &sourceMgr,
                                  mlir::MLIRContext &context,
                                  llvm::StringRef outDir,
                                  const CompileOptions &options);

} // namespace sinter

#endif // SINTER_TARGET_COMPILER_H
