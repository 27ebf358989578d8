//===- InitAll.h - Register Sinter's dialects and passes --------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Public entry points for tools and for compilers that embed Sinter:
//
//   mlir::DialectRegistry registry;
//   sinter::registerAllDialects(registry);
//   sinter::registerAllPasses();
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_INITALL_H
#define SINTER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace sinter {

/// Adds the sinter dialect and the upstream dialects its ops and passes
/// create (arith, math, linalg, tensor, ...) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every Sinter pass and pipeline with the global pass registry so
/// that they can be named on an opt-style command line.
void registerAllPasses();

} // namespace sinter

#endif // SINTER_INITALL_H
