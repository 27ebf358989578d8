//===- RowKernels.cpp - Softmax, LayerNorm and RMSNorm on CUDA ------------===//
//
// Part of the Sinter project.
//
// One row (the normalized trailing dimensions, flattened) per group of
// `threadsPerRow` lanes; small rows share a block. The row is read once into
// registers with 16-byte loads, reduced in f32 (warp shuffles, shared memory
// across warps) and written once. LayerNorm's variance is the mean of squared
// deviations from the mean, computed from the registers (two exact passes,
// no E[x^2] - E[x]^2).
//
// Persistent variants (Tuning::rowPersistent): a grid sized to the chip
// whose blocks loop over the row groups blockIdx.x, blockIdx.x + gridDim.x,
// ... (correct for any grid), with the norm's weight and bias loaded once
// before the loop (bf16/f16 ones kept packed); variant 2 also loads the next
// group's row (in its element type) at the top of each iteration, so that it
// is in flight while the current row is reduced and stored; variant 3 is 2
// with the weight and bias loaded per row, as in the default kernel.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "RowCommon.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

FailureOr<RowConfig>
sinter::gpu_kernels::chooseRowConfig(Operation *op, int64_t rows, int64_t cols,
                                     Type elt, const Tuning &tuning) {
  RowConfig c;
  c.rows = rows;
  c.cols = cols;
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  c.vec = 16 / bytes;
  while (c.vec > 1 && cols % c.vec != 0)
    c.vec /= 2;
  c.nvec = cols / c.vec;
  // Aim for `rowVectors` 16-byte vectors in flight per thread.
  c.threadsPerRow = std::min<int64_t>(
      kMaxThreadsPerBlock,
      llvm::PowerOf2Ceil(std::max<int64_t>(
          1,
          llvm::divideCeil(c.nvec, std::max<int64_t>(1, tuning.rowVectors)))));
  c.perThread = llvm::divideCeil(c.nvec, c.threadsPerRow);
  if (c.perThread > 32)
    return op->emitOpError("rows of ")
           << cols << " elements exceed what the register-resident CUDA row "
           << "kernel holds (" << 32 * kMaxThreadsPerBlock * c.vec << ")";
  c.rowsPerBlock = c.threadsPerRow >= tuning.rowBlock
                       ? 1
                       : tuning.rowBlock / c.threadsPerRow;
  c.block = c.threadsPerRow * c.rowsPerBlock;
  c.grid = llvm::divideCeil(rows, c.rowsPerBlock);
  c.groups = c.grid;
  c.persistent = tuning.rowPersistent;
  c.hoist = c.persistent == 1 || c.persistent == 2;
  c.prefetch = c.persistent >= 2;
  if (c.persistent) {
    c.ctasPerSM = persistentCtasPerSM(tuning, c.block);
    c.grid = persistentGrid(tuning, c.groups, c.block);
  }
  return c;
}

int64_t sinter::gpu_kernels::persistentCtasPerSM(const Tuning &tuning,
                                                 int64_t block) {
  const ChipInfo &chip = chipInfo(tuning.smVersion);
  int64_t most = std::max<int64_t>(
      1, std::min<int64_t>(chip.maxBlocksPerSM, chip.maxThreadsPerSM / block));
  if (tuning.persistentCtas > 0)
    return std::min(tuning.persistentCtas, most);
  // 64 registers per thread (1024 threads on every chip from sm_80), the
  // occupancy of the non-persistent kernels (bench/NOTES.md).
  int64_t threads = chip.registersPerSM / 64;
  return std::max<int64_t>(1, std::min(most, threads / block));
}

int64_t sinter::gpu_kernels::smCountOf(const Tuning &tuning) {
  if (tuning.smCount > 0)
    return tuning.smCount;
  return chipInfo(tuning.smVersion).smCount;
}

int64_t sinter::gpu_kernels::persistentGrid(const Tuning &tuning, int64_t work,
                                            int64_t block) {
  int64_t slots = smCountOf(tuning) * persistentCtasPerSM(tuning, block);
  work = std::max<int64_t>(1, work);
  int64_t perBlock = llvm::divideCeil(work, slots);
  return llvm::divideCeil(work, perBlock);
}

