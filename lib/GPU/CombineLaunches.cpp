//===- CombineLaunches.cpp - Independent elementwise launches as one ------===//
//
// Part of the Sinter project.
//
// sinter-combine-launches (Passes.td): a model's forward casts each weight
// to bf16 under autocast, one elementwise kernel per weight -- GPT-2's 96
// of them, half of them one or two blocks -- and each launch costs a
// graph node's latency and a ramp. Launches that do not depend on each
// other become one launch of a combined kernel:
//
//   gpu.launch_func @k::@fused_1 blocks in (%c432, ..) args(%w0, %o0)
//   %t0 = bufferization.to_tensor %o0 ..      // (glue between launches)
//   gpu.launch_func @k::@fused_2 blocks in (%c2, ..)   args(%w1, %o1)
// ->
//   gpu.launch_func @k::@combined_0 blocks in (%c434, ..)
//       args(%w0, %o0, %w1, %o1)
//
// where combined_0's block b runs fused_1's body as block b (b < 432) and
// fused_2's as block b - 432 (432 <= b < 434), finding its member by a
// binary search over the members' first blocks (GPT-2's 97 casts: 7
// comparisons a block). Only elementwise kernels
// (marked by the outliner, kElementwiseKernelAttrName: no shared memory,
// modest registers) join, with constant one-dimensional grids and nothing
// the runtime reads on the launch; the combined block is the widest
// member's, a narrower member's body guarded to its own threads (so no
// member may hold a barrier or a shuffle); a
// group runs between launches of other kinds, over glue only (allocations,
// constants, views, to_buffer/to_tensor), and no member touches a buffer
// another writes (a buffer is written unless it reaches the launch as a
// read_only to_buffer). The combined launch takes the last member's place:
// every member's operands are defined there, and nothing between the
// members reads what they write.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "sinter/GPU/CUDAArtifact.h"
#include "sinter/GPU/Passes.h"
#include "llvm/ADT/DenseSet.h"

namespace sinter {
#define GEN_PASS_DEF_COMBINELAUNCHES
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter::gpu_kernels;

namespace {

/// Kernel parameters a combined launch takes at most: bare pointers in
/// half of what every CUDA version accepts (256).
constexpr size_t kMaxCombinedArguments =
    kKernelParamBytes / 2 / sizeof(uint64_t);

/// One launch of a group, with the buffers it reads and writes.
struct Member {
  // (Op handles' getters are not const.)
  mutable gpu::LaunchFuncOp launch;
  mutable gpu::GPUFuncOp kernel;
  int64_t grid = 0, block = 0;
  llvm::SmallDenseSet<Value, 8> reads, writes;
};

/// The buffer a launch operand views: through views, to_buffer and
/// to_tensor back to an allocation, a function argument or whatever else
/// made it.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto toBuffer = dyn_cast<bufferization::ToBufferOp>(def))
      v = toBuffer.getTensor();
    else if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(def))
      v = toTensor.getBuffer();
    else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else
      break;
  }
  return v;
}

/// Host ops that run nothing on the device: a group may span them.
bool isGlue(Operation *op) {
  return isa<memref::AllocOp, arith::ConstantOp, bufferization::ToBufferOp,
             bufferization::ToTensorOp, ViewLikeOpInterface>(op);
}

