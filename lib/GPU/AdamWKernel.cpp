//===- AdamWKernel.cpp - Multi-tensor AdamW on CUDA -----------------------===//
//
// Part of the Sinter project.
//
// One flat pass over every tensor of a sinter.adamw: blocks are assigned to
// fixed-size chunks of the tensors (a static table: block b belongs to the
// tensor whose chunk range holds b; tensors of one shape share one code
// path), each thread updates 16-byte vectors of
// parameter, gradient and moments in f32 and writes them back in place.
// Tensors are split over several launches of at most kTensorsPerLaunch
// tensors so that the pointers fit the kernel parameter space.
//
// Persistent variants (Tuning::adamwPersistent): a grid sized to the chip
// with the same number of chunks per block, one loop per group of tensors
// of one shape (no per-chunk group test); variant 2 updates one vector per
// thread per chunk and loads the next chunk's parameter, gradient and
// moments before the current chunk is updated and stored.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

static constexpr int64_t kBlock = 256;
static constexpr int64_t kVectorsPerThread = 2;
static constexpr int64_t kMaxBlocks = 1024;

namespace {

/// One tensor of a launch: its position among the op's tensors, its vector
/// width (4 f32 = 16 bytes when the size allows), its chunk count (chunks of
/// kBlock x vectorsPerThread vectors) and the launch's chunk it starts at.
struct Part {
  unsigned index;
  int64_t numel, width, blocks, startBlock;
};

/// One vector a thread updates: its element index, its predicate (null:
/// always in bounds) and the parameter, gradient and moments loaded there.
struct Vec {
  Value index, pred, p, g, m, v;
};

/// A chunk's four buffers and the thread's vectors in it.
struct ChunkView {
  SmallVector<Value> bufs;
  SmallVector<Vec> vecs;
};

/// The parts of the op's tensors [first, last), laid out chunk after chunk;
/// `chunks` receives their total.
SmallVector<Part> planParts(AdamWOp op, unsigned first, unsigned last,
                            int64_t vectorsPerThread, int64_t &chunks) {
  SmallVector<Part> parts;
  chunks = 0;
  for (unsigned t = first; t < last; ++t) {
    auto type = cast<RankedTensorType>(op.getParams()[t].getType());
    int64_t numel = type.getNumElements();
    int64_t width = numel % 4 == 0 ? 4 : 1;
    int64_t chunk = kBlock * vectorsPerThread * width;
    int64_t b = std::max<int64_t>(1, llvm::divideCeil(numel, chunk));
    parts.push_back({t, numel, width, b, chunks});
    chunks += b;
  }
  return parts;
}

/// The launch of `parts` (without its kernel): the grid, the four buffers
/// of each tensor then lr and step, and the results written in place.
KernelLaunch planLaunch(AdamWOp op, ArrayRef<Part> parts, int64_t chunks,
                        const Tuning &tuning) {
  KernelLaunch launch;
  launch.block = kBlock;
  // Persistent blocks: each loops over chunks `grid` apart, so the
  // per-thread setup (bias corrections) is paid once, not per chunk.
  launch.grid = tuning.adamwPersistent ? persistentGrid(tuning, chunks, kBlock)
                                       : std::min<int64_t>(chunks, kMaxBlocks);
  if (tuning.adamwPersistent) {
    launch.persistentWork = chunks;
    launch.persistentCtasPerSM = persistentCtasPerSM(tuning, kBlock);
  }
  for (const Part &p : parts) {
    launch.operands.push_back(op.getParams()[p.index]);
    launch.operands.push_back(op.getGrads()[p.index]);
    launch.operands.push_back(op.getExpAvgs()[p.index]);
    launch.operands.push_back(op.getExpAvgSqs()[p.index]);
  }
  launch.operands.push_back(kernelScalarOperand(op.getLr()));
  launch.operands.push_back(kernelScalarOperand(op.getStep()));
  // Results are written in place into the param and moment buffers.
  for (auto [k, p] : llvm::enumerate(parts)) {
    unsigned base = 4 * k;
    launch.inPlace.push_back({op.getNewParams()[p.index], base});
    launch.inPlace.push_back({op.getNewExpAvgs()[p.index], base + 2});
    launch.inPlace.push_back({op.getNewExpAvgSqs()[p.index], base + 3});
  }
  return launch;
}

/// The body of one launch's kernel: the step's scalars, then one loop over
/// the chunks (or, persistent, one per group of tensors of one shape).
class AdamWBody {
public:
  AdamWBody(AdamWOp op, ImplicitLocOpBuilder &b, KernelBuilder &kb,
            gpu::GPUFuncOp func, ArrayRef<Part> parts, int64_t vectorsPerThread)
      : b(b), kb(kb), func(func), parts(parts),
        vectorsPerThread(vectorsPerThread),
        beta1(op.getBeta1().convertToDouble()),
        beta2(op.getBeta2().convertToDouble()),
        eps(op.getEps().convertToDouble()),
        wd(op.getWeightDecay().convertToDouble()) {}

