//===- AttentionMMAKernel.cpp - Tensor-core attention --------------------===//
//
// Part of the Sinter project.
//
// FlashAttention-2's forward pass on the tensor cores of sm_80 and later
// (mma.sync.m16n8k16, bf16/f16 operands, f32 accumulators):
//
//  * one block of `warps` warps per (batch, query head, tile of BM query
//    rows), BM = 16 * mTiles * warps; each warp owns 16 * mTiles rows;
//  * Q (BM x D), K and V (BN x D each) live in dynamic shared memory, rows
//    padded by 16 bytes so that ldmatrix's eight row addresses fall in
//    distinct banks; tiles arrive with cp.async (16 bytes per copy, the
//    rows past the sequence zero-filled by the copy itself);
//  * per key tile: S = Q K^T with ldmatrix (K as the "column-major" B
//    operand needs no transpose) and mma.sync; online softmax on the
//    accumulator fragments in registers (row max across the four lanes of
//    a quad with two shuffles, exp2 with scale*log2(e) folded into one fma,
//    per-lane partial row sums reduced once at the end); the f32
//    probabilities are packed to bf16/f16 and reused in place as the A
//    operand of O += P V (the m16n8k16 accumulator layout of two adjacent
//    n-tiles is the A layout of one k-step), V through ldmatrix.trans;
//  * V of tile t loads while S of tile t is computed, K of tile t+1 while
//    P V of tile t is; causal blocks stop at their last visible key tile,
//    and only tiles that cross the diagonal or the sequence end pay for
//    the per-element mask; heavy causal blocks are scheduled first.
//
// On sm_90a (`wgmma` configurations) the same schedule runs on warpgroup
// MMA: each warpgroup owns 64 query rows; Q, K and V tiles are 64-column
// panels in wgmma's 128-byte swizzle, read through matrix descriptors;
// S = Q K^T is D/16 wgmma m64nBNk16 (both operands in shared memory), P V is
// BN/16 wgmma m64nDk16 with P from registers (the accumulator layout per
// warp is mma.sync's, so the softmax code is shared) and V N-major. The
// accumulators pass through the wgmma.fence / wait_group inline asm as tied
// operands, so nothing touches them while a wgmma is in flight.
//
// Peak memory is O(S): nothing of size Sq x Skv is ever materialised.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "sinter/Conversion/Philox.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// How far (log2 units) a row's max may exceed its reference before the
/// accumulators are rescaled.
static constexpr double kLazyRescale = 8.0;

std::string AttentionConfig::str() const {
  if (!tensorCores)
    return "cuda-cores";
  return std::string(wgmma ? "wgmma," : "") + (pipelined ? "pipe," : "") +
         (mbarriers ? "mbar," : "") + (pingPong ? "pp," : "") +
         (warpSpecialized ? "ws," : "") + (persistent ? "persist," : "") +
         (tmaStore ? "tmastore," : "") + "warps=" + std::to_string(warps) +
         ",mtiles=" + std::to_string(mTiles) + ",bn=" + std::to_string(blockN) +
         (maxRegs ? ",maxregs=" + std::to_string(maxRegs) : "");
}

FailureOr<AttentionConfig>
sinter::gpu_kernels::parseAttentionConfig(StringRef text, std::string *why) {
  auto reject = [&](const Twine &reason) -> FailureOr<AttentionConfig> {
    if (why)
      *why = reason.str();
    return failure();
  };
  AttentionConfig cfg;
  text = text.trim();
  if (text == "cuda-cores") {
    cfg.tensorCores = false;
    return cfg;
  }
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  // The forms, by token (see AttentionConfig).
  static const std::pair<StringRef, bool AttentionConfig::*> forms[] = {
      {"wgmma", &AttentionConfig::wgmma},
      {"pipe", &AttentionConfig::pipelined},
      {"mbar", &AttentionConfig::mbarriers},
      {"pp", &AttentionConfig::pingPong},
      {"ws", &AttentionConfig::warpSpecialized},
      {"persist", &AttentionConfig::persistent},
      {"tmastore", &AttentionConfig::tmaStore}};
  for (StringRef part : parts) {
    part = part.trim();
    auto form =
        llvm::find_if(forms, [&](const auto &f) { return f.first == part; });
    if (form != std::end(forms)) {
      cfg.*(form->second) = true;
      continue;
    }
    auto [key, value] = part.split('=');
    key = key.trim();
    int64_t v;
    bool known = llvm::is_contained({"warps", "mtiles", "bn", "maxregs"}, key);
    if (!known || value.trim().getAsInteger(10, v))
      return reject("'" + part +
                    "' is neither a form (cuda-cores, wgmma, pipe, mbar, pp, "
                    "ws, persist, tmastore) nor warps=, mtiles=, bn=, "
                    "maxregs= with a number");
    if (key == "warps")
      cfg.warps = v;
    else if (key == "mtiles")
      cfg.mTiles = v;
    else if (key == "bn")
      cfg.blockN = v;
    else
      cfg.maxRegs = v;
  }
  if (!llvm::is_contained({2, 4, 8, 12}, cfg.warps) ||
      (cfg.warps == 12 && !cfg.wgmma))
    return reject("warps must be 2, 4 or 8 (12 with wgmma)");
  if (!llvm::is_contained({1, 2}, cfg.mTiles))
    return reject("mtiles must be 1 or 2");
  if (!llvm::is_contained({16, 32, 64, 128, 160, 176, 192}, cfg.blockN) ||
      (cfg.blockN > 128 && !cfg.wgmma))
    return reject("bn must be 16, 32, 64 or 128 (160, 176, 192 with wgmma)");
  if (cfg.maxRegs && (cfg.maxRegs < 64 || cfg.maxRegs > 255))
    return reject("maxregs must be 64 to 255");
  // wgmma: whole warpgroups of 64 rows (one m-tile per warp).
  if (cfg.wgmma && (cfg.warps % 4 != 0 || cfg.mTiles != 1))
    return reject("wgmma takes whole warpgroups: warps 4, 8 or 12, mtiles=1");
  // Two stages overlap wgmma groups: nothing to overlap on mma.sync.
  if (cfg.pipelined && !cfg.wgmma)
    return reject("pipe needs wgmma");
  if (cfg.mbarriers && !cfg.pipelined)
    return reject("mbar needs pipe");
  // Ping-pong orders the GEMMs of two or more warpgroups that are not in
  // lockstep: mbarriers, several warpgroups.
  if (cfg.pingPong && (!cfg.mbarriers || cfg.warps < 8))
    return reject("pp needs mbar and two or more warpgroups (warps >= 8)");
  // Warp specialization: TMA loads tracked by the mbarriers; the producer
  // warpgroup's registers go to the consumer warpgroups.
  if (cfg.warpSpecialized && !cfg.mbarriers)
    return reject("ws needs mbar");
  if (cfg.warpSpecialized && cfg.maxRegs)
    return reject("maxregs does not combine with ws, which splits the "
                  "registers between producer and consumers itself "
                  "(setmaxnreg)");
  // Persistent blocks: the producer runs ahead across work items.
  if (cfg.persistent && !cfg.warpSpecialized)
    return reject("persist needs ws");
  // O through shared memory and a TMA map of its own: with `ws`.
  if (cfg.tmaStore && !cfg.warpSpecialized)
    return reject("tmastore needs ws");
  return cfg;
}

/// How `ws` splits the register file: the kernel launches at `launch`
/// registers per thread (ptxas .maxnreg), then the producer warpgroup
/// drops to 24 and the consumers rise to `consumer` (setmaxnreg). Two
/// consumer warpgroups and a producer (384 threads) launch at 168 and rise
/// to 240; three (512 threads) at 128 and rise to 160. Other forms keep
/// the 240 the tile budget assumes and no launch cap (launch = 0).
struct RegisterSplit {
  int64_t launch = 0, consumer = 240;
};
static RegisterSplit registerSplit(const AttentionConfig &cfg) {
  if (!cfg.warpSpecialized || (cfg.warps != 8 && cfg.warps != 12))
    return {};
  return cfg.warps == 12 ? RegisterSplit{128, 160} : RegisterSplit{168, 240};
}

/// Shared memory of a configuration: Q, K and V tiles, rows padded by 16
/// bytes for ldmatrix, or packed in wgmma's 8x16-byte core matrices.
static int64_t sharedBytes(const AttentionConfig &cfg, int64_t D,
                           int64_t eltBytes) {
  int64_t bm = 16 * cfg.mTiles * cfg.warps;
  int64_t stages = cfg.pipelined ? 2 : 1;
  // A persistent block's O tile (`tmastore`: the Q tile holds the next
  // item's rows); mbarriers: full/empty x K/V x 2 stages, Q's with `ws`.
  int64_t oRows = cfg.persistent && cfg.tmaStore ? bm : 0;
  return (bm + 2 * stages * cfg.blockN + oRows) * (D + (cfg.wgmma ? 0 : 8)) *
             eltBytes +
         (cfg.wgmma ? 1024 : 0) + (cfg.mbarriers ? 64 : 0) +
         (cfg.warpSpecialized ? 64 : 0);
}

LogicalResult sinter::gpu_kernels::checkMMAAttentionOp(AttentionOp op,
                                                       int64_t smVersion,
                                                       std::string &why) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto vType = cast<RankedTensorType>(op.getValue().getType());
  Type elt = qType.getElementType();
  int64_t D = qType.getDimSize(3), Dv = vType.getDimSize(3);
  if (smVersion < 80) {
    why = "mma.sync with bf16/f16 needs sm_80 or later";
    return failure();
  }
  if (!elt.isBF16() && !elt.isF16()) {
    why = "tensor cores take bf16/f16 operands (f32 attention stays exact "
          "on CUDA cores)";
    return failure();
  }
  if (D != Dv || D % 16 != 0 || D > 256) {
    why = "needs equal q/k and v head dims, a multiple of 16 up to 256";
    return failure();
  }
  if (op.getEffectiveScale() <= 0.0) {
    why = "needs a positive softmax scale";
    return failure();
  }
  return success();
}

