//===- RaiseCustomCalls.cpp - Calls of marked declarations to sinter ops --===//
//
// Part of the Sinter project.
//
// sinter-raise-custom-calls (Passes.td has the contract): a call of a
// private declaration marked `sinter.call` becomes the sinter op it names.
// The torch backend emits such calls for its attention custom ops
// (python/sinter/torch/_import.py writes the same attribute names).
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

namespace sinter {
#define GEN_PASS_DEF_RAISECUSTOMCALLS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;

namespace {

/// The op that a call of a marked declaration stands for: its name and the
/// number of tensor operands it always has, before the optional mask
/// (a tensor) and seed (an integer).
struct CustomCallOp {
  StringLiteral name;
  unsigned fixedOperands;
};

/// The ops a custom call may name (the table of Passes.td).
constexpr CustomCallOp kCustomCallOps[] = {
    {"sinter.attention", 3},
    {"sinter.attention_backward", 6},
};

const CustomCallOp *lookupCustomCallOp(StringRef name) {
  for (const CustomCallOp &op : kCustomCallOps)
    if (op.name == name)
      return &op;
  return nullptr;
}

/// The declaration `call` calls when it is marked `sinter.call`.
func::FuncOp markedCallee(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee || !callee->hasAttr(sinter::kCustomCallAttrName))
    return nullptr;
  return callee;
}

/// The operand segment sizes of the op for the call's operands: the fixed
/// tensors, then at most one tensor (the mask) and one integer (the seed).
FailureOr<SmallVector<int32_t>> operandSegments(func::CallOp call,
                                                const CustomCallOp &op) {
  ValueRange operands = call.getOperands();
  if (operands.size() < op.fixedOperands)
    return failure();
  for (Value v : operands.take_front(op.fixedOperands))
    if (!isa<RankedTensorType>(v.getType()))
      return failure();
  SmallVector<int32_t> segments(op.fixedOperands, 1);
  ValueRange rest = operands.drop_front(op.fixedOperands);
  int32_t mask = 0, seed = 0;
  if (!rest.empty() && isa<RankedTensorType>(rest.front().getType())) {
    mask = 1;
    rest = rest.drop_front();
  }
  if (!rest.empty() && rest.front().getType().isSignlessInteger(64)) {
    seed = 1;
    rest = rest.drop_front();
  }
  if (!rest.empty())
    return failure();
  segments.append({mask, seed});
  return segments;
}

/// The sinter op `call` stands for, built before it and verified; `why`
/// says why not when the call breaks the contract (nothing is built).
FailureOr<Operation *> buildCustomCallOp(OpBuilder &b, func::CallOp call,
                                         func::FuncOp callee,
                                         std::string &why) {
  llvm::raw_string_ostream os(why);
  auto name = callee->getAttrOfType<StringAttr>(sinter::kCustomCallAttrName);
  const CustomCallOp *op = name ? lookupCustomCallOp(name) : nullptr;
  if (!op) {
    os << "custom call @" << call.getCallee() << " names no op Sinter raises "
       << "from calls (" << callee->getAttr(sinter::kCustomCallAttrName) << ")";
    return failure();
  }
  FailureOr<SmallVector<int32_t>> segments = operandSegments(call, *op);
  if (failed(segments)) {
    os << "custom call of " << op->name << " takes " << op->fixedOperands
       << " tensors, then an optional mask tensor and an optional i64 seed; "
       << "got " << call.getNumOperands() << " operands";
    return failure();
  }
  OperationState state(call.getLoc(), op->name);
  state.addOperands(call.getOperands());
  state.addTypes(call.getResultTypes());
  Attribute attrs = callee->getAttr(sinter::kCustomCallAttributesAttrName);
  if (attrs && !isa<DictionaryAttr>(attrs)) {
    os << "custom call @" << call.getCallee() << ": "
       << sinter::kCustomCallAttributesAttrName << " must be a dictionary, got "
       << attrs;
    return failure();
  }
  if (attrs)
    state.addAttributes(cast<DictionaryAttr>(attrs).getValue());
  state.addAttribute("operandSegmentSizes", b.getDenseI32ArrayAttr(*segments));
  Operation *raised = b.create(state);
  // The verifier's own diagnostic, at the call's location, says what is
  // wrong; this says where it came from.
  if (failed(verify(raised))) {
    raised->erase();
    os << "custom call of " << op->name
       << " builds an op that fails its verifier";
    return failure();
  }
  return raised;
}

// Matches a call of a declaration marked `sinter.call`:
//
//   func.func private @sinter_call_0(tensor<...>, tensor<...>, tensor<...>)
//       -> (tensor<...>, tensor<...>)
//       attributes {sinter.call = "sinter.attention",
//                   sinter.attributes = {causal}}
//   %r:2 = func.call @sinter_call_0(%q, %k, %v)
//
// and replaces it by `sinter.attention %q, %k, %v {causal}`.
struct RaiseCustomCall : OpRewritePattern<func::CallOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(func::CallOp call,
                                PatternRewriter &rewriter) const override {
    func::FuncOp callee = markedCallee(call);
    if (!callee)
      return rewriter.notifyMatchFailure(call, "not a custom call");
    std::string why;
    FailureOr<Operation *> raised =
        buildCustomCallOp(rewriter, call, callee, why);
    if (failed(raised))
      return rewriter.notifyMatchFailure(call, why);
    rewriter.replaceOp(call, (*raised)->getResults());
    return success();
  }
};

struct RaiseCustomCallsPass
    : sinter::impl::RaiseCustomCallsBase<RaiseCustomCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (markedCallee(call))
        calls.push_back(call);
    });
    IRRewriter rewriter(&getContext());
    bool broken = false;
    for (func::CallOp call : calls) {
      rewriter.setInsertionPoint(call);
      std::string why;
      FailureOr<Operation *> raised =
          buildCustomCallOp(rewriter, call, markedCallee(call), why);
      if (failed(raised)) {
        call.emitError(why);
        broken = true;
        continue;
      }
      rewriter.replaceOp(call, (*raised)->getResults());
    }
    if (broken)
      return signalPassFailure();
    for (auto decl : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (decl.isExternal() && decl->hasAttr(sinter::kCustomCallAttrName) &&
          SymbolTable::symbolKnownUseEmpty(decl, module))
        decl.erase();
  }
};

} // namespace

void sinter::populateRaiseCustomCallsPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseCustomCall>(patterns.getContext());
}