  /// lr and step (the last two arguments), the step-dependent scalars and
  /// the thread index.
  void emitStepScalars();
  /// Tensors of one shape share one code path: chunk c of the group works
  /// on tensor k = (c - start) / chunksPerTensor, whose buffers a switch
  /// picks. One path per shape keeps the kernel small (a path per tensor
  /// would thrash the instruction cache).
  SmallVector<SmallVector<unsigned>> shapeGroups();
  /// Persistent: one loop per group over its chunks [lo, hi) that are
  /// blockIdx.x modulo gridDim.x: the chunks of the default's single loop,
  /// in the same order, without testing each chunk's group.
  void emitPersistentGroups(ArrayRef<SmallVector<unsigned>> groups,
                            bool prefetch);
  /// One loop over every chunk, each testing which group it belongs to.
  void emitChunkLoop(ArrayRef<SmallVector<unsigned>> groups,
                     int64_t totalChunks, int64_t grid);

private:
  /// The four buffers of tensor `which` of `group` (flattened).
  SmallVector<Value> buffersOf(ArrayRef<unsigned> group, Value which);
  /// The update of one vector, stored in place.
  void update(ArrayRef<Value> bufs, const Vec &x, int64_t w);
  /// Chunk `chunk` of `group` (chunks [lo, hi)): its buffers and the
  /// thread's vectors in it; with `checkEnd`, vectors of chunks past the
  /// group are predicated off.
  ChunkView chunkAt(ArrayRef<unsigned> group, int64_t lo, int64_t hi,
                    Value chunk, bool checkEnd);
  /// The four vectors of each of `a`'s, under one branch.
  void load(ChunkView &a, int64_t w);
  void emitPersistentGroup(ArrayRef<unsigned> group, bool prefetch, Value bid,
                           Value grid);
  /// The chunk `chunk` of `group` when it is one of the group's.
  void emitChunkIfInGroup(ArrayRef<unsigned> group, Value chunk);

  ImplicitLocOpBuilder &b;
  KernelBuilder &kb;
  gpu::GPUFuncOp func;
  ArrayRef<Part> parts;
  int64_t vectorsPerThread;
  double beta1, beta2, eps, wd;
  Value stepSize, bc2Sqrt, decay, tid;
};

} // namespace

void AdamWBody::emitStepScalars() {
  unsigned numArgs = func.getFunctionType().getNumInputs();
  Value lr = scalarInKernel(b, func.getArgument(numArgs - 2));
  Value step = scalarInKernel(b, func.getArgument(numArgs - 1));
  // Step-dependent scalars, once per thread (as torch.optim.AdamW):
  // step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t).
  Value one = kb.f32(1.0);
  Value bc1 = arith::SubFOp::create(
      b, one, math::PowFOp::create(b, kb.f32(beta1), step));
  Value bc2 = arith::SubFOp::create(
      b, one, math::PowFOp::create(b, kb.f32(beta2), step));
  stepSize = arith::DivFOp::create(b, lr, bc1);
  bc2Sqrt = math::SqrtOp::create(b, bc2);
  decay =
      arith::SubFOp::create(b, one, arith::MulFOp::create(b, lr, kb.f32(wd)));
  tid = kb.threadId();
}