LogicalResult sinter::gpu_kernels::checkMMAAttention(AttentionOp op,
                                                     int64_t smVersion,
                                                     bool archSpecific,
                                                     const AttentionConfig &cfg,
                                                     std::string &why) {
  if (failed(checkMMAAttentionOp(op, smVersion, why)))
    return failure();
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  Type elt = qType.getElementType();
  int64_t D = qType.getDimSize(3);
  if (cfg.wgmma && !(smVersion == 90 && archSpecific)) {
    why = "wgmma needs sm_90a";
    return failure();
  }
  int64_t threads = 32 * cfg.warps, chunks = D / 8;
  if (cfg.wgmma && D % 64 != 0) {
    why = "wgmma tiles are 64-column swizzled panels: head dim must be a "
          "multiple of 64";
    return failure();
  }
  if (cfg.wgmma && !cfg.warpSpecialized && threads % (8 * chunks) != 0) {
    why = "the wgmma tile copy needs the block's threads to cover 8 whole "
          "rows per pass";
    return failure();
  }
  int64_t bm = 16 * cfg.mTiles * cfg.warps;
  // wgmma tile copies may end with a partial pass; mma.sync's may not.
  if (threads % chunks != 0 ||
      (!cfg.wgmma && (cfg.blockN % (threads / chunks) != 0 ||
                      bm % (threads / chunks) != 0))) {
    why = "the tile shape does not divide among the block's threads";
    return failure();
  }
  // O accumulators + S + P fragments must fit the 255-register budget.
  // (Two stages keep the previous tile's P beside this tile's S.)
  int64_t regs = cfg.mTiles * (D / 2 + cfg.blockN / 2 + cfg.blockN / 4) +
                 (cfg.pipelined ? cfg.blockN / 4 : 0);
  int64_t regBudget = registerSplit(cfg).consumer;
  if (regs > regBudget) {
    why = "the tile shape needs more than " + std::to_string(regBudget) +
          " registers per thread";
    return failure();
  }
  int64_t smem = sharedBytes(cfg, D, elt.getIntOrFloatBitWidth() / 8);
  if (smem > 227 * 1024) {
    why = "the tile shape needs more shared memory than a block may have";
    return failure();
  }
  return success();
}

namespace {
/// The values of one kernel under construction.
struct MMABuilder {
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  Type elt;
  VectorType acc2x2, frag4x2, frag2x2, f32x2, elt2;

  MMABuilder(ImplicitLocOpBuilder &b, Type elt) : b(b), kb(b), elt(elt) {
    acc2x2 = VectorType::get({2, 2}, b.getF32Type());
    frag4x2 = VectorType::get({4, 2}, elt);
    frag2x2 = VectorType::get({2, 2}, elt);
    f32x2 = VectorType::get({2}, b.getF32Type());
    elt2 = VectorType::get({2}, elt);
  }

  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t c) { return c ? add(x, kb.idx(c)) : x; }
  Value mul(Value x, int64_t c) {
    return arith::MulIOp::create(b, x, kb.idx(c));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value zeroAcc() {
    return arith::ConstantOp::create(
        b, acc2x2,
        DenseElementsAttr::get(acc2x2, b.getF32FloatAttr(0.0).getValue()));
  }
  Value splat2(Value s) { return vector::BroadcastOp::create(b, f32x2, s); }
  Value row(Value acc, int64_t r) {
    return vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{r});
  }
  Value setRow(Value acc, Value v, int64_t r) {
    return vector::InsertOp::create(b, v, acc, ArrayRef<int64_t>{r});
  }
  Value elem(Value v2, int64_t c) {
    return vector::ExtractOp::create(b, v2, ArrayRef<int64_t>{c});
  }
  Value ldmatrix(Value smem, Value r, Value c, bool transpose) {
    return nvgpu::LdMatrixOp::create(b, frag4x2, smem, ValueRange{r, c},
                                     b.getBoolAttr(transpose),
                                     b.getI32IntegerAttr(4));
  }
  /// Rows [2*half, 2*half+1] of an ldmatrix.x4 result: one B fragment.
  Value half(Value x4, int64_t h) {
    return vector::ExtractStridedSliceOp::create(
        b, x4, ArrayRef<int64_t>{2 * h, 0}, ArrayRef<int64_t>{2, 2},
        ArrayRef<int64_t>{1, 1});
  }
  /// One mma.sync.m16n8k16 (row.col, f32 accumulators) through NVVM:
  /// nvgpu.mma.sync does not lower bf16. Operands are 32-bit registers of
  /// two elements: i32 for bf16, vector<2xf16> for f16.
  Value mma(Value a, Value bFrag, Value c) {
    auto regs = [&](Value frag, int64_t n) {
      SmallVector<Value> out;
      for (int64_t i = 0; i < n; ++i) {
        Value r = vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{i});
        if (elt.isBF16())
          r = LLVM::BitcastOp::create(b, b.getI32Type(), r);
        out.push_back(r);
      }
      return out;
    };
    SmallVector<Value> cs;
    for (int64_t i = 0; i < 4; ++i)
      cs.push_back(
          vector::ExtractOp::create(b, c, ArrayRef<int64_t>{i / 2, i % 2}));
    Type f32 = b.getF32Type();
    auto resType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptx =
        elt.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value d = NVVM::MmaOp::create(
        b, resType, regs(a, 4), regs(bFrag, 2), cs,
        ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> ds;
    for (int64_t i = 0; i < 4; ++i)
      ds.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{i}));
    return vector::FromElementsOp::create(b, acc2x2, ds);
  }
  /// The f32 accumulators of fragments `accs` (vector<2x2xf32> each), in
  /// register order d0..d3 per fragment, and back.
  SmallVector<Value> flatten(ArrayRef<Value> accs) {
    SmallVector<Value> out;
    for (Value a : accs)
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(
            vector::ExtractOp::create(b, a, ArrayRef<int64_t>{i / 2, i % 2}));
    return out;
  }
  SmallVector<Value> unflatten(ArrayRef<Value> regs) {
    SmallVector<Value> out;
    for (size_t i = 0; i < regs.size(); i += 4)
      out.push_back(
          vector::FromElementsOp::create(b, acc2x2, regs.slice(i, 4)));
    return out;
  }
  /// Inline PTX `text` with `vals` passed through as tied in/out operands:
  /// it orders the values after (and their later uses after) the
  /// instruction, e.g. reading accumulators only after wgmma.wait_group.
  SmallVector<Value> asmTied(StringRef text, ArrayRef<Value> vals) {
    std::string cons;
    SmallVector<Type> types;
    for (Value v : vals) {
      cons += std::string(cons.empty() ? "" : ",") +
              (v.getType().isF32() ? "=f" : "=r");
      types.push_back(v.getType());
    }
    for (size_t i = 0; i < vals.size(); ++i)
      cons += "," + std::to_string(i);
    if (vals.empty())
      cons = "~{memory}";
    return callAsm(text, cons, vals, types);
  }
  SmallVector<Value> callAsm(StringRef text, StringRef cons,
                             ArrayRef<Value> operands, ArrayRef<Type> types) {
    return kb.callAsm(text, cons, operands, types);
  }
  /// wgmma.mma_async m64nNk16 with f32 accumulators `acc` (N/2 per
  /// thread): A from the descriptor `descA`, or from the four registers
  /// `aRegs`; B from `descB` (transposed when `transB`).
  SmallVector<Value> wgmma(int64_t n, ArrayRef<Value> acc,
                           ArrayRef<Value> aRegs, Value descA, Value descB,
                           bool accumulate, bool transB) {
    int64_t nAcc = static_cast<int64_t>(acc.size());
    std::string ty = elt.isBF16() ? "bf16" : "f16";
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                       std::to_string(nAcc) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(n) + "k16.f32." + ty + "." + ty + " {";
    for (int64_t i = 0; i < nAcc; ++i)
      text += (i ? ", $" : "$") + std::to_string(i);
    text += "}, ";
    SmallVector<Value> operands{
        arith::ConstantIntOp::create(b, accumulate ? 1 : 0, 32)};
    std::string cons;
    for (int64_t i = 0; i < nAcc; ++i)
      cons += i ? ",=f" : "=f";
    cons += ",r";
    int64_t next = nAcc + 1;
    if (!aRegs.empty()) {
      text += "{";
      for (size_t i = 0; i < aRegs.size(); ++i) {
        text += (i ? ", $" : "$") + std::to_string(next++);
        operands.push_back(aRegs[i]);
        cons += ",r";
      }
      text += "}, ";
    } else {
      text += "$" + std::to_string(next++) + ", ";
      operands.push_back(descA);
      cons += ",l";
    }
    text += "$" + std::to_string(next++) + ", p, 1, 1";
    operands.push_back(descB);
    cons += ",l";
    text += aRegs.empty() ? ", 0" : "";
    text += transB ? ", 1;\n}" : ", 0;\n}";
    for (int64_t i = 0; i < nAcc; ++i) {
      operands.push_back(acc[i]);
      cons += "," + std::to_string(i);
    }
    SmallVector<Type> types(nAcc, b.getF32Type());
    return callAsm(text, cons, operands, types);
  }
  /// 2^x (f32 or vector<2xf32>) as one ex2.approx.ftz.f32 per element:
  /// math.exp2 becomes the non-ftz form, which ptxas wraps in a range test
  /// and two multiplies for subnormal results. Probabilities below 2^-126
  /// flush to 0 next to a row sum of at least 1.
  Value exp2(Value x) {
    auto one = [&](Value v) {
      auto op = LLVM::InlineAsmOp::create(
          b, b.getF32Type(), ValueRange{v}, "ex2.approx.ftz.f32 $0, $1;",
          "=f,f", /*has_side_effects=*/false, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr());
      return op.getResult(0);
    };
    auto vt = dyn_cast<VectorType>(x.getType());
    if (!vt)
      return one(x);
    SmallVector<Value> parts;
    for (int64_t i = 0; i < vt.getNumElements(); ++i)
      parts.push_back(one(elem(x, i)));
    return vector::FromElementsOp::create(b, vt, parts);
  }
  /// max or sum of `vals` as a balanced tree: log2(n) dependent steps
  /// instead of n - 1 (the softmax's row reductions sit on the critical
  /// path between a tile's S and its P V).
  Value tree(SmallVector<Value> vals, bool isMax) {
    while (vals.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < vals.size(); i += 2)
        next.push_back(
            isMax ? Value(arith::MaximumFOp::create(b, vals[i], vals[i + 1]))
                  : Value(arith::AddFOp::create(b, vals[i], vals[i + 1])));
      if (vals.size() % 2)
        next.push_back(vals.back());
      vals = std::move(next);
    }
    return vals.front();
  }
  Value quadReduce(Value v, bool isMax) {
    for (int32_t off : {1, 2}) {
      Value o = gpu::ShuffleOp::create(b, v, off, 32, gpu::ShuffleMode::XOR)
                    .getShuffleResult();
      v = isMax ? Value(arith::MaximumFOp::create(b, v, o))
                : Value(arith::AddFOp::create(b, v, o));
    }
    return v;
  }
};
} // namespace