RowLanes sinter::gpu_kernels::setupLanes(KernelBuilder &kb,
                                         const RowConfig &c) {
  ImplicitLocOpBuilder &b = kb.builder();
  RowLanes l;
  Value tid = kb.threadId();
  l.lane = arith::RemUIOp::create(b, tid, kb.idx(c.threadsPerRow));
  l.rowInBlock = arith::DivUIOp::create(b, tid, kb.idx(c.threadsPerRow));
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value v = arith::AddIOp::create(b, kb.idx(k * c.threadsPerRow), l.lane);
    l.colIndex.push_back(arith::MulIOp::create(b, v, kb.idx(c.vec)));
    Value inRow;
    if ((k + 1) * c.threadsPerRow > c.nvec)
      inRow = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v,
                                    kb.idx(c.nvec));
    l.inRow.push_back(inRow);
  }
  return l;
}

/// The thread's view of row group `group`. Rows are checked against the row
/// count when the groups do not divide it, and always with `check` (a group
/// that may lie past the last one).
RowThread sinter::gpu_kernels::rowOf(KernelBuilder &kb, const RowConfig &c,
                                     const RowLanes &l, Value group,
                                     bool check) {
  ImplicitLocOpBuilder &b = kb.builder();
  RowThread t;
  t.lane = l.lane;
  t.rowInBlock = l.rowInBlock;
  t.row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, group, kb.idx(c.rowsPerBlock)), l.rowInBlock);
  if (check || c.rows % c.rowsPerBlock != 0)
    t.rowValid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, t.row,
                                       kb.idx(c.rows));
  t.colIndex = l.colIndex;
  for (Value inRow : l.inRow) {
    Value p = t.rowValid;
    if (inRow)
      p = p ? arith::AndIOp::create(b, p, inRow).getResult() : inRow;
    t.pred.push_back(p);
  }
  return t;
}

/// Zeroes the lanes of `vec` whose vector is out of bounds.
static Value maskVec(KernelBuilder &kb, Value vec, Value pred, double fill) {
  if (!pred)
    return vec;
  ImplicitLocOpBuilder &b = kb.builder();
  int64_t n = cast<VectorType>(vec.getType()).getNumElements();
  return arith::SelectOp::create(b, pred, vec, kb.splat(kb.f32(fill), n));
}

int64_t sinter::gpu_kernels::normalizedRankOf(Operation *norm) {
  if (auto ln = dyn_cast<LayerNormOp>(norm))
    return ln.getNormalizedRank();
  if (auto rms = dyn_cast<RMSNormOp>(norm))
    return rms.getNormalizedRank();
  if (auto ln = dyn_cast<LayerNormBackwardOp>(norm))
    return ln.getNormalizedRank();
  return cast<RMSNormBackwardOp>(norm).getNormalizedRank();
}

std::pair<int64_t, int64_t>
sinter::gpu_kernels::rowsAndColumns(RankedTensorType type, int64_t rowRank) {
  int64_t rows = 1, cols = 1;
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    (static_cast<int64_t>(i) >= type.getRank() - rowRank ? cols : rows) *= d;
  return {rows, cols};
}

Value sinter::gpu_kernels::rowBase(KernelBuilder &kb, const RowConfig &c,
                                   Value row) {
  return arith::MulIOp::create(kb.builder(), row, kb.idx(c.cols));
}

/// Persistent kernels get two slots per warp: a kernel with one reduction
/// per row alternates between them (see forEachRow's parity).
static MemRefType smemType(MLIRContext *ctx, const RowConfig &c) {
  auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get(
      {std::max<int64_t>(1, c.block / kWarpSize) * (c.persistent ? 2 : 1)},
      Float32Type::get(ctx), MemRefLayoutAttrInterface(), ws);
}

