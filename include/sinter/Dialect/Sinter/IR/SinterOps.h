//===- SinterOps.h - sinter dialect operations ------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTEROPS_H
#define SINTER_DIALECT_SINTER_IR_SINTEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"

#define GET_OP_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterOps.h.inc"

#endif // SINTER_DIALECT_SINTER_IR_SINTEROPS_H