FailureOr<KernelLaunch> sinter::gpu_kernels::buildAttentionMMAKernel(
    AttentionOp op, gpu::GPUModuleOp module, StringRef name,
    const AttentionConfig &cfg, int64_t smCount) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto kType = cast<RankedTensorType>(op.getKey().getType());
  int64_t B = qType.getDimSize(0), Hq = qType.getDimSize(1),
          Sq = qType.getDimSize(2), D = qType.getDimSize(3);
  int64_t Hkv = kType.getDimSize(1), Skv = kType.getDimSize(2);
  Type elt = qType.getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  double dropP = op.getDropoutP().convertToDouble();
  const int64_t W = cfg.warps, MT = cfg.mTiles, BN = cfg.blockN;
  const bool WG = cfg.wgmma;
  const int64_t BM = 16 * MT * W, T = 32 * W, P = WG ? D : D + 8;
  const int64_t NT = BN / 8, DT = D / 8, KS = D / 16;

  // Warp specialization: consumer threads [0, T), the producer warpgroup
  // [T, T + 128); Q, K and V arrive through tensor maps over the [B, H, S,
  // D] operands, one 64-column (128-byte) swizzled panel per copy.
  const bool WS = cfg.warpSpecialized;
  // `persist`: a grid of at most one block per SM; each block loops over
  // the work items (batch, head, query tile) blockIdx.x + i * gridDim.x,
  // its producer loading the next item's Q and first K/V tiles while the
  // consumers finish the last one.
  const bool PERSIST = cfg.persistent;
  int64_t mTiles = llvm::divideCeil(Sq, BM);
  int64_t items = B * Hq * mTiles;
  KernelLaunch launch = launchFor(
      op, PERSIST ? std::min(items, smCount) : items, T + (WS ? 128 : 0));
  launch.sharedMemory = sharedBytes(cfg, D, eltBytes);
  // `tmastore`: O leaves through a fourth map: each consumer warpgroup
  // writes its 64 rows of O into its rows of the Q tile (free after its
  // last S) and one thread stores them with TMA.
  const bool tmaStore = cfg.tmaStore;
  if (WS)
    launch.tensorMaps = {
        {0, {1, 1, BM, 64}}, {1, {1, 1, BN, 64}}, {2, {1, 1, BN, 64}}};
  if (tmaStore)
    launch.tensorMaps.push_back(
        {static_cast<unsigned>(op->getNumOperands()), {1, 1, 64, 64}});
  if (PERSIST) {
    launch.persistentWork = items;
    launch.persistentCtasPerSM = 1;
  }

  ImplicitLocOpBuilder b(op.getLoc(), op.getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  // A register cap (ptxas .maxnreg) trades spills for blocks per SM. With
  // `ws` the producer gives its registers to the consumers (setmaxnreg;
  // see registerSplit).
  const RegisterSplit regSplit = registerSplit(cfg);
  const bool regShuffle = regSplit.launch != 0;
  int64_t maxRegs = cfg.maxRegs ? cfg.maxRegs : regSplit.launch;
  if (maxRegs)
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  b.getI32IntegerAttr(static_cast<int32_t>(maxRegs)));
  b.setInsertionPointToStart(&func.getBody().front());
  MMABuilder mb(b, elt);
  KernelBuilder &kb = mb.kb;

  AttentionArgs args = attentionArguments(kb, func, op);
  Value q = args.q, k = args.k, v = args.v, mask = args.mask, seed = args.seed,
        out = args.out, lseOut = args.lse;

  // Shared memory: [Q: BM x P][K: BN x P][V: BN x P].
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), ws));
  // wgmma's 128-byte swizzle repeats every 1024 bytes of address: its
  // tiles start 1024-aligned (the allocation has 1024 bytes of slack).
  Value smemPad = kb.idx(0);
  if (WG) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
    smemPad = arith::RemUIOp::create(
        b,
        arith::SubIOp::create(b, kb.idx(1024),
                              arith::RemUIOp::create(b, base, kb.idx(1024))),
        kb.idx(1024));
  }
  auto view = [&](Value byteOffset, int64_t rows) -> Value {
    // wgmma tiles are flat (swizzled 64-column panels, see below).
    SmallVector<int64_t> shape =
        WG ? SmallVector<int64_t>{rows * D} : SmallVector<int64_t>{rows, P};
    return memref::ViewOp::create(
        b, MemRefType::get(shape, elt, MemRefLayoutAttrInterface(), ws), smem,
        mb.add(smemPad, byteOffset), ValueRange{});
  };
  // K and V tiles of key tile t: one buffer each, or two (stage t % 2).
  const int64_t stages = cfg.pipelined ? 2 : 1;
  const int64_t tileBytes = BN * P * eltBytes;
  Value qs = view(kb.idx(0), BM);
  auto stageTile = [&](int64_t base, Value t) {
    Value off = kb.idx(base);
    if (stages > 1)
      off = mb.add(
          off, mb.mul(arith::RemUIOp::create(b, t, kb.idx(stages)), tileBytes));
    return view(off, BN);
  };
  auto kTile = [&](Value t) { return stageTile(BM * P * eltBytes, t); };
  auto vTile = [&](Value t) {
    return stageTile(BM * P * eltBytes + stages * tileBytes, t);
  };
  // `tmastore`: O's rows on their way out: the Q tile (free after the
  // block's last S), or with `persist` a tile of their own after V's.
  const int64_t oRows = PERSIST && cfg.tmaStore ? BM : 0;
  Value os;
  if (tmaStore)
    os = oRows ? view(kb.idx((BM + 2 * stages * BN) * P * eltBytes), BM) : qs;

  // Program coordinates of work item `item` (a block's, or with `persist`
  // each of the items a block loops over); for causal attention the
  // longest rows go first.
  Value bid = kb.blockId();
  Value mTile, h, batch, g, q0, bhq, bhkv, qSeqBase, kvSeqBase;
  auto coords = [&](Value item) {
    mTile = arith::RemUIOp::create(b, item, kb.idx(mTiles));
    if (op.getCausal())
      mTile = arith::SubIOp::create(b, kb.idx(mTiles - 1), mTile);
    Value bh = arith::DivUIOp::create(b, item, kb.idx(mTiles));
    h = arith::RemUIOp::create(b, bh, kb.idx(Hq));
    batch = arith::DivUIOp::create(b, bh, kb.idx(Hq));
    g = arith::DivUIOp::create(b, h, kb.idx(Hq / Hkv));
    q0 = mb.mul(mTile, BM);
    bhq = mb.add(mb.mul(batch, Hq), h);
    bhkv = mb.add(mb.mul(batch, Hkv), g);
    qSeqBase = mb.mul(bhq, Sq);
    kvSeqBase = mb.mul(bhkv, Skv);
  };
  Value tid = kb.threadId();
  Value warp = arith::DivUIOp::create(b, tid, kb.idx(32));
  // `v` (an index below 2^31, the same in every lane of the warp) as lane
  // 0's, through shfl.sync: ptxas then knows it is warp-uniform and keeps
  // what derives from it on the uniform datapath (CUTLASS broadcasts its
  // warpgroup index the same way).
  auto warpUniform = [&](Value v) -> Value {
    Value v32 = arith::IndexCastOp::create(b, b.getI32Type(), v);
    return arith::IndexCastOp::create(
        b, b.getIndexType(),
        mb.callAsm("shfl.sync.idx.b32 $0, $1, 0, 0x1f, -1;", "=r,r", {v32},
                   {b.getI32Type()})[0]);
  };
  // The warpgroup index: the wgmma descriptors, the producer/consumer and
  // ping-pong branches derive from it.
  Value wgIdxU;
  if (WG)
    wgIdxU = warpUniform(arith::DivUIOp::create(b, tid, kb.idx(128)));
  // Whether this thread is its warpgroup's first (the one that arrives on
  // the empty barriers and issues the O stores).
  Value wgLead;
  if (WG)
    wgLead = mb.cmp(arith::CmpIPredicate::eq,
                    arith::RemUIOp::create(b, tid, kb.idx(128)), kb.idx(0));
  // Named barrier `text(w)` of warpgroup `wg`, with w an immediate: one
  // branch per warpgroup (with the id in a register ptxas would reserve
  // all 16 barriers of the block).
  auto perWarpgroupBarrier = [&](Value wg,
                                 function_ref<std::string(int64_t)> text) {
    for (int64_t w = 0; w < W / 4; ++w) {
      Value is = mb.cmp(arith::CmpIPredicate::eq, wg, kb.idx(w));
      scf::IfOp::create(b, is, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        mb.callAsm(text(w), "~{memory}", {}, {});
        scf::YieldOp::create(b);
      });
    }
  };
  Value lane = arith::RemUIOp::create(b, tid, kb.idx(32));
  Value quadRow = arith::DivUIOp::create(b, lane, kb.idx(4)); // 0..7
  Value quadCol = mb.mul(arith::RemUIOp::create(b, lane, kb.idx(4)), 2);
  Value warpRow = mb.mul(warp, 16 * MT); // first row of this warp in the tile
  if (!PERSIST)
    coords(bid);

  // ldmatrix row addresses: lane l names row l%8 of matrix l/8.
  Value l8 = arith::RemUIOp::create(b, lane, kb.idx(8));
  Value m1 = arith::RemUIOp::create(
      b, arith::DivUIOp::create(b, lane, kb.idx(8)), kb.idx(2));
  Value m2 = arith::DivUIOp::create(b, lane, kb.idx(16));
  // A operand / V (trans): matrices ordered (rows lo, k lo), (rows hi, k lo),
  // (rows lo, k hi), (rows hi, k hi).
  Value rowA = mb.add(l8, mb.mul(m1, 8)), colA = mb.mul(m2, 8);
  // K as B operand: (n lo, k lo), (n lo, k hi), (n hi, k lo), (n hi, k hi).
  Value rowK = mb.add(l8, mb.mul(m2, 8)), colK = mb.mul(m1, 8);

  // Asynchronous copy of `rows` sequence rows starting at `row0` into
  // `dst`; rows past `seqLen` are zero-filled.
  int64_t chunks = D * eltBytes / 16; // 16-byte chunks per row
  int64_t vecElems = 16 / eltBytes;
  Value chunkRow = arith::DivUIOp::create(b, tid, kb.idx(chunks));
  Value chunkCol =
      mb.mul(arith::RemUIOp::create(b, tid, kb.idx(chunks)), vecElems);
  // wgmma layout (128-byte swizzle): the tile is split into 64-column
  // panels of `rows` x 128 bytes; 16-byte chunk c (0..7) of row r of a
  // panel sits at r * 128 + ((c ^ (r % 8)) * 16). Lanes read whole rows
  // from global memory and each row's 8 chunks land in distinct banks.
  // Rows per pass are a multiple of 8, so r % 8 is fixed per thread.
  Value wgPanelOff, wgRowInAtom;
  if (WG) {
    Value cg = arith::RemUIOp::create(b, tid, kb.idx(chunks));
    Value panel = arith::DivUIOp::create(b, cg, kb.idx(8));
    Value c = arith::RemUIOp::create(b, cg, kb.idx(8));
    Value r8 = arith::RemUIOp::create(b, chunkRow, kb.idx(8));
    wgRowInAtom = mb.mul(arith::XOrIOp::create(b, c, r8), 8);
    wgPanelOff = panel; // times rows * 64 elements, per tile
  }
  auto copyTile = [&](Value src, Value seqBase, Value row0, int64_t rows,
                      int64_t seqLen, Value dst) {
    int64_t rowsPerPass = T / chunks;
    bool ragged = seqLen % rows != 0 || seqLen < rows;
    int64_t passes = llvm::divideCeil(rows, rowsPerPass);
    for (int64_t pass = 0; pass < passes; ++pass) {
      Value r = mb.add(chunkRow, pass * rowsPerPass);
      // A last, partial pass (rows not a multiple of the rows per pass):
      // only the threads of the remaining rows copy.
      std::optional<OpBuilder::InsertionGuard> partial;
      if ((pass + 1) * rowsPerPass > rows) {
        auto ifOp = scf::IfOp::create(
            b, mb.cmp(arith::CmpIPredicate::ult, r, kb.idx(rows)),
            /*withElse=*/false);
        partial.emplace(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      Value seqRow = mb.add(row0, r);
      Value n;
      if (ragged) {
        Value in = mb.cmp(arith::CmpIPredicate::ult, seqRow, kb.idx(seqLen));
        seqRow = arith::SelectOp::create(b, in, seqRow, kb.idx(0));
        n = arith::SelectOp::create(b, in, kb.idx(vecElems), kb.idx(0));
      }
      Value gidx = mb.add(mb.mul(mb.add(seqBase, seqRow), D), chunkCol);
      SmallVector<Value> dstIdx{r, chunkCol};
      if (WG)
        dstIdx = {mb.add(mb.add(mb.mul(wgPanelOff, rows * 64), mb.mul(r, 64)),
                         wgRowInAtom)};
      nvgpu::DeviceAsyncCopyOp::create(
          b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst, dstIdx, src,
          ValueRange{gidx}, b.getIndexAttr(vecElems), n, b.getUnitAttr());
    }
    NVVM::CpAsyncCommitGroupOp::create(b);
  };
  // Wait until at most `pending` groups of copies are in flight, then a
  // barrier.
  auto waitAll = [&](int32_t pending = 0) {
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(pending));
    // wgmma reads shared memory through the async proxy: make the copies'
    // generic-proxy writes visible to it before the barrier.
    if (WG)
      kb.fenceProxyAsync();
    gpu::BarrierOp::create(b);
  };
  // wgmma descriptors (64-bit): start address >> 4 in bits 0-13, leading
  // byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle
  // mode in 62-63. Q and K are K-major: 8-row groups 1024 B apart (SBO),
  // LBO unused (1); a k16 step inside a 64-column panel moves the start by
  // 32 B, the next panel by rows * 128 B. V is read N-major (trans-b):
  // 64-column panels BN * 128 B apart (LBO), 8-key groups 1024 B (SBO).
  auto descriptor = [&](Value tile, int64_t byteOffset, int64_t lbo,
                        int64_t sbo, Value rowOffset = Value()) -> Value {
    // Bits 62-63 = 1: 128-byte swizzle; the tiles are 1024-aligned, so the
    // base offset (bits 49-51) is 0.
    // Built as two 32-bit halves: the low one holds the start address
    // (bits 0-13, address >> 4) and the leading byte offset, the high one
    // the stride byte offset and the swizzle, a constant. Shared addresses
    // stay below 2^18, so adding a k-step's (and `rowOffset`'s, bytes)
    // offset to the low half never carries out of the 14-bit start field:
    // one 32-bit add per k-step, and the constant half stays put.
    Value addr = arith::IndexCastOp::create(
        b, b.getI32Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, tile));
    if (rowOffset)
      addr = arith::AddIOp::create(b, addr, rowOffset);
    Value lo = arith::ShRUIOp::create(
        b, arith::AndIOp::create(b, addr, kb.i32(0x3FFFF)), kb.i32(4));
    lo = arith::OrIOp::create(b, lo,
                              kb.i32(static_cast<int32_t>((lbo >> 4) << 16)));
    if (byteOffset)
      lo = arith::AddIOp::create(b, lo,
                                 kb.i32(static_cast<int32_t>(byteOffset >> 4)));
    int64_t hi = (sbo >> 4) | (int64_t(1) << 30);
    Value lo64 = arith::ExtUIOp::create(b, b.getI64Type(), lo);
    return arith::OrIOp::create(b, lo64,
                                arith::ConstantIntOp::create(b, hi << 32, 64));
  };

  // Key tiles of this block: all, or up to the causal diagonal of its last
  // row (key j is visible from row i when j <= i + Skv - Sq).
  // (Per work item, after coords; the additive mask's numpy broadcast
  // strides over [B, Hq, Sq, Skv] give the item's mask base.)
  int64_t nTiles = llvm::divideCeil(Skv, BN);
  SmallVector<int64_t> maskStride = attentionMaskStrides(op);
  Value tileEnd, maskBase;
  auto itemRange = [&] {
    tileEnd = kb.idx(nTiles);
    if (op.getCausal()) {
      Value lim = mb.add(q0, BM + Skv - Sq);
      lim = arith::MinSIOp::create(b, lim, kb.idx(Skv));
      lim = arith::MaxSIOp::create(b, lim, kb.idx(0));
      tileEnd = arith::DivUIOp::create(b, mb.add(lim, BN - 1), kb.idx(BN));
    }
    if (mask)
      maskBase = mb.add(mb.mul(batch, maskStride[0]), mb.mul(h, maskStride[1]));
  };
  if (!PERSIST)
    itemRange();

  double log2e = 1.4426950408889634;
  double scaleLog2 = op.getEffectiveScale() * log2e;
  double ninf = -std::numeric_limits<double>::infinity();
  Value cScale = kb.f32(scaleLog2);
  Value negInf = kb.f32(ninf);

  // Coordinates of fragment element (mt, nt, r, c) of the key tile at kv0.
  auto rowOf = [&](int64_t mt, int64_t r) {
    return mb.add(mb.add(q0, mb.add(warpRow, quadRow)), 16 * mt + 8 * r);
  };
  auto keyOf = [&](Value kv0, int64_t nt, int64_t c) {
    return mb.add(mb.add(kv0, quadCol), 8 * nt + c);
  };

  // S = Q K^T on wgmma: one warpgroup-wide m64nBNk16 per 16 head-dim
  // columns, Q of this warpgroup's 64 rows and K straight from shared
  // memory. Issued and committed, not waited for.
  auto issueS = [&](Value kTile) {
    Value wg = wgIdxU;
    Value qOff =
        arith::IndexCastOp::create(b, b.getI32Type(), mb.mul(wg, 64 * 128));
    SmallVector<Value> acc = mb.flatten(SmallVector<Value>(NT, mb.zeroAcc()));
    for (int64_t kstep = 0; kstep < KS; ++kstep) {
      Value dq = descriptor(qs, (kstep / 4) * BM * 128 + (kstep % 4) * 32, 16,
                            1024, qOff);
      Value dk = descriptor(kTile, (kstep / 4) * BN * 128 + (kstep % 4) * 32,
                            16, 1024);
      acc = mb.wgmma(BN, acc, {}, dq, dk, kstep > 0, /*transB=*/false);
    }
    mb.asmTied("wgmma.commit_group.sync.aligned;", {});
    return acc;
  };
  // S = Q K^T on mma.sync.
  auto mmaS = [&](Value kTile) {
    SmallVector<Value> S(MT * NT, mb.zeroAcc());
    for (int64_t kstep = 0; kstep < KS; ++kstep) {
      SmallVector<Value> A;
      for (int64_t mt = 0; mt < MT; ++mt)
        A.push_back(mb.ldmatrix(qs, mb.add(mb.add(warpRow, rowA), 16 * mt),
                                mb.add(colA, 16 * kstep), false));
      for (int64_t np = 0; np < NT / 2; ++np) {
        Value bk = mb.ldmatrix(kTile, mb.add(rowK, 16 * np),
                               mb.add(colK, 16 * kstep), false);
        Value b0 = mb.half(bk, 0), b1 = mb.half(bk, 1);
        for (int64_t mt = 0; mt < MT; ++mt) {
          S[mt * NT + 2 * np] = mb.mma(A[mt], b0, S[mt * NT + 2 * np]);
          S[mt * NT + 2 * np + 1] = mb.mma(A[mt], b1, S[mt * NT + 2 * np + 1]);
        }
      }
    }
    return S;
  };

  // The additive mask and the invisible keys (past Skv; causal: past the
  // diagonal, -inf) applied to the scores of the key tile at kv0. Only
  // tiles that reach the sequence end or cross the diagonal check.
  auto maskScores = [&](SmallVector<Value> S, Value kv0) {
    if (mask) {
      // In raw score units (divided by the scale).
      Value invScale = kb.f32(1.0 / op.getEffectiveScale());
      for (int64_t mt = 0; mt < MT; ++mt)
        for (int64_t r = 0; r < 2; ++r) {
          Value i = rowOf(mt, r);
          Value iOk = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
          Value rowBase = mb.add(
              maskBase, mb.mul(arith::SelectOp::create(b, iOk, i, kb.idx(0)),
                               maskStride[2]));
          for (int64_t nt = 0; nt < NT; ++nt) {
            Value rv = mb.row(S[mt * NT + nt], r);
            for (int64_t c = 0; c < 2; ++c) {
              Value j = keyOf(kv0, nt, c);
              Value ok = arith::AndIOp::create(
                  b, iOk, mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv)));
              Value at = arith::SelectOp::create(
                  b, ok, mb.add(rowBase, mb.mul(j, maskStride[3])), kb.idx(0));
              Value mv = vector::ExtractOp::create(
                  b, kb.loadF32(mask, at, 1, nullptr, 0.0, false),
                  ArrayRef<int64_t>{0});
              Value s = arith::AddFOp::create(
                  b, mb.elem(rv, c), arith::MulFOp::create(b, mv, invScale));
              rv = vector::InsertOp::create(b, s, rv, ArrayRef<int64_t>{c});
            }
            S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], rv, r);
          }
        }
    }
    Value needsMask;
    if (Skv % BN != 0)
      needsMask =
          mb.cmp(arith::CmpIPredicate::ugt, mb.add(kv0, BN), kb.idx(Skv));
    if (op.getCausal()) {
      // Some element has j + Sq > i + Skv: kv0 + BN - 1 + Sq > q0 + Skv.
      Value crosses = mb.cmp(arith::CmpIPredicate::ugt,
                             mb.add(kv0, BN - 1 + Sq), mb.add(q0, Skv));
      needsMask =
          needsMask ? arith::OrIOp::create(b, needsMask, crosses) : crosses;
    }
    if (!needsMask)
      return S;
    SmallVector<Type> types(MT * NT, mb.acc2x2);
    auto ifOp = scf::IfOp::create(b, types, needsMask, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      SmallVector<Value> masked(S);
      for (int64_t mt = 0; mt < MT; ++mt)
        for (int64_t r = 0; r < 2; ++r) {
          Value iPlus = mb.add(rowOf(mt, r), Skv);
          for (int64_t nt = 0; nt < NT; ++nt) {
            Value rv = mb.row(masked[mt * NT + nt], r);
            for (int64_t c = 0; c < 2; ++c) {
              Value j = keyOf(kv0, nt, c);
              Value vis = mb.cmp(arith::CmpIPredicate::ult, j, kb.idx(Skv));
              if (op.getCausal())
                vis = arith::AndIOp::create(
                    b, vis,
                    mb.cmp(arith::CmpIPredicate::ule, mb.add(j, Sq), iPlus));
              Value s = arith::SelectOp::create(b, vis, mb.elem(rv, c), negInf);
              rv = vector::InsertOp::create(b, s, rv, ArrayRef<int64_t>{c});
            }
            masked[mt * NT + nt] = mb.setRow(masked[mt * NT + nt], rv, r);
          }
        }
      scf::YieldOp::create(b, masked);
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(b, S);
    }
    return SmallVector<Value>(ifOp.getResults());
  };

  // Online softmax of the key tile at kv0, per row (mt, r): P overwrites S
  // (still f32), M and L move on; returns whether any row of this thread
  // moved its reference, and each row's rescale factor in `alpha`.
  auto softmax = [&](SmallVector<Value> &S, SmallVector<Value> &M,
                     SmallVector<Value> &L, Value kv0,
                     SmallVector<Value> &alphaOut) -> Value {
    Value anyGrow;
    alphaOut.assign(MT * 2, Value());
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t r = 0; r < 2; ++r) {
        SmallVector<Value> maxes;
        for (int64_t nt = 0; nt < NT; ++nt) {
          Value rv = mb.row(S[mt * NT + nt], r);
          maxes.push_back(
              arith::MaximumFOp::create(b, mb.elem(rv, 0), mb.elem(rv, 1)));
        }
        Value rowMax = mb.quadReduce(mb.tree(maxes, /*isMax=*/true),
                                     /*isMax=*/true);
        // The reference max m (log2 units) moves only when the row max
        // exceeds it by more than kLazyRescale: probabilities stay below
        // 2^kLazyRescale, exact enough in f32 accumulators and bf16/f16 P,
        // and most tiles skip rescaling O (FlashAttention-4's trick).
        Value mOld = M[mt * 2 + r];
        Value maxScaled = arith::MulFOp::create(b, rowMax, cScale);
        Value grow = arith::CmpFOp::create(
            b, arith::CmpFPredicate::OGT, maxScaled,
            arith::AddFOp::create(b, mOld, kb.f32(kLazyRescale)));
        Value mNew = arith::SelectOp::create(b, grow, maxScaled, mOld);
        anyGrow =
            anyGrow ? Value(arith::OrIOp::create(b, anyGrow, grow)) : grow;
        // A row that has seen only -inf keeps reference 0: exp2 gives 0.
        Value none =
            arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf);
        Value ref = arith::SelectOp::create(b, none, kb.f32(0.0), mNew);
        Value alpha = mb.exp2(arith::SubFOp::create(b, mOld, ref));
        alphaOut[mt * 2 + r] = alpha;
        Value negRef2 = mb.splat2(arith::NegFOp::create(b, ref));
        Value c2 = mb.splat2(cScale);
        SmallVector<Value> sums;
        for (int64_t nt = 0; nt < NT; ++nt) {
          Value rv = mb.row(S[mt * NT + nt], r);
          Value p = mb.exp2(math::FmaOp::create(b, rv, c2, negRef2));
          sums.push_back(
              arith::AddFOp::create(b, mb.elem(p, 0), mb.elem(p, 1)));
          if (dropP > 0.0) {
            // l sums undropped probabilities; P V sees the dropout mask of
            // element ((b*Hq + h)*Sq + i)*Skv + j.
            Value i = rowOf(mt, r);
            Value iSafe = arith::SelectOp::create(
                b, mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq)), i,
                kb.idx(0));
            for (int64_t c = 0; c < 2; ++c) {
              Value off = mb.add(mb.mul(mb.add(qSeqBase, iSafe), Skv),
                                 keyOf(kv0, nt, c));
              Value keep = buildPhiloxKeep(
                  b, b.getLoc(),
                  arith::IndexCastOp::create(b, b.getI64Type(), off), seed,
                  dropP);
              Value pc = arith::SelectOp::create(
                  b, keep,
                  arith::MulFOp::create(b, mb.elem(p, c),
                                        kb.f32(1.0 / (1.0 - dropP))),
                  kb.f32(0.0));
              p = vector::InsertOp::create(b, pc, p, ArrayRef<int64_t>{c});
            }
          }
          S[mt * NT + nt] = mb.setRow(S[mt * NT + nt], p, r);
        }
        L[mt * 2 + r] = arith::AddFOp::create(
            b, arith::MulFOp::create(b, L[mt * 2 + r], alpha),
            mb.tree(sums, /*isMax=*/false));
        M[mt * 2 + r] = mNew;
      }
    return anyGrow;
  };
  // O scaled by each row's alpha, only when some row of this thread moved
  // its reference (the branch is skipped when no lane of the warp needs it).
  auto rescale = [&](SmallVector<Value> O, Value anyGrow,
                     ArrayRef<Value> alpha) {
    SmallVector<Type> types(MT * DT, mb.acc2x2);
    auto ifOp = scf::IfOp::create(b, types, anyGrow, /*withElse=*/true);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    SmallVector<Value> scaled(O);
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t r = 0; r < 2; ++r) {
        Value alpha2 = mb.splat2(alpha[mt * 2 + r]);
        for (int64_t dt = 0; dt < DT; ++dt) {
          Value o = mb.row(scaled[mt * DT + dt], r);
          scaled[mt * DT + dt] = mb.setRow(
              scaled[mt * DT + dt], arith::MulFOp::create(b, o, alpha2), r);
        }
      }
    scf::YieldOp::create(b, scaled);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, O);
    return SmallVector<Value>(ifOp.getResults());
  };

  // P packed to the operand type in the A layout: the A registers of k-step
  // kk of m-tile mt are rows r of P's fragments 2kk and 2kk+1 (a0a1: row,
  // k lo; a2a3: row+8, k lo; a4a5: row, k hi; a6a7: row+8, k hi), two
  // elements each.
  auto pOperand = [&](ArrayRef<Value> S, int64_t mt, int64_t kk) {
    SmallVector<Value, 4> regs;
    for (int64_t part = 0; part < 4; ++part)
      regs.push_back(arith::TruncFOp::create(
          b, mb.elt2, mb.row(S[mt * NT + 2 * kk + part / 2], part % 2)));
    return regs;
  };
  // The same for wgmma (one m-tile), as 32-bit registers.
  auto pRegisters = [&](ArrayRef<Value> S) {
    SmallVector<Value> regs;
    for (int64_t kk = 0; kk < NT / 2; ++kk)
      for (Value pe : pOperand(S, /*mt=*/0, kk))
        regs.push_back(LLVM::BitcastOp::create(b, b.getI32Type(), pe));
    return regs;
  };
  // O += P V on wgmma: P from registers (the m64nNk16 A layout is
  // mma.sync's, per warp), V from shared memory, one m64nDk16 per 16 keys.
  // Issued and committed, not waited for; `acc` and `pRegs` must have
  // passed a wgmma.fence since ordinary instructions last wrote them.
  auto issuePV = [&](ArrayRef<Value> acc, ArrayRef<Value> pRegs, Value vTile) {
    SmallVector<Value> out(acc);
    for (int64_t kk = 0; kk < NT / 2; ++kk) {
      Value dv = descriptor(vTile, kk * 2048, BN * 128, 1024);
      out = mb.wgmma(D, out, pRegs.slice(4 * kk, 4), Value(), dv, true,
                     /*transB=*/true);
    }
    mb.asmTied("wgmma.commit_group.sync.aligned;", {});
    return out;
  };
  // O += P V on mma.sync.
  auto mmaPV = [&](SmallVector<Value> O, ArrayRef<Value> S, Value vTile) {
    for (int64_t kk = 0; kk < NT / 2; ++kk) {
      SmallVector<Value> A;
      for (int64_t mt = 0; mt < MT; ++mt) {
        Value frag = arith::ConstantOp::create(
            b, mb.frag4x2,
            DenseElementsAttr::get(mb.frag4x2, b.getZeroAttr(elt)));
        for (auto [part, pe] : llvm::enumerate(pOperand(S, mt, kk)))
          frag = vector::InsertOp::create(
              b, pe, frag, ArrayRef<int64_t>{static_cast<int64_t>(part)});
        A.push_back(frag);
      }
      for (int64_t nd = 0; nd < DT / 2; ++nd) {
        Value bv = mb.ldmatrix(vTile, mb.add(rowA, 16 * kk),
                               mb.add(colA, 16 * nd), /*transpose=*/true);
        Value b0 = mb.half(bv, 0), b1 = mb.half(bv, 1);
        for (int64_t mt = 0; mt < MT; ++mt) {
          O[mt * DT + 2 * nd] = mb.mma(A[mt], b0, O[mt * DT + 2 * nd]);
          O[mt * DT + 2 * nd + 1] = mb.mma(A[mt], b1, O[mt * DT + 2 * nd + 1]);
        }
      }
    }
    return O;
  };

  // Loop-carried state: O fragments [mt][dt], then m and l [mt][r].
  SmallVector<Value> O0, M0, L0;
  for (int64_t i = 0; i < MT * DT; ++i)
    O0.push_back(mb.zeroAcc());
  for (int64_t i = 0; i < MT * 2; ++i) {
    M0.push_back(negInf);
    L0.push_back(kb.f32(0.0));
  }
  SmallVector<Value> Ofinal, Mfinal, Lfinal;
  scf::ForOp consumerItems; // `persist`: the consumers' loop over items
  auto split = [&](ValueRange vals, SmallVector<Value> &O,
                   SmallVector<Value> &M, SmallVector<Value> &L) {
    O.assign(vals.begin(), vals.begin() + MT * DT);
    M.assign(vals.begin() + MT * DT, vals.begin() + MT * DT + 2 * MT);
    L.assign(vals.begin() + MT * DT + 2 * MT, vals.begin() + MT * DT + 4 * MT);
  };
  auto concat = [](ArrayRef<Value> a, ArrayRef<Value> b2, ArrayRef<Value> c,
                   ArrayRef<Value> d = {}) {
    SmallVector<Value> out(a);
    out.append(b2.begin(), b2.end());
    out.append(c.begin(), c.end());
    out.append(d.begin(), d.end());
    return out;
  };
  // O's accumulators and the P registers through one wgmma.fence:
  // registers written by ordinary instructions (rescaled O, packed P) reach
  // wgmma only after it. Returns the fenced accumulators and P registers.
  auto fenceOP = [&](ArrayRef<Value> O, ArrayRef<Value> pRegs) {
    SmallVector<Value> regs = mb.asmTied("wgmma.fence.sync.aligned;",
                                         concat(mb.flatten(O), pRegs, {}));
    return std::make_pair(
        SmallVector<Value>(regs.begin(), regs.begin() + 4 * DT),
        SmallVector<Value>(regs.begin() + 4 * DT, regs.end()));
  };

  if (!cfg.pipelined) {
    // One stage: per key tile t, K[t] landed -> (V[t] loads) S -> softmax
    // -> V[t] landed -> (K[t+1] loads) P V.
    copyTile(q, qSeqBase, q0, BM, Sq, qs);
    copyTile(k, kvSeqBase, kb.idx(0), BN, Skv, kTile(kb.idx(0)));
    auto loop = scf::ForOp::create(b, kb.idx(0), tileEnd, kb.idx(1),
                                   concat(O0, M0, L0));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      SmallVector<Value> O, M, L;
      split(loop.getRegionIterArgs(), O, M, L);
      Value kv0 = mb.mul(t, BN);
      Value ks = kTile(t), vs = vTile(t);

      waitAll(); // K[t] (and Q) landed; every warp is done with V[t-1]
      copyTile(v, kvSeqBase, kv0, BN, Skv, vs);
      SmallVector<Value> S;
      if (WG)
        S = mb.unflatten(
            mb.asmTied("wgmma.wait_group.sync.aligned 0;", issueS(ks)));
      else
        S = mmaS(ks);
      S = maskScores(S, kv0);
      SmallVector<Value> alpha;
      Value anyGrow = softmax(S, M, L, kv0, alpha);
      O = rescale(O, anyGrow, alpha);

      waitAll(); // V[t] landed; every warp is done with K[t]
      Value more = mb.cmp(arith::CmpIPredicate::ult, mb.add(t, 1), tileEnd);
      scf::IfOp::create(b, more, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        copyTile(k, kvSeqBase, mb.add(kv0, BN), BN, Skv, kTile(kb.idx(0)));
        scf::YieldOp::create(b);
      });
      if (WG) {
        auto [acc, pRegs] = fenceOP(O, pRegisters(S));
        acc = issuePV(acc, pRegs, vs);
        O = mb.unflatten(mb.asmTied("wgmma.wait_group.sync.aligned 0;", acc));
      } else {
        O = mmaPV(O, S, vs);
      }
      scf::YieldOp::create(b, concat(O, M, L));
    }
    split(loop.getResults(), Ofinal, Mfinal, Lfinal);
  } else {
    // Two stages, FlashAttention-3's intra-warpgroup overlap: iteration t
    // issues S[t] = Q K[t]^T and then O += P[t-1] V[t-1] on the tensor
    // cores, runs tile t's softmax while P V is in flight, and rescales O
    // once it lands. K[t+1] and V[t] load during iteration t into the
    // buffers that iteration t-1 finished with: one barrier per tile.
    // Whether the work item sees any key (per item with `persist`).
    Value any;
    if (!PERSIST)
      any = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(0));
    // `persist`: key tiles are numbered across the block's work items
    // (stage and mbarrier phase of tile t of an item are those of
    // tileBase + t); Q's barriers are used once per item (item j: phase j).
    Value tileBase, itemNo;
    auto gt = [&](Value t) { return PERSIST ? mb.add(tileBase, t) : t; };
    // Q's barriers as barAddr/parity "tiles": use j of the one stage.
    auto qUse = [&](Value j) { return mb.mul(j, 2); };
    // The work items of this block (bid, bid + grid, ...): coordinates,
    // key range and the running tile and item counts. The loop's yield is
    // in place; the caller builds the item's body before it.
    // `uniform` (whole warps, not the producer's one thread): the counts
    // through warpUniform, so that the stages, barriers and descriptors
    // derived from them stay on the uniform datapath.
    auto itemLoop = [&](bool uniform) {
      Value zero = kb.idx(0);
      auto items = scf::ForOp::create(b, bid, kb.idx(B * Hq * mTiles),
                                      kb.gridDim(), ValueRange{zero, zero});
      b.setInsertionPointToStart(items.getBody());
      itemNo = items.getRegionIterArgs()[0];
      tileBase = items.getRegionIterArgs()[1];
      Value item = items.getInductionVar();
      if (uniform) {
        itemNo = warpUniform(itemNo);
        tileBase = warpUniform(tileBase);
        item = warpUniform(item);
      }
      coords(item);
      itemRange();
      any = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(0));
      auto yield = scf::YieldOp::create(
          b, ValueRange{mb.add(itemNo, 1), mb.add(tileBase, tileEnd)});
      b.setInsertionPoint(yield);
      return items;
    };
    int64_t nP = BN / 4; // P registers (two elements each)

    // With `mbar`, mbarriers replace the block-wide barrier of each
    // iteration: full[K|V][stage] complete when every thread's copies into
    // the stage landed (cp.async.mbarrier.arrive), empty[K|V][stage] when
    // every thread is done reading it (after its wgmma wait). A warpgroup
    // then waits only for the data it reads and the buffers it refills,
    // and may run up to a tile ahead of the others. Eight 8-byte words
    // after the K/V stages; a stage's n-th use completes phase n.
    const bool MB = cfg.mbarriers;
    enum {
      FullK = 0,
      FullV = 1,
      EmptyK = 2,
      EmptyV = 3,
      FullQ = 4,
      EmptyQ = 5
    };
    Value barBase;
    if (MB) {
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
      barBase = mb.add(mb.add(base, smemPad),
                       (BM + 2 * stages * BN + oRows) * P * eltBytes);
    }
    auto barAddr = [&](int kind, Value tile) -> Value {
      Value stage = arith::RemUIOp::create(b, tile, kb.idx(2));
      Value a = mb.add(mb.add(barBase, 16 * kind), mb.mul(stage, 8));
      return arith::IndexCastOp::create(b, b.getI32Type(), a);
    };
    auto parity = [&](Value tile) -> Value {
      Value use = arith::DivUIOp::create(b, tile, kb.idx(2));
      return arith::IndexCastOp::create(
          b, b.getI32Type(), arith::RemUIOp::create(b, use, kb.idx(2)));
    };
    auto barWait = [&](int kind, Value tile) {
      Value bar = barAddr(kind, tile); // before the parity, as it was
      kb.mbarrierWait(bar, parity(tile));
    };
    // The consumers release a stage (or Q) with one arrival per warpgroup:
    // once any thread of a warpgroup has waited for its wgmma group, the
    // group's shared-memory reads are done for the whole warpgroup (as in
    // FlashAttention-3's pipeline without clusters). An arrival by every
    // thread costs 128 shared-memory atomics per warpgroup and stage.
    auto barArrive = [&](int kind, Value tile) {
      Value bar = barAddr(kind, tile);
      scf::IfOp::create(b, wgLead, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        kb.mbarrierArrive(bar);
        scf::YieldOp::create(b);
      });
    };
    auto copyArrive = [&](int kind, Value tile) {
      kb.mbarrierCopyArrive(barAddr(kind, tile));
    };
    // `ws`: rows [row0, row0 + rows) of head `head` into the swizzled tile
    // `dst` through `map`, one 64-column panel per TMA copy, completing
    // on barrier (kind, tile) with the tile's bytes (rows past the
    // sequence read as zeros and count too).
    SmallVector<Value> tensorMaps;
    if (WS)
      for (int64_t i = 0; i < 3; ++i)
        tensorMaps.push_back(func.getArgument(func.getNumArguments() -
                                              launch.tensorMaps.size() + i));
    auto tmaTile = [&](Value map, Value dst, int64_t rows, Value row0,
                       Value head, int kind, Value tile) {
      auto i32 = [&](Value v) {
        return arith::IndexCastOp::create(b, b.getI32Type(), v);
      };
      Value bar = barAddr(kind, tile);
      kb.mbarrierArriveExpectTx(
          bar, kb.i32(static_cast<int32_t>(rows * D * eltBytes)));
      for (int64_t p = 0; p < D / 64; ++p)
        mb.callAsm("cp.async.bulk.tensor.4d.shared::cluster.global.tile."
                   "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5}], "
                   "[$6];",
                   "r,l,r,r,r,r,r,~{memory}",
                   {kb.sharedAddress(dst, kb.idx(p * rows * 128)), map,
                    kb.i32(static_cast<int32_t>(64 * p)), i32(row0), i32(head),
                    i32(batch), bar},
                   {});
    };
    if (MB) {
      Value first = mb.cmp(arith::CmpIPredicate::eq, tid, kb.idx(0));
      scf::IfOp::create(b, first, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        // Each consumer warpgroup arrives once on an empty barrier; a full
        // one completes when every thread's copies landed, or with `ws`
        // when the producer's one arrival and its TMA bytes did.
        Value all = arith::ConstantIntOp::create(b, T, 32);
        Value one = arith::ConstantIntOp::create(b, 1, 32);
        Value wgs = arith::ConstantIntOp::create(b, T / 128, 32);
        for (int kind = 0; kind < (PERSIST ? 6 : WS ? 5 : 4); ++kind)
          for (int64_t st = 0; st < (kind >= FullQ ? 1 : 2); ++st) {
            bool full = kind == FullK || kind == FullV || kind == FullQ;
            kb.mbarrierInit(barAddr(kind, kb.idx(st)), !full ? wgs
                                                       : WS  ? one
                                                             : all);
          }
        kb.mbarrierInitFence();
        scf::YieldOp::create(b);
      });
      gpu::BarrierOp::create(b);
    }
    if (WS) {
      // The producer warpgroup: one thread issues every load of the block
      // (Q once, then K[t] and V[t] into stage t % 2 once the consumers
      // released the stage's previous tile), the others only give their
      // registers away. Everything after this `if` is the consumers'.
      Value producer =
          mb.cmp(arith::CmpIPredicate::uge, wgIdxU, kb.idx(T / 128));
      auto split = scf::IfOp::create(b, producer, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&split.getThenRegion().front());
        if (regShuffle)
          mb.callAsm("setmaxnreg.dec.sync.aligned.u32 24;", "~{memory}", {},
                     {});
        Value leader = mb.cmp(arith::CmpIPredicate::eq, tid, kb.idx(T));
        Value issue = PERSIST
                          ? leader
                          : arith::AndIOp::create(b, leader, any).getResult();
        scf::IfOp::create(b, issue, [&](OpBuilder &ob, Location loc) {
          OpBuilder::InsertionGuard g4(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          for (Value map : tensorMaps)
            mb.callAsm("prefetch.tensormap [$0];", "l,~{memory}", {map}, {});
          std::optional<OpBuilder::InsertionGuard> inItems;
          if (PERSIST) {
            // Every item's Q (also an item without keys: the consumers
            // count Q's phases per item), once the consumers' S GEMMs of
            // the item before are done with the buffer.
            inItems.emplace(b);
            itemLoop(/*uniform=*/false);
            Value later = mb.cmp(arith::CmpIPredicate::uge, itemNo, kb.idx(1));
            scf::IfOp::create(b, later, [&](OpBuilder &ob2, Location loc2) {
              OpBuilder::InsertionGuard g6(b);
              b.setInsertionPoint(ob2.getInsertionBlock(),
                                  ob2.getInsertionPoint());
              barWait(EmptyQ,
                      qUse(arith::SubIOp::create(b, itemNo, kb.idx(1))));
              scf::YieldOp::create(b);
            });
          }
          tmaTile(tensorMaps[0], qs, BM, q0, h, FullQ,
                  qUse(PERSIST ? itemNo : kb.idx(0)));
          auto loads = scf::ForOp::create(b, kb.idx(0), tileEnd, kb.idx(1));
          {
            OpBuilder::InsertionGuard g5(b);
            b.setInsertionPointToStart(loads.getBody());
            Value t = gt(loads.getInductionVar());
            Value reuse = mb.cmp(arith::CmpIPredicate::uge, t, kb.idx(2));
            Value t2 = arith::SubIOp::create(b, t, kb.idx(2));
            for (int kv = 0; kv < 2; ++kv) {
              scf::IfOp::create(b, reuse, [&](OpBuilder &ob2, Location loc2) {
                OpBuilder::InsertionGuard g6(b);
                b.setInsertionPoint(ob2.getInsertionBlock(),
                                    ob2.getInsertionPoint());
                barWait(kv ? EmptyV : EmptyK, t2);
                scf::YieldOp::create(b);
              });
              tmaTile(tensorMaps[1 + kv], kv ? vTile(t) : kTile(t), BN,
                      mb.mul(loads.getInductionVar(), BN), g,
                      kv ? FullV : FullK, t);
            }
          }
          inItems.reset();
          scf::YieldOp::create(b);
        });
      }
      b.setInsertionPoint(split.getElseRegion().front().getTerminator());
      if (regShuffle)
        mb.callAsm("setmaxnreg.inc.sync.aligned.u32 " +
                       std::to_string(regSplit.consumer) + ";",
                   "~{memory}", {}, {});
      // `persist`: the consumers' work items; everything below (through
      // the output stores) is one item's body.
      if (PERSIST) {
        consumerItems = itemLoop(/*uniform=*/true);
        barWait(FullQ, qUse(itemNo));
      }
    }
    // Prologue (tile 0): S[0] and its softmax; K[1] and V[0] in flight.
    SmallVector<Type> pro;
    for (int64_t i = 0; i < nP; ++i)
      pro.push_back(b.getI32Type());
    for (int64_t i = 0; i < 4 * MT; ++i)
      pro.push_back(b.getF32Type());
    auto proIf = scf::IfOp::create(b, pro, any, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&proIf.getThenRegion().front());
      if (WS) {
        if (!PERSIST)
          barWait(FullQ, qUse(kb.idx(0)));
        barWait(FullK, gt(kb.idx(0)));
      } else {
        copyTile(q, qSeqBase, q0, BM, Sq, qs);
        copyTile(k, kvSeqBase, kb.idx(0), BN, Skv, kTile(kb.idx(0)));
        if (MB)
          copyArrive(FullK, kb.idx(0));
        copyTile(v, kvSeqBase, kb.idx(0), BN, Skv, vTile(kb.idx(0)));
        if (MB)
          copyArrive(FullV, kb.idx(0));
        Value more = mb.cmp(arith::CmpIPredicate::ugt, tileEnd, kb.idx(1));
        scf::IfOp::create(b, more, [&](OpBuilder &ob, Location loc) {
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          copyTile(k, kvSeqBase, kb.idx(BN), BN, Skv, kTile(kb.idx(1)));
          if (MB)
            copyArrive(FullK, kb.idx(1));
          scf::YieldOp::create(b);
        });
        // Copy groups: Q, K[0], V[0] and perhaps K[1]; S[0] needs the
        // first two (and waits for V[0] too when K[1] was issued).
        waitAll(/*pending=*/1);
      }
      SmallVector<Value> S = mb.unflatten(mb.asmTied(
          "wgmma.wait_group.sync.aligned 0;", issueS(kTile(gt(kb.idx(0))))));
      if (MB)
        barArrive(EmptyK, gt(kb.idx(0)));
      S = maskScores(S, kb.idx(0));
      SmallVector<Value> M(M0), L(L0), alpha;
      softmax(S, M, L, kb.idx(0), alpha); // O is still 0: no rescale
      scf::YieldOp::create(b, concat(pRegisters(S), M, L));
      b.setInsertionPointToStart(&proIf.getElseRegion().front());
      SmallVector<Value> zeros(nP, arith::ConstantIntOp::create(b, 0, 32));
      scf::YieldOp::create(b, concat(zeros, M0, L0));
    }
    SmallVector<Value> P0(proIf.getResults().begin(),
                          proIf.getResults().begin() + nP);
    SmallVector<Value> ML(proIf.getResults().begin() + nP,
                          proIf.getResults().end());

    // Ping-pong (`pp`): the warpgroups take turns issuing their GEMMs
    // (named barrier 1 + w is warpgroup w's turn; it passes the turn on
    // to w + 1 right after issuing), so one's softmax runs while the next
    // one's GEMMs are on the tensor cores. The last warpgroup opens the
    // first turn; warpgroup 0 takes the one left open after the loop.
    const int64_t nWG = W / 4;
    Value wgIdx = wgIdxU;
    auto namedBarrier = [&](StringRef op, Value wgOfTurn) {
      perWarpgroupBarrier(wgOfTurn, [&](int64_t w) {
        return (op + " " + std::to_string(w + 1) + ", 256;").str();
      });
    };
    if (cfg.pingPong) {
      Value lastWG = mb.cmp(arith::CmpIPredicate::eq, wgIdx, kb.idx(nWG - 1));
      scf::IfOp::create(b, lastWG, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        namedBarrier("bar.arrive", kb.idx(0));
        scf::YieldOp::create(b);
      });
    }
    auto loop = scf::ForOp::create(b, kb.idx(1), tileEnd, kb.idx(1),
                                   concat(O0, ML, P0));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      // `ws`: the tile's stage, barriers and descriptors on the uniform
      // datapath (without it the consumers' own copies mix the tile with
      // the thread index, and a uniform tile costs more than it saves).
      Value t =
          WS ? warpUniform(loop.getInductionVar()) : loop.getInductionVar();
      SmallVector<Value> O, M, L;
      split(loop.getRegionIterArgs(), O, M, L);
      SmallVector<Value> Pprev(loop.getRegionIterArgs().begin() + MT * DT +
                                   4 * MT,
                               loop.getRegionIterArgs().end());
      Value kv0 = mb.mul(t, BN);
      Value tPrev = arith::SubIOp::create(b, t, kb.idx(1));

      // K[t] and V[t-1] landed; every warpgroup is done with K[t-1] and
      // V[t-2], whose buffers K[t+1] and V[t] take now.
      if (MB) {
        barWait(FullK, gt(t));
        barWait(FullV, gt(tPrev));
      } else {
        waitAll();
      }
      // Without `ws` the consumers copy V[t] and K[t+1] themselves.
      if (!WS) {
        if (MB) {
          kb.fenceProxyAsync();
          Value reuse = mb.cmp(arith::CmpIPredicate::uge, t, kb.idx(2));
          scf::IfOp::create(b, reuse, [&](OpBuilder &ob, Location loc) {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
            barWait(EmptyV, arith::SubIOp::create(b, t, kb.idx(2)));
            scf::YieldOp::create(b);
          });
        }
        copyTile(v, kvSeqBase, kv0, BN, Skv, vTile(t));
        if (MB)
          copyArrive(FullV, t);
        Value more = mb.cmp(arith::CmpIPredicate::ult, mb.add(t, 1), tileEnd);
        scf::IfOp::create(b, more, [&](OpBuilder &ob, Location loc) {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          if (MB)
            barWait(EmptyK, tPrev);
          copyTile(k, kvSeqBase, mb.add(kv0, BN), BN, Skv, kTile(mb.add(t, 1)));
          if (MB)
            copyArrive(FullK, mb.add(t, 1));
          scf::YieldOp::create(b);
        });
      }

      if (cfg.pingPong)
        namedBarrier("bar.sync", wgIdx);
      auto [oFenced, pRegs] = fenceOP(O, Pprev);
      SmallVector<Value> sAcc = issueS(kTile(gt(t)));
      SmallVector<Value> oAcc = issuePV(oFenced, pRegs, vTile(gt(tPrev)));
      if (cfg.pingPong)
        namedBarrier("bar.arrive",
                     arith::RemUIOp::create(b, mb.add(wgIdx, 1), kb.idx(nWG)));
      SmallVector<Value> S =
          mb.unflatten(mb.asmTied("wgmma.wait_group.sync.aligned 1;", sAcc));
      if (MB)
        barArrive(EmptyK, gt(t));
      S = maskScores(S, kv0);
      SmallVector<Value> alpha;
      Value anyGrow = softmax(S, M, L, kv0, alpha);
      SmallVector<Value> P = pRegisters(S);
      O = mb.unflatten(mb.asmTied("wgmma.wait_group.sync.aligned 0;", oAcc));
      if (MB)
        barArrive(EmptyV, gt(tPrev));
      O = rescale(O, anyGrow, alpha);
      scf::YieldOp::create(b, concat(O, M, L, P));
    }
    SmallVector<Value> Olast,
        Plast(loop.getResults().begin() + MT * DT + 4 * MT,
              loop.getResults().end());
    split(loop.getResults(), Olast, Mfinal, Lfinal);
    // `persist`: every S of the item is done: the producer may load the
    // next item's Q.
    if (PERSIST)
      barArrive(EmptyQ, kb.idx(0));
    if (cfg.pingPong) {
      Value firstWG = mb.cmp(arith::CmpIPredicate::eq, wgIdx, kb.idx(0));
      scf::IfOp::create(b, firstWG, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        namedBarrier("bar.sync", kb.idx(0));
        scf::YieldOp::create(b);
      });
    }
    // Epilogue: O += P[last] V[last].
    SmallVector<Type> oTypes(MT * DT, mb.acc2x2);
    auto epiIf = scf::IfOp::create(b, oTypes, any, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&epiIf.getThenRegion().front());
      Value last = gt(arith::SubIOp::create(b, tileEnd, kb.idx(1)));
      if (MB) {
        barWait(FullV, last);
        if (!WS)
          kb.fenceProxyAsync();
      } else {
        waitAll();
      }
      auto [oFenced, pRegs] = fenceOP(Olast, Plast);
      SmallVector<Value> acc = issuePV(oFenced, pRegs, vTile(last));
      SmallVector<Value> done =
          mb.asmTied("wgmma.wait_group.sync.aligned 0;", acc);
      // `persist`: the next item refills this V stage.
      if (PERSIST)
        barArrive(EmptyV, last);
      scf::YieldOp::create(b, mb.unflatten(done));
      b.setInsertionPointToStart(&epiIf.getElseRegion().front());
      scf::YieldOp::create(b, Olast);
    }
    Ofinal.assign(epiIf.getResults().begin(), epiIf.getResults().end());
  }

  // Epilogue: O / l per row, 4-byte stores of element pairs (with
  // `tmaStore` into the swizzled panels of O's shared tile, then one TMA
  // store per panel); lse.
  // The warpgroup's own named barrier (ids after ping-pong's).
  auto wgBarrier = [&]() {
    perWarpgroupBarrier(wgIdxU, [&](int64_t w) {
      return "bar.sync " + std::to_string(1 + W / 4 + w) + ", 128;";
    });
  };
  // The warpgroup leader's wait for its stores to have read O's tile.
  auto storesRead = [&]() {
    scf::IfOp::create(b, wgLead, [&](OpBuilder &ob, Location loc) {
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
      mb.callAsm("cp.async.bulk.wait_group.read 0;", "~{memory}", {}, {});
      scf::YieldOp::create(b);
    });
  };
  // `persist`: the item before's stores must be done reading O's tile.
  if (tmaStore && PERSIST) {
    storesRead();
    wgBarrier();
  }
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t r = 0; r < 2; ++r) {
      Value l = mb.quadReduce(Lfinal[mt * 2 + r], /*isMax=*/false);
      Value m = Mfinal[mt * 2 + r];
      Value positive =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, kb.f32(0.0));
      Value inv = arith::SelectOp::create(
          b, positive, arith::DivFOp::create(b, kb.f32(1.0), l), kb.f32(0.0));
      Value i = mb.add(mb.add(q0, mb.add(warpRow, quadRow)), 16 * mt + 8 * r);
      Value iOk = mb.cmp(arith::CmpIPredicate::ult, i, kb.idx(Sq));
      Value rowBase = mb.mul(mb.add(qSeqBase, i), D);
      Value inv2 = mb.splat2(inv);
      if (tmaStore) {
        // Row rt of the tile (rt % 8 == quadRow), chunk dt % 8 of panel
        // dt / 8 at the 128-byte swizzle's place (as the loads put Q).
        Value rt = mb.add(mb.add(warpRow, quadRow), 8 * r);
        for (int64_t dt = 0; dt < DT; ++dt) {
          Value o =
              arith::MulFOp::create(b, mb.row(Ofinal[mt * DT + dt], r), inv2);
          Value chunk = arith::XOrIOp::create(b, kb.idx(dt % 8), quadRow);
          Value at = mb.add(mb.add(mb.mul(rt, 64), mb.mul(chunk, 8)),
                            mb.add(quadCol, (dt / 8) * BM * 64));
          auto st = vector::StoreOp::create(
              b, arith::TruncFOp::create(b, mb.elt2, o), os, at);
          st.setAlignment(4);
        }
      }
      scf::IfOp::create(b, iOk, [&](OpBuilder &ob, Location loc) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        for (int64_t dt = 0; dt < DT && !tmaStore; ++dt) {
          Value o =
              arith::MulFOp::create(b, mb.row(Ofinal[mt * DT + dt], r), inv2);
          Value at = mb.add(mb.add(rowBase, quadCol), 8 * dt);
          auto st = vector::StoreOp::create(
              b, arith::TruncFOp::create(b, mb.elt2, o), out, at);
          st.setAlignment(4);
        }
        if (lseOut) {
          // Natural-log units: (m + log2 l) * ln 2; -inf without keys.
          Value lse = arith::MulFOp::create(
              b, arith::AddFOp::create(b, m, math::Log2Op::create(b, l)),
              kb.f32(std::log(2.0)));
          lse = arith::SelectOp::create(b, positive, lse, negInf);
          Value lead = mb.cmp(arith::CmpIPredicate::eq, quadCol, kb.idx(0));
          scf::IfOp::create(b, lead, [&](OpBuilder &ob2, Location loc2) {
            OpBuilder::InsertionGuard g3(b);
            b.setInsertionPoint(ob2.getInsertionBlock(),
                                ob2.getInsertionPoint());
            memref::StoreOp::create(b, lse, lseOut,
                                    ValueRange{mb.add(qSeqBase, i)});
            scf::YieldOp::create(b);
          });
        }
        scf::YieldOp::create(b);
      });
    }
  if (tmaStore) {
    // Every thread's shared-memory writes reach the async proxy, the
    // warpgroup meets at its barrier, and its leader stores the panels;
    // rows past the sequence are not written. The block may end only once
    // the stores have read the tile (a persistent block: before it writes
    // the next item's O, and after its last item).
    kb.fenceProxyAsync();
    wgBarrier();
    scf::IfOp::create(b, wgLead, [&](OpBuilder &ob, Location loc) {
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
      auto i32 = [&](Value v) {
        return arith::IndexCastOp::create(b, b.getI32Type(), v);
      };
      Value map = func.getArgument(func.getNumArguments() - 1);
      Value row0 = mb.add(q0, mb.mul(wgIdxU, 64));
      for (int64_t p = 0; p < D / 64; ++p)
        mb.callAsm("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group "
                   "[$0, {$1, $2, $3, $4}], [$5];",
                   "l,r,r,r,r,r,~{memory}",
                   {map, kb.i32(static_cast<int32_t>(64 * p)), i32(row0),
                    i32(h), i32(batch),
                    kb.sharedAddress(os, mb.add(mb.mul(wgIdxU, 64 * 128),
                                                kb.idx(p * BM * 128)))},
                   {});
      mb.callAsm("cp.async.bulk.commit_group;", "~{memory}", {}, {});
      scf::YieldOp::create(b);
    });
    if (PERSIST)
      b.setInsertionPointAfter(consumerItems);
    storesRead();
  }
  return launch;
}

