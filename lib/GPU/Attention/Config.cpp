//===- Config.cpp - Tile configurations of the attention kernels ----------===//
//
// Part of the Sinter project.
//
// The text form of AttentionConfig, the rules a configuration must follow,
// whether a configuration's tiles fit an op (registers, shared memory), and
// the shipped table (AttentionConfigs.inc) that picks one per shape.
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "SharedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

attention::Tiles::Tiles(const AttentionConfig &cfg, int64_t headDim)
    : warps(cfg.warps), mTiles(cfg.mTiles), blockN(cfg.blockN),
      blockM(kMTileRows * cfg.mTiles * cfg.warps),
      threads(kWarpSize * cfg.warps), nTiles(cfg.blockN / 8),
      dTiles(headDim / 8), kSteps(headDim / 16), stages(cfg.pipelined ? 2 : 1),
      warpgroups(cfg.warps / 4) {}

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

/// The forms, by token (see AttentionConfig).
static const std::pair<StringRef, bool AttentionConfig::*> kForms[] = {
    {"wgmma", &AttentionConfig::wgmma},
    {"pipe", &AttentionConfig::pipelined},
    {"mbar", &AttentionConfig::mbarriers},
    {"pp", &AttentionConfig::pingPong},
    {"ws", &AttentionConfig::warpSpecialized},
    {"persist", &AttentionConfig::persistent},
    {"tmastore", &AttentionConfig::tmaStore}};

/// Sets the form or number `part` names in `cfg`; false when it names none.
static bool parsePart(StringRef part, AttentionConfig &cfg) {
  auto form =
      llvm::find_if(kForms, [&](const auto &f) { return f.first == part; });
  if (form != std::end(kForms)) {
    cfg.*(form->second) = true;
    return true;
  }
  auto [key, value] = part.split('=');
  key = key.trim();
  int64_t v;
  bool known = llvm::is_contained({"warps", "mtiles", "bn", "maxregs"}, key);
  if (!known || value.trim().getAsInteger(10, v))
    return false;
  if (key == "warps")
    cfg.warps = v;
  else if (key == "mtiles")
    cfg.mTiles = v;
  else if (key == "bn")
    cfg.blockN = v;
  else
    cfg.maxRegs = v;
  return true;
}

/// The rule `cfg` breaks, or null.
static const char *brokenRule(const AttentionConfig &cfg) {
  if (!llvm::is_contained({2, 4, 8, 12}, cfg.warps) ||
      (cfg.warps == 12 && !cfg.wgmma))
    return "warps must be 2, 4 or 8 (12 with wgmma)";
  if (!llvm::is_contained({1, 2}, cfg.mTiles))
    return "mtiles must be 1 or 2";
  if (!llvm::is_contained({16, 32, 64, 128, 160, 176, 192}, cfg.blockN) ||
      (cfg.blockN > 128 && !cfg.wgmma))
    return "bn must be 16, 32, 64 or 128 (160, 176, 192 with wgmma)";
  if (cfg.maxRegs && (cfg.maxRegs < 64 || cfg.maxRegs > kMaxRegistersPerThread))
    return "maxregs must be 64 to 255";
  // wgmma: whole warpgroups of 64 rows (one m-tile per warp).
  if (cfg.wgmma && (cfg.warps % 4 != 0 || cfg.mTiles != 1))
    return "wgmma takes whole warpgroups: warps 4, 8 or 12, mtiles=1";
  // Two stages overlap wgmma groups: nothing to overlap on mma.sync.
  if (cfg.pipelined && !cfg.wgmma)
    return "pipe needs wgmma";
  if (cfg.mbarriers && !cfg.pipelined)
    return "mbar needs pipe";
  // Ping-pong orders the GEMMs of two or more warpgroups that are not in
  // lockstep: mbarriers, several warpgroups.
  if (cfg.pingPong && (!cfg.mbarriers || cfg.warps < 8))
    return "pp needs mbar and two or more warpgroups (warps >= 8)";
  // Warp specialization: TMA loads tracked by the mbarriers; the producer
  // warpgroup's registers go to the consumer warpgroups.
  if (cfg.warpSpecialized && !cfg.mbarriers)
    return "ws needs mbar";
  if (cfg.warpSpecialized && cfg.maxRegs)
    return "maxregs does not combine with ws, which splits the registers "
           "between producer and consumers itself (setmaxnreg)";
  // Persistent blocks: the producer runs ahead across work items.
  if (cfg.persistent && !cfg.warpSpecialized)
    return "persist needs ws";
  // O through shared memory and a TMA map of its own: with `ws`.
  if (cfg.tmaStore && !cfg.warpSpecialized)
    return "tmastore needs ws";
  return nullptr;
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
  for (StringRef part : parts) {
    part = part.trim();
    if (!parsePart(part, cfg))
      return reject("'" + part +
                    "' is neither a form (cuda-cores, wgmma, pipe, mbar, pp, "
                    "ws, persist, tmastore) nor warps=, mtiles=, bn=, "
                    "maxregs= with a number");
  }
  if (const char *rule = brokenRule(cfg))
    return reject(rule);
  return cfg;
}

