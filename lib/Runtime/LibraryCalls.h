//===- LibraryCalls.h - cuBLASLt GEMMs of a program ------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// A "cublas_gemm" launch runs through cuBLASLt (opened on first use,
// CublasLt.h) when it can, else its recorded fallback kernel runs: the
// context's cuBLASLt handle, one workspace per stream, the descriptors and
// algorithm of each entry, and the counts of how the entries ran.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_LIBRARYCALLS_H
#define SINTER_LIB_RUNTIME_LIBRARYCALLS_H

#include "Program.h"

namespace sinter::rt {

/// Runs the library call of `l` through cuBLASLt when it can: `ran` says
/// whether it did; when it did not, the caller launches the fallback kernel.
/// A failing cublasLtMatmul is an error, as a failing kernel launch is.
int runGemm(sinter_rt_program &p, const Function &f, Launch &l,
            void *const *args, CUstream stream, bool &ran);

/// Frees what the library calls of `p` hold (descriptors, and the
/// context's handle and workspaces when `p` was their last user); the
/// program's context is current.
void releaseLibraryCalls(sinter_rt_program &p);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_LIBRARYCALLS_H
