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
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

FailureOr<SmallVector<KernelLaunch>>
sinter::gpu_kernels::buildAdamWKernels(AdamWOp op, gpu::GPUModuleOp module,
                                       StringRef baseName,
                                       const Tuning &tuning) {
  unsigned n = op.getNumTensors();
  SmallVector<KernelLaunch> launches;
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double eps = op.getEps().convertToDouble();
  double wd = op.getWeightDecay().convertToDouble();

  for (unsigned first = 0; first < n; first += kTensorsPerLaunch) {
    unsigned last = std::min<unsigned>(n, first + kTensorsPerLaunch);
    KernelLaunch launch;
    launch.block = kBlock;
    // Per tensor: vector width (4 f32 = 16 bytes when the size allows), the
    // chunk size and the first block of its chunk range.
    struct Part {
      unsigned index;
      int64_t numel, width, blocks, startBlock;
    };
    SmallVector<Part> parts;
    int64_t blocks = 0;
    for (unsigned t = first; t < last; ++t) {
      auto type = cast<RankedTensorType>(op.getParams()[t].getType());
      int64_t numel = type.getNumElements();
      int64_t width = numel % 4 == 0 ? 4 : 1;
      int64_t chunk = kBlock * kVectorsPerThread * width;
      int64_t b = std::max<int64_t>(1, llvm::divideCeil(numel, chunk));
      parts.push_back({t, numel, width, b, blocks});
      blocks += b;
    }
    // Persistent blocks: each loops over chunks `grid` apart, so the
    // per-thread setup (bias corrections) is paid once, not per chunk.
    launch.grid = std::min<int64_t>(blocks, kMaxBlocks);
    int64_t totalChunks = blocks;
    for (const Part &p : parts) {
      launch.operands.push_back(op.getParams()[p.index]);
      launch.operands.push_back(op.getGrads()[p.index]);
      launch.operands.push_back(op.getExpAvgs()[p.index]);
      launch.operands.push_back(op.getExpAvgSqs()[p.index]);
    }
    launch.operands.push_back(op.getLr());
    launch.operands.push_back(op.getStep());
    // Results are written in place into the param and moment buffers.
    for (auto [k, p] : llvm::enumerate(parts)) {
      unsigned base = 4 * k;
      launch.inPlace.push_back({op.getNewParams()[p.index], base});
      launch.inPlace.push_back({op.getNewExpAvgs()[p.index], base + 2});
      launch.inPlace.push_back({op.getNewExpAvgSqs()[p.index], base + 3});
    }

    ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
    std::string name =
        (baseName + (n > kTensorsPerLaunch
                         ? "_part" + std::to_string(first / kTensorsPerLaunch)
                         : std::string()))
            .str();
    gpu::GPUFuncOp func =
        createKernel(b, module, name, bufferTypes(launch), launch.block);
    launch.kernel = func;
    b.setInsertionPointToStart(&func.getBody().front());
    // Each buffer is read once, params and moments written once: all of
    // them take the cache hint.
    KernelBuilder kb(b, tuning.cacheHints);
    unsigned numArgs = func.getFunctionType().getNumInputs();
    Value lr = func.getArgument(numArgs - 2);
    Value step = func.getArgument(numArgs - 1);

    // Step-dependent scalars, once per thread (as torch.optim.AdamW):
    // step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t).
    Value one = kb.f32(1.0);
    Value bc1 = arith::SubFOp::create(
        b, one, math::PowFOp::create(b, kb.f32(beta1), step));
    Value bc2 = arith::SubFOp::create(
        b, one, math::PowFOp::create(b, kb.f32(beta2), step));
    Value stepSize = arith::DivFOp::create(b, lr, bc1);
    Value bc2Sqrt = math::SqrtOp::create(b, bc2);
    Value decay =
        arith::SubFOp::create(b, one, arith::MulFOp::create(b, lr, kb.f32(wd)));

    Value tid = kb.threadId();
    // Tensors of one shape share one code path: chunk c of the group works
    // on tensor k = (c - start) / chunksPerTensor, whose buffers a switch
    // picks. One path per shape keeps the kernel small (a path per tensor
    // would thrash the instruction cache).
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
    auto loop = scf::ForOp::create(b, kb.blockId(), kb.idx(totalChunks),
                                   kb.idx(launch.grid));
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value chunk = loop.getInductionVar();
    for (ArrayRef<unsigned> group : groups) {
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
      // The four buffers of tensor `which`.
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
        auto sw =
            scf::IndexSwitchOp::create(b, types, which, cases, cases.size());
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
      auto pick = [&](unsigned j) { return kb.flatten(bufs[j]); };
      Value param = pick(0), grad = pick(1), m = pick(2), v = pick(3);
      int64_t w = p.width;
      int64_t nvec = p.numel / w;
      Value chunkBase = arith::MulIOp::create(
          b, blockInTensor, kb.idx(kBlock * kVectorsPerThread));
      // All loads first, then the math, then the stores.
      struct Vec {
        Value index, pred, p, g, m, v;
      };
      SmallVector<Vec> vecs;
      for (int64_t j = 0; j < kVectorsPerThread; ++j) {
        Vec x;
        Value vi = arith::AddIOp::create(
            b, chunkBase, arith::AddIOp::create(b, tid, kb.idx(j * kBlock)));
        if ((p.blocks * kBlock * kVectorsPerThread) > nvec)
          x.pred = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, vi,
                                         kb.idx(nvec));
        x.index = arith::MulIOp::create(b, vi, kb.idx(w));
        x.p = kb.streamLoadF32(param, x.index, w, x.pred);
        x.g = kb.streamLoadF32(grad, x.index, w, x.pred);
        x.m = kb.streamLoadF32(m, x.index, w, x.pred);
        x.v = kb.streamLoadF32(v, x.index, w, x.pred);
        vecs.push_back(x);
      }
      auto splat = [&](Value s) { return kb.splat(s, w); };
      for (Vec &x : vecs) {
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
            arith::DivFOp::create(b, math::SqrtOp::create(b, vNew),
                                  splat(bc2Sqrt)),
            splat(kb.f32(eps)));
        Value upd = arith::MulFOp::create(
            b, splat(stepSize), arith::DivFOp::create(b, mNew, denom));
        pNew = arith::SubFOp::create(b, pNew, upd);
        kb.streamStoreF32(param, x.index, pNew, x.pred);
        kb.streamStoreF32(m, x.index, mNew, x.pred);
        kb.streamStoreF32(v, x.index, vNew, x.pred);
      }
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}
