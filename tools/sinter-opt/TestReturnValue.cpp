//===- TestReturnValue.cpp - Return an intermediate value -----------------===//
//
// Part of the Sinter project.
//
// `sinter-test-return-value{index=K}`: every public function returns the
// first result of its K-th top-level op that yields a ranked tensor instead
// of its own results; the ops after that one are erased. Compiling the
// prefixes of a model for two targets and comparing them finds the first
// value a target computes wrong (test/Frontends/tools/bisect_cuda.py). With
// index=-1 the pass only reports, as a remark on each function, how many
// such values it has.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace {
struct TestReturnValuePass
    : PassWrapper<TestReturnValuePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestReturnValuePass)

  TestReturnValuePass() = default;
  TestReturnValuePass(const TestReturnValuePass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "sinter-test-return-value"; }
  StringRef getDescription() const final {
    return "Make each public function return the first result of its "
           "index-th top-level tensor-valued op (index=-1: report how many "
           "there are); for bisecting a miscompiled model";
  }

  Option<int> index{*this, "index",
                    llvm::cl::desc("Which tensor-valued op (from 0); -1 "
                                   "reports the count"),
                    llvm::cl::init(-1)};

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      SmallVector<Operation *> candidates;
      for (Operation &op : func.front().without_terminator())
        if (op.getNumResults() > 0 &&
            isa<RankedTensorType>(op.getResult(0).getType()))
          candidates.push_back(&op);
      if (index < 0) {
        func.emitRemark() << candidates.size() << " tensor values";
        continue;
      }
      if (index >= static_cast<int>(candidates.size())) {
        func.emitError() << "index " << static_cast<int>(index)
                         << " is past the " << candidates.size()
                         << " tensor values";
        return signalPassFailure();
      }
      truncate(func, candidates[index]);
    }
  }

  /// Returns `op`'s first result from `func`, erasing what follows `op`.
  static void truncate(func::FuncOp func, Operation *op) {
    Value value = op->getResult(0);
    while (&func.front().back() != op) {
      Operation *last = &func.front().back();
      last->dropAllUses();
      last->erase();
    }
    OpBuilder after(op->getContext());
    after.setInsertionPointAfter(op);
    func::ReturnOp::create(after, op->getLoc(), value);
    func.setFunctionType(FunctionType::get(
        func.getContext(), func.getArgumentTypes(), {value.getType()}));
  }
};
} // namespace

namespace sinter {
void registerTestReturnValuePass() { PassRegistration<TestReturnValuePass>(); }
} // namespace sinter