/// Writes a per-row statistic from lane 0 of the row.
static void storeRowStat(KernelBuilder &kb, const RowThread &t, Value memref,
                         Value value) {
  ImplicitLocOpBuilder &b = kb.builder();
  Value isLead =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, t.lane, kb.idx(0));
  Value p = t.rowValid
                ? arith::AndIOp::create(b, isLead, t.rowValid).getResult()
                : isLead;
  scf::IfOp::create(b, p, [&](OpBuilder &ob, Location loc) {
    memref::StoreOp::create(ob, loc, value, memref, ValueRange{t.row});
    scf::YieldOp::create(ob, loc);
  });
}

/// Creates the kernel of a row op: arguments are its operands then its
/// results, two shared-memory reduction buffers; positions `b` in the body.
std::tuple<KernelLaunch, Value, Value> sinter::gpu_kernels::startRowKernel(
    ImplicitLocOpBuilder &b, Operation *op, const RowConfig &c,
    gpu::GPUModuleOp module, StringRef name, bool runtimeSizedGrid,
    ArrayRef<Value> results, ArrayRef<Value> operands) {
  KernelLaunch launch = launchFor(op, c.grid, c.block);
  if (!results.empty())
    launch.results.assign(results.begin(), results.end());
  if (!operands.empty())
    launch.operands.assign(operands.begin(), operands.end());
  if (c.persistent && runtimeSizedGrid) {
    launch.persistentWork = c.groups;
    launch.persistentCtasPerSM = c.ctasPerSM;
  }
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), c.block);
  launch.kernel = func;
  // Persistent grids assume `ctasPerSM` resident blocks per SM: ptxas keeps
  // the registers within what they need (.minnctapersm).
  if (c.persistent)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(static_cast<int32_t>(c.ctasPerSM)));
  Value smem =
      func.addWorkgroupAttribution(smemType(b.getContext(), c), op->getLoc());
  Value smem2 =
      func.addWorkgroupAttribution(smemType(b.getContext(), c), op->getLoc());
  // The reductions read the slots back as 16-byte vectors (LLVM combines
  // the loads): declare the alignment rather than rely on where ptxas
  // places them (beside dynamic shared memory they landed at 0x404).
  for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
    func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
  b.setInsertionPointToStart(&func.getBody().front());
  return {launch, smem, smem2};
}

namespace {
/// The vectors of a row as the body asks for them: `x(k)` is vector k of
/// the thread (f32), loaded where it is first asked for unless prefetched.
using RowVector = function_ref<Value(int64_t k)>;
/// The per-row part of a row kernel: `t` is the thread's row, `base` the
/// row's first element, `hoisted` what the hoist callback loaded (in its
/// element type; empty unless the weights are hoisted); `parity` (index 0
/// or 1, alternating between the rows of a persistent block; null
/// otherwise) selects the slots of a reduction that has no other barrier
/// between two rows.
using RowBody = function_ref<void(const RowThread &t, Value base, RowVector x,
                                  ArrayRef<Value> hoisted, Value parity)>;
} // namespace

/// Loads the thread's vectors of `x` for row `t` in their element type:
/// the vectors that only depend on the row being valid under one branch.
static SmallVector<Value> loadRowRaw(KernelBuilder &kb, const RowConfig &c,
                                     const RowLanes &l, const RowThread &t,
                                     Value x, Value base) {
  ImplicitLocOpBuilder &b = kb.builder();
  SmallVector<Value> vs(c.perThread);
  SmallVector<Value> shared, idx;
  SmallVector<int64_t> which;
  for (int64_t k = 0; k < c.perThread; ++k) {
    Value at = arith::AddIOp::create(b, base, t.colIndex[k]);
    if (l.inRow[k]) {
      vs[k] = kb.loadAll({x}, {at}, c.vec, t.pred[k], false, true)[0];
      continue;
    }
    shared.push_back(x);
    idx.push_back(at);
    which.push_back(k);
  }
  for (auto [k, v] : llvm::zip_equal(
           which, kb.loadAll(shared, idx, c.vec, t.rowValid, false, true)))
    vs[k] = v;
  return vs;
}

