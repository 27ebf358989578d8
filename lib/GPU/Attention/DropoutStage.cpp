//===- DropoutStage.cpp - Philox words to fragments through smem ----------===//
//
// Part of the Sinter project.
//
// DropoutStage.h: one store and one ldmatrix.x4 per lane and call.
//
//===----------------------------------------------------------------------===//

#include "DropoutStage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "sinter/Conversion/Philox.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

static constexpr int64_t kChunkWords = DropoutStage::kChunkBytes / 4;
static constexpr int64_t kChunkDraws = kPhiloxDraws;
/// ldmatrix.x4: four 8x8 matrices of 16-bit elements.
static constexpr int64_t kMatrices = 4;
static constexpr int64_t kMatrixRows = 8;

bool sinter::gpu_kernels::attention::drawsThroughStage(int64_t Skv,
                                                       int64_t nTiles) {
  return Skv % kPhiloxDraws == 0 && nTiles % 2 == 0;
}

DropoutStage::DropoutStage(ImplicitLocOpBuilder &b, KernelBuilder &kb,
                           Value smem, Value offset, int64_t warps)
    : b(b), kb(kb) {
  static_assert(kChunkDraws * 2 == kChunkBytes, "a chunk is one call");
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  int64_t rows = warps * kRows;
  words = memref::ViewOp::create(
      b,
      MemRefType::get({rows * kChunks * kChunkWords}, b.getI32Type(),
                      MemRefLayoutAttrInterface(), ws),
      smem, offset, ValueRange{});
  halves = memref::ViewOp::create(
      b,
      MemRefType::get({rows, kChunks * kChunkDraws}, b.getF16Type(),
                      MemRefLayoutAttrInterface(), ws),
      smem, offset, ValueRange{});
}

Value DropoutStage::callRow(Value lane) {
  return arith::RemUIOp::create(b, lane, kb.idx(kRows));
}

Value DropoutStage::callChunk(Value lane) {
  return arith::DivUIOp::create(b, lane, kb.idx(kRows));
}

Value DropoutStage::chunkAt(Value row, Value chunk) {
  // Chunks trade places in rows 4-7 and 12-15.
  Value flip = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, row, kb.idx(2)), kb.idx(1));
  return arith::XOrIOp::create(b, chunk, flip);
}

SmallVector<Value, 4> DropoutStage::exchange(Value counter, Value seed,
                                             Value warp, Value lane,
                                             bool keysAsRows) {
  std::array<Value, kPhiloxWords> w =
      buildPhiloxOnGPU(b, b.getLoc(), counter, seed);
  Value rowBase = arith::MulIOp::create(b, warp, kb.idx(kRows));
  Value row = callRow(lane);
  Value at = arith::MulIOp::create(
      b,
      arith::AddIOp::create(
          b,
          arith::MulIOp::create(b, arith::AddIOp::create(b, rowBase, row),
                                kb.idx(kChunks)),
          chunkAt(row, callChunk(lane))),
      kb.idx(kChunkWords));
  // The warp's earlier reads of its stage are done before it is written,
  // and its writes before it is read.
  Value all = kb.i32(-1);
  NVVM::SyncWarpOp::create(b, all);
  vector::StoreOp::create(
      b,
      vector::FromElementsOp::create(
          b, VectorType::get({kPhiloxWords}, b.getI32Type()), ValueRange(w)),
      words, ValueRange{at});
  NVVM::SyncWarpOp::create(b, all);
  // Lane l gives ldmatrix the address of row l % 8 of matrix m = l / 8.
  Value m = arith::DivUIOp::create(b, lane, kb.idx(kMatrixRows));
  Value readRow = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, arith::DivUIOp::create(b, m, kb.idx(2)),
                            kb.idx(kMatrixRows)),
      arith::RemUIOp::create(b, lane, kb.idx(kMatrixRows)));
  Value readChunk =
      chunkAt(readRow, arith::RemUIOp::create(b, m, kb.idx(kChunks)));
  auto type = VectorType::get({kMatrices, 2}, b.getF16Type());
  Value frag = nvgpu::LdMatrixOp::create(
      b, type, halves,
      ValueRange{arith::AddIOp::create(b, rowBase, readRow),
                 arith::MulIOp::create(b, readChunk, kb.idx(kChunkDraws))},
      b.getBoolAttr(keysAsRows), b.getI32IntegerAttr(kMatrices));
  SmallVector<Value, 4> out;
  for (int64_t i = 0; i < kMatrices; ++i)
    out.push_back(LLVM::BitcastOp::create(
        b, b.getI32Type(),
        vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{i})));
  return out;
}
