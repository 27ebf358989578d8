//===- Ptxas.h - Running the toolkit's ptxas --------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_PTXAS_H
#define SINTER_LIB_GPU_PTXAS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace sinter {

/// The cubin of `ptx` for `chip`: ptxas (the toolkit's, else $PATH's) run
/// with `--opt-level optLevel` and `options` (tokens), as the NVVM target's
/// serializer runs it. Failure: `error` says why, with ptxas' log.
mlir::FailureOr<std::string> runPtxas(llvm::StringRef toolkit,
                                      llvm::StringRef ptx, llvm::StringRef chip,
                                      int optLevel,
                                      llvm::ArrayRef<llvm::StringRef> options,
                                      std::string &error);

} // namespace sinter

#endif // SINTER_LIB_GPU_PTXAS_H