SmallVector<SmallVector<unsigned>> AdamWBody::shapeGroups() {
  SmallVector<SmallVector<unsigned>> groups;
  for (auto [k, p] : llvm::enumerate(parts)) {
    auto sameShape = [&](SmallVector<unsigned> &g) {
      const Part &q = parts[g.front()];
      for (unsigned j = 0; j < 4; ++j)
        if (func.getArgument(4 * g.front() + j).getType() !=
            func.getArgument(4 * k + j).getType())
          return false;
      return q.width == p.width;
    };
    if (groups.empty() || !sameShape(groups.back()))
      groups.push_back({});
    groups.back().push_back(k);
  }
  return groups;
}

SmallVector<Value> AdamWBody::buffersOf(ArrayRef<unsigned> group, Value which) {
  SmallVector<Value> bufs;
  if (group.size() == 1) {
    for (unsigned j = 0; j < 4; ++j)
      bufs.push_back(func.getArgument(4 * group.front() + j));
  } else {
    SmallVector<Type> types;
    for (unsigned j = 0; j < 4; ++j)
      types.push_back(func.getArgument(4 * group.front() + j).getType());
    SmallVector<int64_t> cases;
    for (unsigned i = 1; i < group.size(); ++i)
      cases.push_back(i);
    auto sw = scf::IndexSwitchOp::create(b, types, which, cases, cases.size());
    auto yieldTensor = [&](Region &r, unsigned t) {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&r.emplaceBlock());
      SmallVector<Value> vals;
      for (unsigned j = 0; j < 4; ++j)
        vals.push_back(func.getArgument(4 * t + j));
      scf::YieldOp::create(b, vals);
    };
    yieldTensor(sw.getDefaultRegion(), group.front());
    for (unsigned i = 1; i < group.size(); ++i)
      yieldTensor(sw.getCaseRegions()[i - 1], group[i]);
    bufs.assign(sw.getResults().begin(), sw.getResults().end());
  }
  for (Value &buf : bufs)
    buf = kb.flatten(buf);
  return bufs;
}

void AdamWBody::update(ArrayRef<Value> bufs, const Vec &x, int64_t w) {
  auto splat = [&](Value s) { return kb.splat(s, w); };
  Value pNew = arith::MulFOp::create(b, x.p, splat(decay));
  Value mNew = arith::AddFOp::create(
      b, arith::MulFOp::create(b, x.m, splat(kb.f32(beta1))),
      arith::MulFOp::create(b, x.g, splat(kb.f32(1.0 - beta1))));
  Value g2 = arith::MulFOp::create(b, x.g, x.g);
  Value vNew = arith::AddFOp::create(
      b, arith::MulFOp::create(b, x.v, splat(kb.f32(beta2))),
      arith::MulFOp::create(b, g2, splat(kb.f32(1.0 - beta2))));
  Value denom = arith::AddFOp::create(
      b,
      arith::DivFOp::create(b, math::SqrtOp::create(b, vNew), splat(bc2Sqrt)),
      splat(kb.f32(eps)));
  Value upd = arith::MulFOp::create(b, splat(stepSize),
                                    arith::DivFOp::create(b, mNew, denom));
  pNew = arith::SubFOp::create(b, pNew, upd);
  kb.streamStoreF32(bufs[0], x.index, pNew, x.pred);
  kb.streamStoreF32(bufs[2], x.index, mNew, x.pred);
  kb.streamStoreF32(bufs[3], x.index, vNew, x.pred);
}

ChunkView AdamWBody::chunkAt(ArrayRef<unsigned> group, int64_t lo, int64_t hi,
                             Value chunk, bool checkEnd) {
  const Part &p = parts[group.front()];
  int64_t nvec = p.numel / p.width;
  bool ragged = p.blocks * kBlock * vectorsPerThread > nvec;
  ChunkView a;
  Value rel = arith::SubIOp::create(b, chunk, kb.idx(lo));
  Value which = arith::DivUIOp::create(b, rel, kb.idx(p.blocks));
  Value blockInTensor = arith::RemUIOp::create(b, rel, kb.idx(p.blocks));
  a.bufs = buffersOf(group, which);
  Value chunkBase = arith::MulIOp::create(b, blockInTensor,
                                          kb.idx(kBlock * vectorsPerThread));
  Value inGroup;
  if (checkEnd)
    inGroup =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk, kb.idx(hi));
  for (int64_t j = 0; j < vectorsPerThread; ++j) {
    Vec x;
    Value vi = arith::AddIOp::create(
        b, chunkBase, arith::AddIOp::create(b, tid, kb.idx(j * kBlock)));
    x.pred = inGroup;
    if (ragged) {
      Value inTensor =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, vi, kb.idx(nvec));
      x.pred = x.pred ? arith::AndIOp::create(b, x.pred, inTensor).getResult()
                      : inTensor;
    }
    x.index = arith::MulIOp::create(b, vi, kb.idx(p.width));
    a.vecs.push_back(x);
  }
  return a;
}

