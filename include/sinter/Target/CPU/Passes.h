//===- Passes.h - CPU backend passes ----------------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CPU_PASSES_H
#define SINTER_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace sinter {

#define GEN_PASS_DECL
#include "sinter/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sinter/Target/CPU/Passes.h.inc"

} // namespace sinter

#endif // SINTER_TARGET_CPU_PASSES_H
