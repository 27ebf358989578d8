//===- InputGuard.h - What the compiler refuses before and after parsing -===//
//
// Part of the Sinter project.
//
// Issue #17: no input crashes the compiler. Some inputs crash upstream MLIR
// 22 itself while it parses (the region builders of some named linalg ops
// dereference a null value for element types they cannot combine; deep
// nesting overflows the parser's recursion), and some parsed modules break
// assumptions of the backends that no upstream verifier checks. The guards
// here run in every entry point that reads model IR (sinterc, the C API
// behind `sinter.compile`, sinter-opt and the fuzz targets):
//
//  * checkSourceBeforeParsing scans the text, with MLIR's lexical rules,
//    before the parser sees it: nesting depth (brackets, counting what a
//    type or attribute alias expands to), the size of alias expansions and
//    of one affine expression, and the operand types of named linalg ops
//    whose region builder would crash (LinalgRegionRules.cpp).
//  * checkModuleForCompilation checks the parsed module before fusion:
//    one flat module with a public function, tensors whose size fits in
//    int64, reshapes whose reassociation indices are in range.
//  * runOnCompilerStack runs a compilation on a thread with a large stack,
//    so that the recursion MLIR needs for anything the scan lets through
//    (and for long use-def chains) has room.
//
// A pre-scan and a refusal were chosen over catching the crash (a signal
// handler and longjmp out of libMLIR): the state of a context that crashed
// is unknown, and a Python process must keep running, with an error that
// points at the offending text.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_INPUTGUARD_H
#define SINTER_TARGET_INPUTGUARD_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class Location;
class MLIRContext;
class ModuleOp;
class Type;
} // namespace mlir

namespace sinter {

/// What the pre-parse scan accepts. Real model IR nests brackets 7 deep and
/// writes affine expressions of a few terms; the parser needs about 2 KiB of
/// stack per nesting level.
struct SourceLimits {
  /// Open brackets ( [ { < at any point, plus the depth of the aliases
  /// referenced there.
  unsigned maxNesting = 256;
  /// Operators (+ - * floordiv ceildiv mod) in one comma-separated item of
  /// one bracket group: the affine parser recurses once per operator.
  unsigned maxExpressionOperators = 1000;
  /// Tokens a type or attribute alias stands for once every alias in it is
  /// expanded (the printer expands them).
  uint64_t maxAliasExpansion = uint64_t(1) << 20;
};

/// Scans the main buffer of `sourceMgr` before it is parsed. Returns failure
/// after emitting an error, through `context`'s diagnostics and located in
/// the buffer, for text the parser of MLIR 22 would crash on or recurse too
/// deeply into.
mlir::LogicalResult checkSourceBeforeParsing(llvm::SourceMgr &sourceMgr,
                                             mlir::MLIRContext &context,
                                             const SourceLimits &limits = {});

/// Why the region builder of the named linalg op `opName` ("batch_matmul",
/// without the dialect) crashes for these operand types (ins then outs, as
/// written) and, for linalg.elementwise, this kind ("tanh"); std::nullopt
/// when it does not. Defined in LinalgRegionRules.cpp.
std::optional<std::string> whyLinalgRegionBuilderFails(
    llvm::StringRef opName, llvm::ArrayRef<mlir::Type> inputs,
    llvm::ArrayRef<mlir::Type> outputs, llvm::StringRef kind);

/// Checks a parsed and verified module before it is compiled, emitting
/// located errors: no nested module (one module's public functions are
/// compiled; functions of the same name in two modules would be one
/// manifest entry), at least one public function with a body (reported at
/// the first function, or at `fileLoc` for an empty module), statically
/// shaped types whose size in bytes fits in int64, and reshapes whose
/// reassociation indices name the dimensions in order.
mlir::LogicalResult checkModuleForCompilation(mlir::ModuleOp module,
                                              mlir::Location fileLoc);

/// The stack a compilation runs on (bytes): parsing, fusion and lowering of
/// anything the scan accepts stay far below it.
constexpr unsigned kCompilerStackBytes = 256u << 20;

/// Runs `fn` on a stack of kCompilerStackBytes (a thread of its own, joined
/// before returning).
void runOnCompilerStack(llvm::function_ref<void()> fn);

} // namespace sinter

#endif // SINTER_TARGET_INPUTGUARD_H
