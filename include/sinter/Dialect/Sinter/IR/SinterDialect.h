//===- SinterDialect.h - The sinter dialect ---------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H
#define SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "sinter/Dialect/Sinter/IR/SinterOpsDialect.h.inc"

#endif // SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H