RegisterSplit attention::registerSplit(const AttentionConfig &cfg) {
  if (!cfg.warpSpecialized || (cfg.warps != 8 && cfg.warps != 12))
    return {0, 0, kTileRegisterBudget};
  // One block per SM: the launch takes the register file (every sm_90 part
  // has 64K registers per SM), in setmaxnreg's steps; setmaxnreg then moves
  // what the producer gives up to the consumers.
  int64_t consumers = kWarpSize * cfg.warps;
  int64_t threads = consumers + kWarpgroupSize;
  int64_t launch = llvm::alignDown(
      std::min(chipInfo(90).registersPerSM / threads, kMaxRegistersPerThread),
      kSetMaxNRegStep);
  int64_t consumer = llvm::alignDown(
      (launch * threads - kProducerRegisters * kWarpgroupSize) / consumers,
      kSetMaxNRegStep);
  return {launch, kProducerRegisters,
          std::min({consumer, kTileRegisterBudget, kSetMaxNRegMax})};
}

/// Shared memory the tiles of a block may take on sm_`smVersion`: the
/// chip's, but at least sm_90's. The shipped table's sm_80 entries were
/// tuned on an H200 and are run on sm_90 parts; one of them (D256, bn=128:
/// 198 KB) exceeds the 163 KB that sm_80 itself gives a block, so checking
/// sm_80 targets against sm_80's figure would reject it (a change of the
/// table and its tuner, not of this check).
static int64_t sharedMemoryBudget(int64_t smVersion) {
  return chipInfo(std::max<int64_t>(smVersion, 90)).maxSharedMemoryPerBlock;
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

/// Whether the block's threads can copy the tiles of `cfg` at head dim D.
static LogicalResult checkCopies(const AttentionConfig &cfg, int64_t D,
                                 std::string &why) {
  Tiles tiles(cfg, D);
  int64_t threads = tiles.threads, chunks = D / 8;
  if (cfg.wgmma && D % swizzle::kPanelColumns != 0) {
    why = "wgmma tiles are 64-column swizzled panels: head dim must be a "
          "multiple of 64";
    return failure();
  }
  if (cfg.wgmma && !cfg.warpSpecialized &&
      threads % (swizzle::kAtomRows * chunks) != 0) {
    why = "the wgmma tile copy needs the block's threads to cover 8 whole "
          "rows per pass";
    return failure();
  }
  int64_t bm = tiles.blockM;
  // wgmma tile copies may end with a partial pass; mma.sync's may not.
  if (threads % chunks != 0 ||
      (!cfg.wgmma && (cfg.blockN % (threads / chunks) != 0 ||
                      bm % (threads / chunks) != 0))) {
    why = "the tile shape does not divide among the block's threads";
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
  if (cfg.wgmma && !hasWgmma(smVersion, archSpecific)) {
    why = "wgmma needs sm_90a";
    return failure();
  }
  if (failed(checkCopies(cfg, D, why)))
    return failure();
  // O accumulators + S + P fragments must fit the fragments' budget.
  // (Two stages keep the previous tile's P beside this tile's S.)
  int64_t regs = cfg.mTiles * (D / 2 + cfg.blockN / 2 + cfg.blockN / 4) +
                 (cfg.pipelined ? cfg.blockN / 4 : 0);
  int64_t regBudget = registerSplit(cfg).consumer;
  if (regs > regBudget) {
    why = "the tile shape needs more than " + std::to_string(regBudget) +
          " registers per thread";
    return failure();
  }
  SharedLayout layout(cfg, D, elt.getIntOrFloatBitWidth() / 8);
  if (layout.totalBytes() > sharedMemoryBudget(smVersion)) {
    why = "the tile shape needs more shared memory than a block may have";
    return failure();
  }
  return success();
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

/// The table's entries for `op` on sm_`smVersion`: the most specific chip
/// first, then the shortest sequence bucket that holds the keys.
static SmallVector<const TableEntry *> tableEntries(AttentionOp op,
                                                    int64_t smVersion) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  std::string dtype;
  llvm::raw_string_ostream os(dtype);
  os << qType.getElementType();
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
  // Ties keep the table's order (the entries are one array).
  llvm::sort(matches, [&](const TableEntry *x, const TableEntry *y) {
    if (x->minSm != y->minSm)
      return x->minSm > y->minSm;
    if (bucket(x) != bucket(y))
      return bucket(x) < bucket(y);
    return x < y;
  });
  return matches;
}

AttentionConfig sinter::gpu_kernels::selectAttentionConfig(AttentionOp op,
                                                           int64_t smVersion,
                                                           bool archSpecific) {
  // The first entry whose tiles run here wins (an sm_90a wgmma entry does
  // not run on sm_90).
  std::string why;
  for (const TableEntry *e : tableEntries(op, smVersion)) {
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