/// `vec` through an opaque register copy (inline PTX mov), so that what is
/// computed from the copy is not loop-invariant: hoisted bf16/f16 weights
/// stay packed in registers across the row loop and are converted to f32
/// per row, instead of LLVM hoisting the conversion and keeping twice the
/// registers live.
static Value opaqueCopy(KernelBuilder &kb, Value vec) {
  ImplicitLocOpBuilder &b = kb.builder();
  auto type = cast<VectorType>(vec.getType());
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  int64_t wordBits = bits % 32 == 0 ? 32 : 16;
  Type word = b.getIntegerType(wordBits);
  auto wordsType = VectorType::get({bits / wordBits}, word);
  Value words = vector::BitCastOp::create(b, wordsType, vec);
  SmallVector<Value> parts;
  for (int64_t i = 0; i < wordsType.getNumElements(); ++i) {
    Value w = vector::ExtractOp::create(b, words, ArrayRef<int64_t>{i});
    parts.push_back(
        LLVM::InlineAsmOp::create(
            b, word, ValueRange{w},
            wordBits == 32 ? "mov.b32 $0, $1;" : "mov.b16 $0, $1;",
            wordBits == 32 ? "=r,r" : "=h,h", /*has_side_effects=*/false,
            /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr())
            .getRes());
  }
  return vector::BitCastOp::create(
      b, type, vector::FromElementsOp::create(b, wordsType, parts));
}

/// Vector k (f32) of row `t` starting at `base`, computed rather than
/// loaded (a norm's prologue).
using RowLoader =
    function_ref<Value(const RowThread &t, Value base, int64_t k)>;