/// `launch` as a member, when it may join a group.
std::optional<Member> memberOf(gpu::LaunchFuncOp launch,
                               SymbolTableCollection &symbols) {
  auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernelAttr());
  if (!kernel || !kernel->hasAttr(kElementwiseKernelAttrName) ||
      kernel.getBody().getBlocks().size() != 1 ||
      kernel.getNumWorkgroupAttributions() != 0 ||
      kernel.getNumPrivateAttributions() != 0 ||
      launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      launch->hasAttr(sinter::kLibraryCallAttrName) ||
      launch->hasAttr(sinter::kPersistentAttrName) ||
      !launch.getAsyncDependencies().empty())
    return std::nullopt;
  // A member may run in a wider block than its own (the threads past its
  // block idle): nothing in it may wait for the block's other threads.
  if (kernel
          .walk([](Operation *op) {
            return isa<gpu::BarrierOp, gpu::ShuffleOp>(op) ||
                           (op->getDialect() &&
                            op->getDialect()->getNamespace() == "nvvm")
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted())
    return std::nullopt;
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  std::optional<int64_t> gx = getConstantIntValue(grid.x),
                         bx = getConstantIntValue(block.x);
  if (!gx || !bx || getConstantIntValue(grid.y) != 1 ||
      getConstantIntValue(grid.z) != 1 || getConstantIntValue(block.y) != 1 ||
      getConstantIntValue(block.z) != 1)
    return std::nullopt;
  Member m{launch, kernel, *gx, *bx, {}, {}};
  for (Value operand : launch.getKernelOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue; // (a scalar: read)
    auto toBuffer = operand.getDefiningOp<bufferization::ToBufferOp>();
    (toBuffer && toBuffer.getReadOnly() ? m.reads : m.writes)
        .insert(rootOf(operand));
  }
  return m;
}

/// Whether `m` and `other` touch no buffer that either writes.
bool independent(const Member &m, const Member &other) {
  for (Value w : m.writes)
    if (other.reads.contains(w) || other.writes.contains(w))
      return false;
  for (Value w : other.writes)
    if (m.reads.contains(w))
      return false;
  return true;
}

/// Whether `m` may join `group`.
bool fits(const Member &m, ArrayRef<Member> group) {
  if (group.empty())
    return true;
  size_t arguments = m.launch.getNumKernelOperands();
  for (const Member &other : group)
    arguments += other.launch.getNumKernelOperands();
  return arguments <= kMaxCombinedArguments &&
         llvm::all_of(
             group, [&](const Member &other) { return independent(m, other); });
}

/// The groups of two or more launches of `block`, in order.
SmallVector<SmallVector<Member>> groupsOf(Block &block,
                                          SymbolTableCollection &symbols) {
  SmallVector<SmallVector<Member>> groups(1);
  auto close = [&]() {
    if (groups.back().size() < 2)
      groups.back().clear();
    else
      groups.emplace_back();
  };
  for (Operation &op : block) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(&op)) {
      std::optional<Member> m = memberOf(launch, symbols);
      if (m && fits(*m, groups.back())) {
        groups.back().push_back(std::move(*m));
        continue;
      }
      close();
      if (m)
        groups.back().push_back(std::move(*m));
      continue;
    }
    if (!isGlue(&op))
      close();
  }
  close();
  groups.pop_back(); // (the open, empty group)
  return groups;
}

/// Member `m`'s body at the builder, for the blocks the dispatch gave it
/// (its block index `local`): its arguments from `args`, its block index,
/// grid and block sizes those it had; in a wider block than its own, its
/// threads only.
void emitMemberBody(OpBuilder &b, Location loc, const Member &m, Value local,
                    int64_t block, ValueRange args) {
  Value grid = arith::ConstantIndexOp::create(b, loc, m.grid);
  Value threads = arith::ConstantIndexOp::create(b, loc, m.block);
  Block *body = b.getInsertionBlock();
  if (m.block < block) {
    Value mine = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult,
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), threads);
    body =
        scf::IfOp::create(b, loc, mine, /*withElseRegion=*/false).thenBlock();
  }
  OpBuilder inner = OpBuilder::atBlockTerminator(body);
  if (!body->mightHaveTerminator())
    inner.setInsertionPointToEnd(body);
  IRMapping mapping;
  mapping.map(m.kernel.getArguments(), args);
  SmallVector<Operation *> cloned;
  for (Operation &op : m.kernel.getBody().front().without_terminator())
    cloned.push_back(inner.clone(op, mapping));
  for (Operation *top : cloned)
    top->walk([&](Operation *op) {
      if (auto id = dyn_cast<gpu::BlockIdOp>(op);
          id && id.getDimension() == gpu::Dimension::x)
        id.replaceAllUsesWith(local);
      else if (auto dim = dyn_cast<gpu::GridDimOp>(op);
               dim && dim.getDimension() == gpu::Dimension::x)
        dim.replaceAllUsesWith(grid);
      else if (auto dim = dyn_cast<gpu::BlockDimOp>(op);
               dim && dim.getDimension() == gpu::Dimension::x)
        dim.replaceAllUsesWith(threads);
    });
}