void AdamWBody::load(ChunkView &a, int64_t w) {
  for (Vec &x : a.vecs) {
    SmallVector<Value> idx(4, x.index);
    SmallVector<Value> vs = kb.loadAll(a.bufs, idx, w, x.pred,
                                       /*toF32=*/true, /*stream=*/true);
    x.p = vs[0];
    x.g = vs[1];
    x.m = vs[2];
    x.v = vs[3];
  }
}

void AdamWBody::emitPersistentGroups(ArrayRef<SmallVector<unsigned>> groups,
                                     bool prefetch) {
  Value bid = kb.blockId(), grid = kb.gridDim();
  for (ArrayRef<unsigned> group : groups)
    emitPersistentGroup(group, prefetch, bid, grid);
}

// With prefetch (variant 2) the loop carries the next chunk's vectors, and
// the buffers of a chunk are selected twice, for its loads and for its
// stores: carrying them through the loop instead loses their global
// address space, and the accesses become generic ld/st.
void AdamWBody::emitPersistentGroup(ArrayRef<unsigned> group, bool prefetch,
                                    Value bid, Value grid) {
  const Part &p = parts[group.front()];
  int64_t w = p.width;
  int64_t lo = p.startBlock, hi = lo + p.blocks * group.size();
  // The block's first chunk of the group: lo + (bid - lo) mod grid.
  Value start = arith::AddIOp::create(
      b, kb.idx(lo),
      arith::RemUIOp::create(
          b,
          arith::SubIOp::create(b, arith::AddIOp::create(b, bid, grid),
                                arith::RemUIOp::create(b, kb.idx(lo), grid)),
          grid));
  SmallVector<Value> init;
  if (prefetch) {
    ChunkView first = chunkAt(group, lo, hi, start, /*checkEnd=*/true);
    load(first, w);
    for (const Vec &x : first.vecs)
      init.append({x.p, x.g, x.m, x.v});
  }
  auto loop = scf::ForOp::create(b, start, kb.idx(hi), grid, init);
  OpBuilder::InsertionGuard loopGuard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = loop.getInductionVar();
  SmallVector<Value> yields;
  if (prefetch) {
    ChunkView next =
        chunkAt(group, lo, hi, arith::AddIOp::create(b, chunk, grid),
                /*checkEnd=*/true);
    load(next, w);
    for (const Vec &x : next.vecs)
      yields.append({x.p, x.g, x.m, x.v});
  }
  ChunkView cur = chunkAt(group, lo, hi, chunk, /*checkEnd=*/false);
  if (prefetch) {
    ValueRange carried = loop.getRegionIterArgs();
    for (size_t j = 0; j < cur.vecs.size(); ++j) {
      Vec &x = cur.vecs[j];
      x.p = carried[4 * j];
      x.g = carried[4 * j + 1];
      x.m = carried[4 * j + 2];
      x.v = carried[4 * j + 3];
    }
  } else {
    load(cur, w);
  }
  for (const Vec &x : cur.vecs)
    update(cur.bufs, x, w);
  // (Without carried values the loop has its implicit yield.)
  if (prefetch)
    scf::YieldOp::create(b, yields);
}

void AdamWBody::emitChunkLoop(ArrayRef<SmallVector<unsigned>> groups,
                              int64_t totalChunks, int64_t grid) {
  auto loop =
      scf::ForOp::create(b, kb.blockId(), kb.idx(totalChunks), kb.idx(grid));
  OpBuilder::InsertionGuard loopGuard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = loop.getInductionVar();
  for (ArrayRef<unsigned> group : groups)
    emitChunkIfInGroup(group, chunk);
}

