//===- Passes.h - Sinter raising and fusion passes --------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The passes that raise upstream linalg-on-tensors subgraphs into sinter ops
// (attention, softmax, norms, AdamW, elementwise chains) and the fusion
// report. Call registerSinterTransformsPasses() to make them available to
// a tool's command line.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace sinter {

#define GEN_PASS_DECL
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

} // namespace sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
