//===- TestFusedBackward.cpp - Differentiate a sinter.fused ---------------===//
//
// Part of the Sinter project.
//
// `sinter-test-fused-backward`: for every public function `@f` whose body
// holds exactly one `sinter.fused`, adds `@f_backward` taking f's arguments
// and then one gradient per result of that op, and returning the gradient
// of each of the op's floating-point tensor inputs (buildFusedBackward).
// Tests and the CPU finite-difference check compile both functions.
//
// With `each`, the backward of every sinter.fused is built in place instead
// (its own results standing in for the gradients, so that the IR stays
// well typed) and a remark says which were built: a sweep of the
// derivative rules over real models' chains.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/FusedBackward.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestFusedBackwardPass
    : PassWrapper<TestFusedBackwardPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestFusedBackwardPass)

  TestFusedBackwardPass() = default;
  TestFusedBackwardPass(const TestFusedBackwardPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "sinter-test-fused-backward"; }
  StringRef getDescription() const final {
    return "Add @f_backward beside each public function @f holding one "
           "sinter.fused: f's arguments and the op's result gradients in, "
           "the op's input gradients out";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                    math::MathDialect, tensor::TensorDialect>();
  }

  Option<bool> each{*this, "each",
                    llvm::cl::desc("Build the backward of every sinter.fused "
                                   "in place (a sweep of the rules)"),
                    llvm::cl::init(false)};

  void runOnOperation() override {
    if (each) {
      SmallVector<sinter::FusedOp> ops;
      getOperation().walk([&](sinter::FusedOp op) { ops.push_back(op); });
      for (sinter::FusedOp op : ops) {
        OpBuilder b(op);
        b.setInsertionPointAfter(op);
        if (succeeded(sinter::buildFusedBackward(b, op, op.getResults())))
          op.emitRemark("built the backward of this sinter.fused");
      }
      return;
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isPrivate() && !func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      auto fused = llvm::to_vector(func.getOps<sinter::FusedOp>());
      if (fused.size() != 1)
        continue;
      if (failed(addBackward(func, fused.front())))
        return signalPassFailure();
    }
  }

  static LogicalResult addBackward(func::FuncOp func, sinter::FusedOp op) {
    OpBuilder b(func);
    b.setInsertionPointAfter(func);
    SmallVector<Type> args = llvm::to_vector(func.getArgumentTypes());
    llvm::append_range(args, op.getResultTypes());
    auto bwd = func::FuncOp::create(b, func.getLoc(),
                                    (func.getName() + "_backward").str(),
                                    b.getFunctionType(args, {}));
    Block *entry = bwd.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    mapping.map(func.getArguments(),
                entry->getArguments().take_front(func.getNumArguments()));
    for (Operation &o : func.front()) {
      b.clone(o, mapping);
      if (&o == op.getOperation())
        break;
    }
    auto cloned = cast<sinter::FusedOp>(mapping.lookup(op.getOperation()));
    FailureOr<SmallVector<Value>> grads = sinter::buildFusedBackward(
        b, cloned, entry->getArguments().drop_front(func.getNumArguments()));
    if (failed(grads))
      return failure();
    SmallVector<Value> results;
    for (Value g : *grads)
      if (g)
        results.push_back(g);
    func::ReturnOp::create(b, func.getLoc(), results);
    bwd.setFunctionType(
        b.getFunctionType(args, ValueRange(results).getTypes()));
    return success();
  }
};
} // namespace

namespace sinter {
void registerTestFusedBackwardPass() {
  PassRegistration<TestFusedBackwardPass>();
}
} // namespace sinter