void AdamWBody::emitChunkIfInGroup(ArrayRef<unsigned> group, Value chunk) {
  const Part &p = parts[group.front()];
  Value lo = kb.idx(p.startBlock);
  Value hi = kb.idx(p.startBlock + p.blocks * group.size());
  Value inRange = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::uge, chunk, lo),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk, hi));
  auto ifOp = scf::IfOp::create(b, inRange, [&](OpBuilder &ob, Location l) {
    scf::YieldOp::create(ob, l);
  });
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value rel = arith::SubIOp::create(b, chunk, lo);
  Value which = arith::DivUIOp::create(b, rel, kb.idx(p.blocks));
  Value blockInTensor = arith::RemUIOp::create(b, rel, kb.idx(p.blocks));
  SmallVector<Value> bufs = buffersOf(group, which);
  Value param = bufs[0], grad = bufs[1], m = bufs[2], v = bufs[3];
  int64_t w = p.width;
  int64_t nvec = p.numel / w;
  Value chunkBase = arith::MulIOp::create(b, blockInTensor,
                                          kb.idx(kBlock * vectorsPerThread));
  // All loads first, then the math, then the stores.
  SmallVector<Vec> vecs;
  for (int64_t j = 0; j < vectorsPerThread; ++j) {
    Vec x;
    Value vi = arith::AddIOp::create(
        b, chunkBase, arith::AddIOp::create(b, tid, kb.idx(j * kBlock)));
    if ((p.blocks * kBlock * vectorsPerThread) > nvec)
      x.pred =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, vi, kb.idx(nvec));
    x.index = arith::MulIOp::create(b, vi, kb.idx(w));
    x.p = kb.streamLoadF32(param, x.index, w, x.pred);
    x.g = kb.streamLoadF32(grad, x.index, w, x.pred);
    x.m = kb.streamLoadF32(m, x.index, w, x.pred);
    x.v = kb.streamLoadF32(v, x.index, w, x.pred);
    vecs.push_back(x);
  }
  for (Vec &x : vecs)
    update(bufs, x, w);
}

FailureOr<SmallVector<KernelLaunch, 1>>
sinter::gpu_kernels::buildAdamWKernels(AdamWOp op, gpu::GPUModuleOp module,
                                       StringRef baseName,
                                       const Tuning &tuning) {
  unsigned n = op.getNumTensors();
  SmallVector<KernelLaunch, 1> launches;
  // Variant 2 carries one chunk's vectors across the loop: one vector per
  // thread keeps the registers those of the default's two.
  int64_t vectorsPerThread =
      tuning.adamwPersistent >= 2 ? 1 : kVectorsPerThread;
  for (unsigned first = 0; first < n; first += kTensorsPerLaunch) {
    unsigned last = std::min<unsigned>(n, first + kTensorsPerLaunch);
    int64_t chunks = 0;
    SmallVector<Part> parts =
        planParts(op, first, last, vectorsPerThread, chunks);
    KernelLaunch launch = planLaunch(op, parts, chunks, tuning);

    ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
    std::string name =
        (baseName + (n > kTensorsPerLaunch
                         ? "_part" + std::to_string(first / kTensorsPerLaunch)
                         : std::string()))
            .str();
    gpu::GPUFuncOp func =
        createKernel(b, module, name, bufferTypes(launch), launch.block);
    launch.kernel = func;
    if (tuning.adamwPersistent)
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(static_cast<int32_t>(
                        persistentCtasPerSM(tuning, kBlock))));
    b.setInsertionPointToStart(&func.getBody().front());
    // Each buffer is read once, params and moments written once: all of
    // them take the cache hint.
    KernelBuilder kb(b, tuning.cacheHints);
    AdamWBody body(op, b, kb, func, parts, vectorsPerThread);
    body.emitStepScalars();
    SmallVector<SmallVector<unsigned>> groups = body.shapeGroups();
    if (tuning.adamwPersistent)
      body.emitPersistentGroups(groups, tuning.adamwPersistent >= 2);
    else
      body.emitChunkLoop(groups, chunks, launch.grid);
    launches.push_back(std::move(launch));
  }
  return launches;
}
