//===- InputChecks.cpp - What compilation needs of a parsed module --------===//
//
// Part of the Sinter project.
//
// checkModuleForCompilation (InputGuard.h): properties of a verified module
// that the backends rely on and no upstream verifier checks, each refused
// at the op or the argument that breaks it, before fusion runs. And
// runOnCompilerStack, the stack compilations run on.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/InputGuard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ProgramStack.h"

using namespace mlir;

/// Bytes of one element as the backends lay it out (at least one).
static int64_t elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (t.isIntOrFloat())
    return std::max<int64_t>(1, llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));
  if (auto c = dyn_cast<ComplexType>(t))
    return 2 * elementBytes(c.getElementType());
  if (auto v = dyn_cast<VectorType>(t)) {
    int64_t bytes = elementBytes(v.getElementType());
    for (int64_t d : v.getShape())
      if (llvm::MulOverflow(bytes, d, bytes))
        return std::numeric_limits<int64_t>::max();
    return bytes;
  }
  return 1;
}

/// A statically shaped tensor or memref type (anywhere inside `type`) whose
/// bytes do not fit in int64: the descriptors, strides and offsets of both
/// backends are 64-bit.
static std::optional<ShapedType> oversized(Type type) {
  std::optional<ShapedType> found;
  type.walk([&](ShapedType shaped) {
    if (found || !shaped.hasRank() ||
        !isa<RankedTensorType, MemRefType>(shaped))
      return;
    int64_t bytes = elementBytes(shaped.getElementType());
    for (int64_t d : shaped.getShape())
      if (!ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes)) {
        found = shaped;
        return;
      }
  });
  return found;
}

/// `groups` name the dimensions 0 .. rank-1 of the expanded type, in order.
static LogicalResult checkReassociation(Operation *op, ArrayAttr groups,
                                        int64_t rank) {
  int64_t next = 0;
  for (Attribute group : groups) {
    auto indices = dyn_cast<ArrayAttr>(group);
    if (!indices)
      return op->emitOpError("reassociation groups must be arrays");
    for (Attribute index : indices) {
      auto i = dyn_cast<IntegerAttr>(index);
      if (!i)
        return op->emitOpError("reassociation indices must be integers");
      if (i.getValue().getSignificantBits() > 64 ||
          i.getValue().getSExtValue() != next)
        return op->emitOpError("reassociation index ")
               << llvm::toString(i.getValue(), 10, /*Signed=*/true)
               << " is not dimension " << next << " of the " << rank
               << "-d expanded type (the groups must name its "
               << "dimensions in order)";
      ++next;
    }
  }
  if (next != rank)
    return op->emitOpError("reassociation names ")
           << next << " dimensions of the " << rank << "-d expanded type";
  return success();
}

static LogicalResult checkOp(Operation *op) {
  if (isa<ModuleOp>(op) && op->getParentOp())
    return op->emitError("nested modules are not compiled: sinterc compiles "
                         "the public functions of one module (write them at "
                         "its top level)");
  auto checkType = [&](Type t, Location loc) -> LogicalResult {
    if (std::optional<ShapedType> big = oversized(t))
      return emitError(loc) << *big
                            << " holds more than 2^63 bytes (buffers are "
                               "indexed with 64-bit integers)";
    return success();
  };
  for (Type t : op->getResultTypes())
    if (failed(checkType(t, op->getLoc())))
      return failure();
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (failed(checkType(arg.getType(), arg.getLoc())))
          return failure();
  if (auto func = dyn_cast<func::FuncOp>(op))
    for (Type t : func.getFunctionType().getResults())
      if (failed(checkType(t, op->getLoc())))
        return failure();
  // Upstream verifiers truncate the indices to 32 bits: 4294967297 passes as
  // 1 and then indexes a shape out of bounds.
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return checkReassociation(op, e.getReassociation(),
                              e.getResultType().getRank());
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return checkReassociation(op, c.getReassociation(),
                              c.getSrcType().getRank());
  if (auto e = dyn_cast<memref::ExpandShapeOp>(op))
    return checkReassociation(op, e.getReassociation(),
                              e.getResultType().getRank());
  if (auto c = dyn_cast<memref::CollapseShapeOp>(op))
    return checkReassociation(op, c.getReassociation(),
                              c.getSrcType().getRank());
  return success();
}

LogicalResult sinter::checkModuleForCompilation(ModuleOp module,
                                                Location fileLoc) {
  // Pre-order: a function's arguments are reported before its body.
  WalkResult walk = module.walk<WalkOrder::PreOrder>([](Operation *op) {
    return failed(checkOp(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  auto functions = module.getOps<func::FuncOp>();
  if (llvm::any_of(functions, [](func::FuncOp f) {
        return f.isPublic() && !f.isExternal();
      }))
    return success();
  if (functions.empty())
    return emitError(fileLoc) << "the module has no function to compile";
  func::FuncOp first = *functions.begin();
  return first.emitError("the module has no public function with a body to "
                         "compile (@")
         << first.getSymName() << " is "
         << (first.isExternal() ? "a declaration" : "private") << ")";
}

void sinter::runOnCompilerStack(llvm::function_ref<void()> fn) {
  llvm::runOnNewStack(kCompilerStackBytes, fn);
}
