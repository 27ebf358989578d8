//===- TMTensorOps.h - torch-mlir's tm_tensor ops, as input ------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_H
#define SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sinter/Dialect/TMTensor/IR/TMTensorOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h.inc"

#endif // SINTER_DIALECT_TMTENSOR_IR_TMTENSOROPS_H
