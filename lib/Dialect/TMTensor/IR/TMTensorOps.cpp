//===- TMTensorOps.cpp - torch-mlir's tm_tensor ops, as input -------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/TMTensor/IR/TMTensorOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace sinter::tm_tensor;

#include "sinter/Dialect/TMTensor/IR/TMTensorOpsDialect.cpp.inc"

void TMTensorDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "sinter/Dialect/TMTensor/IR/TMTensorOps.cpp.inc"

LogicalResult ScanOp::verify() {
  if (getInputs().size() != 1 || getOutputs().size() != 2)
    return emitOpError("takes one input and two outputs (result, "
                       "accumulator)");
  auto in = cast<RankedTensorType>(getInputs()[0].getType());
  auto out = cast<RankedTensorType>(getOutputs()[0].getType());
  auto acc = cast<RankedTensorType>(getOutputs()[1].getType());
  int64_t dim = getDimension();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError("dimension ")
           << dim << " is out of range for rank " << in.getRank();
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result must have the input's type");
  SmallVector<int64_t> accShape(in.getShape());
  accShape.erase(accShape.begin() + dim);
  if (ArrayRef<int64_t>(accShape) != acc.getShape() ||
      acc.getElementType() != in.getElementType())
    return emitOpError("accumulator must have the input's shape without "
                       "dimension ")
           << dim;
  if (getResults().size() != 2 || getResults()[0].getType() != out ||
      getResults()[1].getType() != acc)
    return emitOpError("results must have the outputs' types");
  Block &body = getRegion().front();
  Type t = in.getElementType();
  if (body.getNumArguments() != 2 || body.getArgument(0).getType() != t ||
      body.getArgument(1).getType() != t)
    return emitOpError("region takes two arguments of the element type");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getOperands().size() != 1 ||
      yield.getOperands()[0].getType() != t)
    return emitOpError("region must yield one value of the element type");
  return success();
}

LogicalResult AttentionOp::verify() {
  unsigned n = getInputs().size();
  if ((n != 3 && n != 4) || getOutputs().size() != 1 ||
      getResults().size() != 1)
    return emitOpError("takes query, key, value and an optional mask, and "
                       "one output");
  auto type = [&](unsigned i) {
    return cast<RankedTensorType>(getInputs()[i].getType());
  };
  RankedTensorType q = type(0), k = type(1), v = type(2);
  auto out = cast<RankedTensorType>(getOutputs()[0].getType());
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank ||
      out.getRank() != rank)
    return emitOpError("query, key, value and output must have one rank >= 2");
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (ks[i] != qs[i] || vs[i] != qs[i] || out.getShape()[i] != qs[i])
      return emitOpError("batch dimension ") << i << " differs";
  if (ks[rank - 1] != qs[rank - 1])
    return emitOpError("query and key head dimensions differ");
  if (ks[rank - 2] != vs[rank - 2])
    return emitOpError("key and value sequence lengths differ");
  if (out.getShape()[rank - 2] != qs[rank - 2] ||
      out.getShape()[rank - 1] != vs[rank - 1])
    return emitOpError("output must be [batch..., query length, value dim]");
  if (getResults()[0].getType() != out)
    return emitOpError("result must have the output's type");
  if (n == 4) {
    RankedTensorType m = type(3);
    if (m.getRank() != rank)
      return emitOpError("mask must have the query's rank");
    for (int64_t i = 0; i + 2 < rank; ++i)
      if (m.getShape()[i] != qs[i])
        return emitOpError("mask batch dimension ") << i << " differs";
    if (m.getShape()[rank - 2] != qs[rank - 2] ||
        m.getShape()[rank - 1] != ks[rank - 2])
      return emitOpError("mask must be [batch..., query length, key length]");
    Type e = m.getElementType();
    if (!e.isInteger(1) && e != q.getElementType())
      return emitOpError("mask must be i1 or the query's element type");
  }
  return success();
}
