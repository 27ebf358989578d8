//===- Passes.h - Sinter conversion passes ----------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_CONVERSION_PASSES_H
#define SINTER_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace sinter {

#define GEN_PASS_DECL
#include "sinter/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sinter/Conversion/Passes.h.inc"

} // namespace sinter

#endif // SINTER_CONVERSION_PASSES_H