/// Members [lo, hi) of `group` (their first blocks at `offsets`, their
/// arguments from `firstArg`) dispatched on `blockId` by binary search: a
/// block takes log2(members) comparisons to reach its member's body.
void emitDispatch(OpBuilder &b, Location loc, ArrayRef<Member> group,
                  ArrayRef<int64_t> offsets, ArrayRef<unsigned> firstArg,
                  size_t lo, size_t hi, Value blockId, int64_t block,
                  gpu::GPUFuncOp kernel) {
  if (hi - lo == 1) {
    const Member &m = group[lo];
    Value local = arith::SubIOp::create(
        b, loc, blockId, arith::ConstantIndexOp::create(b, loc, offsets[lo]));
    emitMemberBody(
        b, loc, m, local, block,
        kernel.getArguments().slice(firstArg[lo], m.kernel.getNumArguments()));
    return;
  }
  size_t mid = (lo + hi) / 2;
  Value before = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, blockId,
      arith::ConstantIndexOp::create(b, loc, offsets[mid]));
  auto branch = scf::IfOp::create(b, loc, before, /*withElseRegion=*/true);
  OpBuilder thenB = OpBuilder::atBlockTerminator(branch.thenBlock());
  emitDispatch(thenB, loc, group, offsets, firstArg, lo, mid, blockId, block,
               kernel);
  OpBuilder elseB = OpBuilder::atBlockTerminator(branch.elseBlock());
  emitDispatch(elseB, loc, group, offsets, firstArg, mid, hi, blockId, block,
               kernel);
}

/// The combined kernel's block: its widest member's.
int64_t blockOf(ArrayRef<Member> group) {
  int64_t block = 0;
  for (const Member &m : group)
    block = std::max(block, m.block);
  return block;
}

/// The combined kernel of `group` in `module`.
gpu::GPUFuncOp buildCombinedKernel(ArrayRef<Member> group,
                                   gpu::GPUModuleOp module, StringRef name) {
  SmallVector<Type> types;
  for (const Member &m : group)
    llvm::append_range(types, m.kernel.getArgumentTypes());
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = group.front().kernel.getLoc();
  auto kernel =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int64_t block = blockOf(group);
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(block), 1, 1}));
  kernel->setAttr(kElementwiseKernelAttrName, b.getUnitAttr());
  SmallVector<Attribute> names;
  for (const Member &m : group)
    names.push_back(m.kernel.getNameAttr());
  kernel->setAttr(kCombinedKernelsAttrName, b.getArrayAttr(names));
  b.setInsertionPointToStart(&kernel.getBody().front());
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<int64_t> offsets;
  SmallVector<unsigned> firstArg;
  int64_t offset = 0;
  unsigned first = 0;
  for (const Member &m : group) {
    offsets.push_back(offset);
    firstArg.push_back(first);
    offset += m.grid;
    first += m.kernel.getNumArguments();
  }
  auto ret = gpu::ReturnOp::create(b, loc);
  b.setInsertionPoint(ret);
  emitDispatch(b, loc, group, offsets, firstArg, 0, group.size(), blockId,
               block, kernel);
  return kernel;
}

/// One launch of `kernel` for `group`, in place of the group's last.
void replaceLaunches(ArrayRef<Member> group, gpu::GPUFuncOp kernel) {
  gpu::LaunchFuncOp last = group.back().launch;
  OpBuilder b(last);
  Location loc = last.getLoc();
  int64_t grid = 0;
  SmallVector<Value> args;
  for (const Member &m : group) {
    grid += m.grid;
    llvm::append_range(args, m.launch.getKernelOperands());
  }
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  gpu::LaunchFuncOp::create(
      b, loc, kernel,
      gpu::KernelDim3{arith::ConstantIndexOp::create(b, loc, grid), one, one},
      gpu::KernelDim3{arith::ConstantIndexOp::create(b, loc, blockOf(group)),
                      one, one},
      /*dynamicSharedMemorySize=*/Value(), args);
  for (const Member &m : group)
    m.launch.erase();
}

struct CombineLaunchesPass
    : public sinter::impl::CombineLaunchesBase<CombineLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<SmallVector<Member>> groups;
    module.walk([&](func::FuncOp func) {
      for (Block &block : func.getBody())
        llvm::append_range(groups, groupsOf(block, symbols));
    });
    if (groups.empty())
      return;
    llvm::DenseSet<Operation *> members;
    for (auto [i, group] : llvm::enumerate(groups)) {
      auto module = group.front().kernel->getParentOfType<gpu::GPUModuleOp>();
      gpu::GPUFuncOp kernel = buildCombinedKernel(
          group, module, ("combined_" + llvm::Twine(i)).str());
      for (const Member &m : group)
        members.insert(m.kernel);
      replaceLaunches(group, kernel);
    }
    // Kernels only the groups launched are gone; a model's repeated layers
    // made the same combined kernel many times: each compiles once.
    for (Operation *kernel : members)
      if (SymbolTable::symbolKnownUseEmpty(kernel, module))
        kernel->erase();
    dedupKernels(module);
  }
};

} // namespace