/// Runs `body` for every row the thread handles. Non-persistent: the row of
/// the block's one row group. Persistent: a loop over the row groups
/// blockIdx.x + i * gridDim.x; with hoisting, `hoist` loads loop-invariant
/// vectors once before it (carried through the loop in their element type);
/// with prefetch, the next group's vectors are loaded at the top of each
/// iteration and carried to the next one in their element type.
/// `loader` (non-persistent kernels only) computes vector k of the row
/// instead of loading it from `x` (a norm's prologue).
static void forEachRow(KernelBuilder &kb, const RowConfig &c, Value x,
                       function_ref<SmallVector<Value>(const RowLanes &)> hoist,
                       RowBody body, RowLoader loader = nullptr) {
  ImplicitLocOpBuilder &b = kb.builder();
  assert((!loader || !c.persistent) && "prologues are not persistent");
  if (!c.persistent) {
    RowThread t = rowOf(kb, c, setupLanes(kb, c), kb.blockId(),
                        /*check=*/false);
    Value base = rowBase(kb, c, t.row);
    auto load = [&](int64_t k) {
      if (loader)
        return loader(t, base, k);
      return kb.streamLoadF32(x, arith::AddIOp::create(b, base, t.colIndex[k]),
                              c.vec, t.pred[k]);
    };
    body(t, base, load, {}, Value());
    return;
  }
  RowLanes l = setupLanes(kb, c);
  SmallVector<Value> hoisted;
  if (c.hoist)
    hoisted = hoist(l);
  // f32 vectors need no conversion: used directly, not carried.
  bool carryHoisted =
      !hoisted.empty() &&
      !cast<VectorType>(hoisted.front().getType()).getElementType().isF32();
  Value first = kb.blockId(), step = kb.gridDim();
  SmallVector<Value> init;
  if (c.prefetch) {
    // The grid may exceed the groups: check even the first one.
    RowThread t0 = rowOf(kb, c, l, first, /*check=*/true);
    init = loadRowRaw(kb, c, l, t0, x, rowBase(kb, c, t0.row));
  }
  int64_t numPrefetched = init.size();
  if (carryHoisted)
    init.append(hoisted);
  init.push_back(kb.idx(0));
  auto loop = scf::ForOp::create(b, first, kb.idx(c.groups), step, init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value group = loop.getInductionVar();
  ValueRange carried = loop.getRegionIterArgs();
  Value parity = carried.back();
  if (carryHoisted)
    hoisted = llvm::to_vector(carried.drop_front(numPrefetched).drop_back());
  SmallVector<Value> yields;
  if (c.prefetch) {
    RowThread tn = rowOf(kb, c, l, arith::AddIOp::create(b, group, step),
                         /*check=*/true);
    yields = loadRowRaw(kb, c, l, tn, x, rowBase(kb, c, tn.row));
  }
  RowThread t = rowOf(kb, c, l, group, /*check=*/false);
  Value base = rowBase(kb, c, t.row);
  auto load = [&](int64_t k) -> Value {
    if (c.prefetch)
      return kb.extF32(carried[k]);
    return kb.streamLoadF32(x, arith::AddIOp::create(b, base, t.colIndex[k]),
                            c.vec, t.pred[k]);
  };
  body(t, base, load, hoisted, parity);
  if (carryHoisted)
    for (Value h : hoisted)
      yields.push_back(opaqueCopy(kb, h));
  yields.push_back(arith::XOrIOp::create(b, parity, kb.idx(1)));
  scf::YieldOp::create(b, yields);
}

ChainEvaluator::ChainEvaluator(OpBuilder &b, FusedOp chain)
    : chain(chain), constants(cloneConstantsAbove(b, chain.getBody().front())),
      fastTanh(getElementTypeOrSelf(chain->getResult(0)).isBF16()) {}

SmallVector<Value> ChainEvaluator::evaluate(ImplicitLocOpBuilder &b,
                                            ValueRange ins, int64_t vec) const {
  Block &body = chain->getRegion(0).front();
  ValueRange yielded = body.getTerminator()->getOperands();
  SmallVector<SmallVector<Value>> elems(yielded.size());
  for (int64_t j = 0; j < vec; ++j) {
    IRMapping mapping;
    for (auto [above, inKernel] : constants)
      mapping.map(above, inKernel);
    for (auto [arg, v] : llvm::zip_equal(body.getArguments(), ins))
      mapping.map(arg, vector::ExtractOp::create(b, v, ArrayRef<int64_t>{j}));
    for (Operation &op : body.without_terminator())
      cloneElementOp(b, op, mapping, fastTanh);
    for (auto [i, y] : llvm::enumerate(yielded))
      elems[i].push_back(mapping.lookupOrDefault(y));
  }
  SmallVector<Value> out;
  for (auto [y, es] : llvm::zip_equal(yielded, elems))
    out.push_back(vector::FromElementsOp::create(
        b, VectorType::get({vec}, y.getType()), es));
  return out;
}

namespace {
/// A norm's elementwise prologue (matchNormPrologue) evaluated per vector
/// of a row: its inputs loaded in their element type, its body evaluated
/// (ChainEvaluator), its result stored when others read it too.
struct Prologue {
  std::optional<ChainEvaluator> chain;
  SmallVector<Value> inputs; // the kernel's flattened buffers
  Value out;                 // the chain's result buffer, or null

  Value vector(KernelBuilder &kb, const RowConfig &c, const RowThread &t,
               Value base, int64_t k) {
    ImplicitLocOpBuilder &b = kb.builder();
    Value at = arith::AddIOp::create(b, base, t.colIndex[k]);
    SmallVector<Value> ats(inputs.size(), at);
    SmallVector<Value> raw = kb.loadAll(inputs, ats, c.vec, t.pred[k],
                                        /*toF32=*/false, /*stream=*/true);
    Value f32 = kb.extF32(chain->evaluate(b, raw, c.vec)[0]);
    if (out)
      kb.streamStoreF32(out, at, f32, t.pred[k]);
    return f32;
  }
};
} // namespace

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildNormKernel(Operation *op, gpu::GPUModuleOp module,
                                     StringRef name, const Tuning &tuning,
                                     FusedOp prologue) {
  auto ln = dyn_cast<LayerNormOp>(op);
  auto rms = dyn_cast<RMSNormOp>(op);
  Value input = ln ? ln.getInput() : rms.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  auto [rows, cols] = rowsAndColumns(inType, normalizedRankOf(op));
  FailureOr<RowConfig> cfg =
      chooseRowConfig(op, rows, cols, inType.getElementType(), tuning);
  if (failed(cfg))
    return failure();
  const RowConfig &c = *cfg;

  if (prologue && c.persistent)
    return op->emitOpError("norm prologues need a non-persistent row kernel");
  // With a prologue the kernel takes the chain's inputs instead of the
  // norm's input, and writes the chain's result too when others read it.
  SmallVector<Value> operands, results;
  bool prologueOut = false;
  if (prologue) {
    llvm::append_range(operands, prologue.getInputs());
    llvm::append_range(operands, op->getOperands().drop_front());
    llvm::append_range(results, op->getResults());
    prologueOut = !prologue->getResult(0).hasOneUse();
    if (prologueOut)
      results.push_back(prologue->getResult(0));
  }
  ImplicitLocOpBuilder b(op->getLoc(), op->getContext());
  auto [launch, smem, smem2] =
      startRowKernel(b, op, c, module, name,
                     /*runtimeSizedGrid=*/true, results, operands);
  gpu::GPUFuncOp func = launch.kernel;
  // The rows are read once and written once (cache hints); the weight and
  // bias, shared by every row, keep plain loads.
  KernelBuilder kb(b, tuning.cacheHints);
  ValueRange args = func.getArguments();
  unsigned a = 0;
  Prologue pro;
  Value x;
  if (prologue) {
    for (size_t i = 0; i < prologue.getInputs().size(); ++i)
      pro.inputs.push_back(kb.flatten(args[a++]));
    // The kernel's last parameter (the entry block's arguments go on with
    // the workgroup attributions).
    if (prologueOut)
      pro.out = kb.flatten(args[func.getFunctionType().getNumInputs() - 1]);
    pro.chain.emplace(b, prologue);
  } else {
    x = kb.flatten(args[a++]);
  }
  Value weight, bias;
  if (ln ? bool(ln.getWeight()) : bool(rms.getWeight()))
    weight = kb.flatten(args[a++]);
  if (ln && ln.getBias())
    bias = kb.flatten(args[a++]);
  Value out = kb.flatten(args[a++]);
  Value meanOut, rstdOut;
  if (ln && ln.getMean())
    meanOut = kb.flatten(args[a++]);
  if ((ln && ln.getRstd()) || (rms && rms.getRstd()))
    rstdOut = kb.flatten(args[a++]);

  // Persistent kernels may load the weight and bias once, before the row
  // loop: weight vectors, then bias vectors, in their element type.
  auto hoist = [&](const RowLanes &l) {
    SmallVector<Value> vs;
    for (Value buf : {weight, bias})
      for (int64_t k = 0; buf && k < c.perThread; ++k)
        vs.push_back(kb.loadAll({buf}, {l.colIndex[k]}, c.vec, l.inRow[k],
                                /*toF32=*/false, /*stream=*/false)[0]);
    return vs;
  };
  Value invCols = kb.f32(1.0 / static_cast<double>(cols));
  float eps =
      ln ? ln.getEpsilon().convertToFloat() : rms.getEpsilon().convertToFloat();
  auto body = [&](const RowThread &t, Value base, RowVector load,
                  ArrayRef<Value> hoisted, Value parity) {
    SmallVector<Value> xs;
    for (int64_t k = 0; k < c.perThread; ++k)
      xs.push_back(load(k));
    Value mean;
    SmallVector<Value> centered = xs;
    Value sq = kb.f32(0.0);
    if (ln) {
      Value s = kb.f32(0.0);
      for (Value v : xs)
        s = arith::AddFOp::create(b, s, kb.reduceVector(ReduceKind::Sum, v));
      s = kb.groupReduce(s, ReduceKind::Sum, c.threadsPerRow, t.lane,
                         t.rowInBlock, smem);
      mean = arith::MulFOp::create(b, s, invCols);
      Value meanVec = kb.splat(mean, c.vec);
      for (int64_t k = 0; k < c.perThread; ++k)
        centered[k] = maskVec(kb, arith::SubFOp::create(b, xs[k], meanVec),
                              t.pred[k], 0.0);
    }
    for (Value v : centered)
      sq = arith::AddFOp::create(
          b, sq,
          kb.reduceVector(ReduceKind::Sum, arith::MulFOp::create(b, v, v)));
    // RMSNorm's one reduction per row has no other barrier between two rows
    // of a persistent block: alternate its slots. (LayerNorm's two
    // reductions separate each other's reuse.)
    Value slotGroup = t.rowInBlock;
    if (parity && !ln)
      slotGroup = arith::AddIOp::create(
          b, slotGroup,
          arith::MulIOp::create(b, parity, kb.idx(c.rowsPerBlock)));
    sq = kb.groupReduce(sq, ReduceKind::Sum, c.threadsPerRow, t.lane, slotGroup,
                        smem2);
    Value var = arith::MulFOp::create(b, sq, invCols);
    Value rstd =
        math::RsqrtOp::create(b, arith::AddFOp::create(b, var, kb.f32(eps)));
    Value rstdVec = kb.splat(rstd, c.vec);
    int64_t biasAt = weight ? c.perThread : 0;
    for (int64_t k = 0; k < c.perThread; ++k) {
      Value o = arith::MulFOp::create(b, centered[k], rstdVec);
      if (weight)
        o = arith::MulFOp::create(
            b, o,
            hoisted.empty()
                ? kb.loadF32(weight, t.colIndex[k], c.vec, t.pred[k])
                : kb.extF32(hoisted[k]));
      if (bias)
        o = arith::AddFOp::create(
            b, o,
            hoisted.empty() ? kb.loadF32(bias, t.colIndex[k], c.vec, t.pred[k])
                            : kb.extF32(hoisted[biasAt + k]));
      kb.streamStoreF32(out, arith::AddIOp::create(b, base, t.colIndex[k]), o,
                        t.pred[k]);
    }
    if (meanOut)
      storeRowStat(kb, t, meanOut, mean);
    if (rstdOut)
      storeRowStat(kb, t, rstdOut, rstd);
  };
  auto loader = [&](const RowThread &t, Value base, int64_t k) {
    return pro.vector(kb, c, t, base, k);
  };
  forEachRow(kb, c, x, hoist, body, prologue ? RowLoader(loader) : nullptr);
  return launch;
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildSoftmaxKernel(SoftmaxOp op, gpu::GPUModuleOp module,
                                        StringRef name, const Tuning &tuning) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> shape = inType.getShape();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(op.getDimension()) != rank - 1)
    return op.emitOpError("the softmax row kernel takes the trailing "
                          "dimension only; got dimension ")
           << op.getDimension() << " of " << rank
           << " (sinter-tensor-ops-to-linalg, which the NVVM pipeline runs "
              "first, lowers other axes to the general path)";
  int64_t cols = shape.back();
  int64_t rows = inType.getNumElements() / std::max<int64_t>(cols, 1);
  FailureOr<RowConfig> cfg =
      chooseRowConfig(op, rows, cols, inType.getElementType(), tuning);
  if (failed(cfg))
    return failure();
  const RowConfig &c = *cfg;

  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  auto [launch, smem, smem2] = startRowKernel(b, op, c, module, name);
  gpu::GPUFuncOp func = launch.kernel;
  // Rows read and written once (cache hints); the mask, which broadcasts
  // over rows, keeps plain loads.
  KernelBuilder kb(b, tuning.cacheHints);
  Value x = kb.flatten(func.getArgument(0));
  Value mask = op.getMask() ? kb.flatten(func.getArgument(1)) : Value();
  Value out =
      kb.flatten(func.getArgument(func.getFunctionType().getNumInputs() - 1));

  auto body = [&](const RowThread &t, Value base, RowVector load,
                  ArrayRef<Value>, Value) {
    // The mask broadcasts to the input (numpy rules): map the row's leading
    // coordinates to the mask's, with stride 0 along broadcast dimensions.
    Value maskBase;
    bool maskAlongRow = false;
    if (mask) {
      ArrayRef<int64_t> mshape =
          cast<RankedTensorType>(op.getMask().getType()).getShape();
      int64_t offset = rank - static_cast<int64_t>(mshape.size());
      maskAlongRow = !mshape.empty() && mshape.back() == cols && cols != 1;
      // Unravel the row index over the input's leading dims (innermost first).
      Value rem = t.row;
      maskBase = kb.idx(0);
      int64_t mstride = mshape.empty() || mshape.back() == 1 ? 1 : cols;
      for (int64_t d = rank - 2; d >= 0; --d) {
        Value coord = arith::RemUIOp::create(b, rem, kb.idx(shape[d]));
        rem = arith::DivUIOp::create(b, rem, kb.idx(shape[d]));
        int64_t md = d - offset;
        if (md < 0)
          continue;
        if (mshape[md] != 1)
          maskBase = arith::AddIOp::create(
              b, maskBase, arith::MulIOp::create(b, coord, kb.idx(mstride)));
        mstride *= mshape[md];
      }
    }

    double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0;
    double ninf = -std::numeric_limits<double>::infinity();
    // A mask constant along the row is one scalar per row.
    Value scalarMask;
    if (mask && !maskAlongRow) {
      Value m1 = kb.loadF32(mask, maskBase, 1, t.rowValid, 0.0, false);
      scalarMask = kb.splat(
          vector::ExtractOp::create(b, m1, ArrayRef<int64_t>{0}), c.vec);
    }
    SmallVector<Value> xs;
    Value mx = kb.f32(ninf);
    for (int64_t k = 0; k < c.perThread; ++k) {
      Value v = load(k);
      if (scale != 1.0)
        v = arith::MulFOp::create(b, v, kb.splat(kb.f32(scale), c.vec));
      if (mask) {
        Value m;
        if (maskAlongRow) {
          m = kb.loadF32(mask,
                         arith::AddIOp::create(b, maskBase, t.colIndex[k]),
                         c.vec, t.pred[k]);
        } else {
          m = scalarMask;
        }
        v = arith::AddFOp::create(b, v, m);
      }
      v = maskVec(kb, v, t.pred[k], ninf);
      xs.push_back(v);
      mx =
          arith::MaximumFOp::create(b, mx, kb.reduceVector(ReduceKind::Max, v));
    }
    mx = kb.groupReduce(mx, ReduceKind::Max, c.threadsPerRow, t.lane,
                        t.rowInBlock, smem);
    // A row of -inf has no mass: subtract 0 instead of -inf to avoid NaN and
    // produce zeros below.
    Value isEmpty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mx, kb.f32(ninf));
    mx = arith::SelectOp::create(b, isEmpty, kb.f32(0.0), mx);
    Value mxVec = kb.splat(mx, c.vec);
    Value sum = kb.f32(0.0);
    SmallVector<Value> es;
    for (Value v : xs) {
      Value e = math::ExpOp::create(b, arith::SubFOp::create(b, v, mxVec));
      es.push_back(e);
      sum = arith::AddFOp::create(b, sum, kb.reduceVector(ReduceKind::Sum, e));
    }
    sum = kb.groupReduce(sum, ReduceKind::Sum, c.threadsPerRow, t.lane,
                         t.rowInBlock, smem2);
    Value positive =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, sum, kb.f32(0.0));
    Value inv = arith::SelectOp::create(
        b, positive, arith::DivFOp::create(b, kb.f32(1.0), sum), kb.f32(0.0));
    Value invVec = kb.splat(inv, c.vec);
    for (int64_t k = 0; k < c.perThread; ++k)
      kb.streamStoreF32(out, arith::AddIOp::create(b, base, t.colIndex[k]),
                        arith::MulFOp::create(b, es[k], invVec), t.pred[k]);
  };
  forEachRow(
      kb, c, x, [](const RowLanes &) { return SmallVector<Value>(); }, body);
  return launch;
}
