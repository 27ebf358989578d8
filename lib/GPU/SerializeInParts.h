//===- SerializeInParts.h - LLVM codegen of kernels on threads --*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_SERIALIZEINPARTS_H
#define SINTER_LIB_GPU_SERIALIZEINPARTS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace sinter {

/// One PTX file of the PTX files `parts` (LLVM's output for disjoint sets
/// of kernels of one program): the header they share, each module-scope
/// declaration once (one a part defines differently from an earlier part's
/// of the same name is renamed in that part: <name>_part<i>), then the
/// `.entry` functions in `entryOrder`. None when the parts' headers differ,
/// a part defines a function with a body other than an entry, or an entry
/// of `entryOrder` is missing.
std::optional<std::string> mergePtx(llvm::ArrayRef<std::string> parts,
                                    llvm::ArrayRef<std::string> entryOrder);

/// The PTX of kernels compiled in parts, and how many parts.
struct PtxInParts {
  std::string ptx;
  unsigned parts = 0;
};

/// The PTX of the lowered gpu.module `kernels` (a child of `top`), its
/// kernels compiled by LLVM in up to `parts` groups of similar size on the
/// context's threads (copies of the module holding a group's kernels
/// each), merged by mergePtx; `toolkit` as gpu-module-to-binary is given
/// it. None where it does not apply (fewer than two kernels, not one
/// serializable target, a merge it cannot make): compile the module whole.
/// Failure: an error was emitted.
mlir::FailureOr<std::optional<PtxInParts>>
serializePtxInParts(mlir::ModuleOp top, mlir::gpu::GPUModuleOp kernels,
                    unsigned parts, llvm::StringRef toolkit);

} // namespace sinter

#endif // SINTER_LIB_GPU_SERIALIZEINPARTS_H