namespace {
struct TableEntry {
  int64_t minSm;
  const char *dtype;
  int64_t headDim;
  bool causal;
  int64_t maxSeq; // longest key sequence the entry is for (0: any)
  const char *config;
};
} // namespace

static const TableEntry kAttentionTable[] = {
#define SINTER_ATTENTION_CONFIG(sm, dtype, d, causal, maxSeq, cfg)             \
  {sm, dtype, d, causal, maxSeq, cfg},
#include "AttentionConfigs.inc"
#undef SINTER_ATTENTION_CONFIG
};

AttentionConfig sinter::gpu_kernels::selectAttentionConfig(AttentionOp op,
                                                           int64_t smVersion,
                                                           bool archSpecific) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  std::string dtype;
  llvm::raw_string_ostream os(dtype);
  os << qType.getElementType();
  // Entries for this shape, the most specific chip first, then the
  // shortest sequence bucket that holds the keys; the first whose tiles run
  // here wins (an sm_90a wgmma entry does not run on sm_90).
  int64_t skv = cast<RankedTensorType>(op.getKey().getType()).getDimSize(2);
  SmallVector<const TableEntry *> matches;
  for (const TableEntry &e : kAttentionTable)
    if (e.minSm <= smVersion &&
        llvm::is_contained(llvm::split(e.dtype, '/'), dtype) &&
        e.headDim == qType.getDimSize(3) && e.causal == op.getCausal() &&
        (e.maxSeq == 0 || skv <= e.maxSeq))
      matches.push_back(&e);
  auto bucket = [](const TableEntry *e) {
    return e->maxSeq ? e->maxSeq : std::numeric_limits<int64_t>::max();
  };
  llvm::stable_sort(matches, [&](const TableEntry *x, const TableEntry *y) {
    if (x->minSm != y->minSm)
      return x->minSm > y->minSm;
    return bucket(x) < bucket(y);
  });
  std::string why;
  for (const TableEntry *e : matches) {
    FailureOr<AttentionConfig> parsed = parseAttentionConfig(e->config);
    if (succeeded(parsed) &&
        succeeded(checkMMAAttention(op, smVersion, archSpecific, *parsed, why)))
      return *parsed;
  }
  // No entry fits: the default tiles, then the smallest, then CUDA cores.
  AttentionConfig cfg;
  if (failed(checkMMAAttention(op, smVersion, archSpecific, cfg, why))) {
    cfg = AttentionConfig{4, 1, 32, true, false};
    if (failed(checkMMAAttention(op, smVersion, archSpecific, cfg, why)))
      cfg.tensorCores = false;
  }
  return cfg;
}
