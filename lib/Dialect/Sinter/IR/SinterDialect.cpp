//===- SinterDialect.cpp - The sinter dialect -----------------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace sinter;

#include "sinter/Dialect/Sinter/IR/SinterOpsDialect.cpp.inc"

void SinterDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sinter/Dialect/Sinter/IR/SinterOps.cpp.inc"
      >();
}
