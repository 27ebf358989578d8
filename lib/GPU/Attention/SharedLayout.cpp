//===- SharedLayout.cpp - Shared memory of the attention kernels ----------===//
//
// Part of the Sinter project.
//
// The byte offsets of SharedLayout.h and the views the kernel takes of
// them: Q's tile, K's and V's stages, O's tile.
//
//===----------------------------------------------------------------------===//

#include "DropoutStage.h"
#include "MMAKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

/// Elements of padding per mma.sync tile row: 16 bytes of bf16/f16.
static constexpr int64_t kRowPadElements = 8;

SharedLayout::SharedLayout(const AttentionConfig &cfg, int64_t headDim,
                           int64_t eltBytes, bool dropoutStages)
    : bm(kMTileRows * cfg.mTiles * cfg.warps), bn(cfg.blockN),
      stages(cfg.pipelined ? 2 : 1),
      // A persistent block's O tile (`tmastore`: the Q tile holds the next
      // item's rows).
      oRows(cfg.persistent && cfg.tmaStore ? bm : 0),
      rowElems(headDim + (cfg.wgmma ? 0 : kRowPadElements)), eltBytes(eltBytes),
      dropoutBytes(dropoutStages ? cfg.warps * DropoutStage::kBytesPerWarp : 0),
      wgmma(cfg.wgmma), mbarriers(cfg.mbarriers),
      warpSpecialized(cfg.warpSpecialized) {}

int64_t SharedLayout::barrierBytes() const {
  // mbarriers: full/empty x K/V x 2 stages, Q's with `ws`.
  return (mbarriers ? 4 * kBarrierKindBytes : 0) +
         (warpSpecialized ? 4 * kBarrierKindBytes : 0);
}

int64_t SharedLayout::totalBytes() const {
  // The tiles and barriers; with wgmma the slack that aligns them to the
  // swizzle's 1024-byte atom; the dropout stages.
  return dropoutStages() + (wgmma ? swizzle::kAtomBytes : 0) + dropoutBytes;
}

void MMAKernel::setupSharedMemory() {
  // Shared memory: [Q: BM x P][K: BN x P][V: BN x P].
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), ws));
  // wgmma's 128-byte swizzle repeats every 1024 bytes of address: its
  // tiles start 1024-aligned (the allocation has 1024 bytes of slack).
  smemPad = kb.idx(0);
  if (WG) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
    Value atom = kb.idx(swizzle::kAtomBytes);
    smemPad = arith::RemUIOp::create(
        b,
        arith::SubIOp::create(b, atom, arith::RemUIOp::create(b, base, atom)),
        kb.idx(swizzle::kAtomBytes));
  }
  qs = view(kb.idx(0), BM);
  // `tmastore`: O's rows on their way out: the Q tile (free after the
  // block's last S), or with `persist` a tile of their own after V's.
  if (tmaStore)
    os = layout.oTileRows() ? view(kb.idx(layout.oTile()), BM) : qs;
  if (dropP > 0.0 && drawsThroughStage(Skv, NT))
    drawStage.emplace(b, kb, smem,
                      mb.add(smemPad, kb.idx(layout.dropoutStages())), W);
}

Value MMAKernel::view(Value byteOffset, int64_t rows) {
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // wgmma tiles are flat (swizzled 64-column panels).
  SmallVector<int64_t> shape =
      WG ? SmallVector<int64_t>{rows * D} : SmallVector<int64_t>{rows, P};
  return memref::ViewOp::create(
      b, MemRefType::get(shape, mb.elt, MemRefLayoutAttrInterface(), ws), smem,
      mb.add(smemPad, byteOffset), ValueRange{});
}

Value MMAKernel::stageTile(int64_t base, Value t) {
  // One buffer, or two (stage t % 2).
  Value off = kb.idx(base);
  if (stages > 1)
    off = mb.add(off, mb.mul(arith::RemUIOp::create(b, t, kb.idx(stages)),
                             layout.tileBytes()));
  return view(off, BN);
}

Value MMAKernel::kTile(Value t) { return stageTile(layout.kTile(0), t); }

Value MMAKernel::vTile(Value t) { return stageTile(layout.vTile(0), t); }
