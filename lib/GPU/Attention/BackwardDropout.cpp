//===- BackwardDropout.cpp - The backward's regenerated dropout mask ------===//
//
// Part of the Sinter project.
//
// Dropout in the tensor-core backward (Backward.h): the forward's keep mask
// regenerated from the Philox stream of sinter.dropout (Philox.h), never
// stored. With Z the mask and s = 1 / (1 - p), the forward computed
// O = (P * Z s) V, so per score
//
//   dV += (P * Z)^T dO            (s once, on dV's store)
//   dP  = (dO V^T) * Z s          delta = rowsum(dO * O) = rowsum(P * dP)
//   dS  = P * (dP - delta)
//
// One Philox call draws the 16-bit numbers of eight consecutive keys of one
// query (16 bytes). The fragments hold, per 8-column n-tile, a 16-bit pair
// of two rows (keys in the key-tile kernel, queries in the query-tile
// kernel): a call's draws belong to eight lanes (key-tile: its eight keys
// are eight fragment rows) or four (query-tile). With Skv % 8 == 0 a warp's
// 16 rows by a pair of n-tiles are 32 calls, one per lane: each lane stores
// its 16 bytes into a 512-byte stage of its own warp (query-major rows of
// two 16-byte chunks), and one ldmatrix.x4 -- transposed for the key-tile
// kernel -- reads them back in the accumulator layout. Other Skv take one
// call per score.
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "KernelBuilder.h"

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

/// A warp's stage: 16 query rows of two 16-byte chunks (eight draws each).
static constexpr int64_t kStageRows = kMTileRows;
static constexpr int64_t kStageChunks = 2;
static constexpr int64_t kChunkBytes = 16;
static constexpr int64_t kChunkWords = kChunkBytes / 4;
static constexpr int64_t kChunkDraws = kPhiloxDraws;
static constexpr int64_t kStageRowDraws = kStageChunks * kChunkDraws;

int64_t BackwardTiles::dropoutStageBytes(bool dropout) {
  return dropout ? kWarps * kStageRows * kStageChunks * kChunkBytes : 0;
}

bool BackwardKernel::dropoutByCalls() const {
  return Skv % kPhiloxDraws == 0 && QT % 2 == 0;
}

void BackwardKernel::setupDropout(Value seedArg, int64_t byteOffset) {
  seed = seedArg;
  if (!dropoutByCalls())
    return;
  auto ws =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value at = mb.add(smemPad, kb.idx(byteOffset));
  int64_t rows = BackwardTiles::kWarps * kStageRows;
  // The same bytes as i32 words (the lanes' 16-byte stores) and as 16-bit
  // elements (ldmatrix; f16 only names their width).
  drawWords = memref::ViewOp::create(
      b,
      MemRefType::get({rows * kStageChunks * kChunkWords}, b.getI32Type(),
                      MemRefLayoutAttrInterface(), ws),
      smem, at, ValueRange{});
  drawHalves = memref::ViewOp::create(
      b,
      MemRefType::get({rows, kStageRowDraws}, b.getF16Type(),
                      MemRefLayoutAttrInterface(), ws),
      smem, at, ValueRange{});
}

/// The stage's chunk of `chunk` in row `row` of a warp: the two chunks trade
/// places in rows 4-7 and 12-15, so that ldmatrix's eight 16-byte rows (32
/// bytes apart) and a quarter-warp's stores each cover all 32 banks.
static Value stageChunk(KernelBuilder &kb, ImplicitLocOpBuilder &b, Value row,
                        Value chunk) {
  Value flip = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, row, kb.idx(2)), kb.idx(1));
  return arith::XOrIOp::create(b, chunk, flip);
}

Value BackwardKernel::dropoutCounter(Value bhq, Value query, Value key) {
  // Offset ((bhq * Sq + query) * Skv + key), in calls of eight keys.
  Value offset = mb.add(mb.mul(mb.add(mb.mul(bhq, Sq), query), Skv), key);
  return arith::IndexCastOp::create(
      b, b.getI64Type(),
      arith::DivUIOp::create(b, offset, kb.idx(kPhiloxDraws)));
}

SmallVector<Value> BackwardKernel::dropoutPairWords(Value counter) {
  // This lane's call into row lane % 16, chunk lane / 16 of its warp's
  // stage; then ldmatrix.x4 over matrices m = lane / 8: rows 8 (m / 2) +
  // lane % 8, chunk m % 2.
  std::array<Value, kPhiloxWords> w =
      buildPhiloxOnGPU(b, b.getLoc(), counter, seed);
  Value rowBase = mb.mul(warp, kStageRows);
  Value row = arith::RemUIOp::create(b, lane, kb.idx(kStageRows));
  Value chunk = arith::DivUIOp::create(b, lane, kb.idx(kStageRows));
  Value at = mb.mul(mb.add(mb.mul(mb.add(rowBase, row), kStageChunks),
                           stageChunk(kb, b, row, chunk)),
                    kChunkWords);
  // The warp's previous reads of the stage are done before it is written.
  Value all = kb.i32(-1);
  NVVM::SyncWarpOp::create(b, all);
  vector::StoreOp::create(
      b,
      vector::FromElementsOp::create(
          b, VectorType::get({kPhiloxWords}, b.getI32Type()), ValueRange(w)),
      drawWords, ValueRange{at});
  NVVM::SyncWarpOp::create(b, all);
  Value m = arith::DivUIOp::create(b, lane, kb.idx(8));
  Value readRow = mb.add(mb.mul(arith::DivUIOp::create(b, m, kb.idx(2)), 8),
                         arith::RemUIOp::create(b, lane, kb.idx(8)));
  Value readChunk =
      stageChunk(kb, b, readRow, arith::RemUIOp::create(b, m, kb.idx(2)));
  auto f16x4x2 = VectorType::get({4, 2}, b.getF16Type());
  Value frag = nvgpu::LdMatrixOp::create(
      b, f16x4x2, drawHalves,
      ValueRange{mb.add(rowBase, readRow), mb.mul(readChunk, kChunkDraws)},
      b.getBoolAttr(role == BackwardRole::KeyTiles), b.getI32IntegerAttr(4));
  SmallVector<Value> words;
  for (int64_t i = 0; i < 4; ++i)
    words.push_back(LLVM::BitcastOp::create(
        b, b.getI32Type(),
        vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{i})));
  return words;
}

SmallVector<Value> BackwardKernel::dropoutKeeps(Value bhq, Value q0, Value kv0,
                                                int64_t np) {
  auto i1x2 = VectorType::get({2}, b.getI1Type());
  SmallVector<Value> keeps(4);
  bool keyRows = role == BackwardRole::KeyTiles;
  if (!dropoutByCalls()) {
    // One call per score: (nt, r, c) is query/key as the fragments say.
    for (int64_t t = 0; t < 2; ++t)
      for (int64_t r = 0; r < 2; ++r) {
        Value row = mb.add(mb.add(warpKey, quadRow), 8 * r);
        SmallVector<Value, 2> pair;
        for (int64_t c = 0; c < 2; ++c) {
          Value col = mb.add(quadCol, 8 * (2 * np + t) + c);
          Value query = keyRows ? mb.add(q0, col) : mb.add(q0, row);
          Value key = keyRows ? mb.add(kv0, row) : mb.add(kv0, col);
          Value offset =
              mb.add(mb.mul(mb.add(mb.mul(bhq, Sq), query), Skv), key);
          pair.push_back(buildPhiloxKeepOnGPU(
              b, b.getLoc(),
              arith::IndexCastOp::create(b, b.getI64Type(), offset), seed,
              dropP));
        }
        keeps[2 * t + r] = vector::FromElementsOp::create(b, i1x2, pair);
      }
    return keeps;
  }
  // The lane's call: stage row lane % 16 is a query, chunk lane / 16 a
  // group of eight keys. Key-tile: queries q0 + 16 np + row, keys of the
  // warp's 16; query-tile: the warp's 16 queries, keys kv0 + 16 np +
  // group.
  Value stageRow = arith::RemUIOp::create(b, lane, kb.idx(kStageRows));
  Value keyGroup =
      mb.mul(arith::DivUIOp::create(b, lane, kb.idx(kStageRows)), kChunkDraws);
  Value query = keyRows ? mb.add(mb.add(q0, stageRow), 16 * np)
                        : mb.add(mb.add(q0, warpKey), stageRow);
  Value key = keyRows ? mb.add(mb.add(kv0, warpKey), keyGroup)
                      : mb.add(mb.add(kv0, keyGroup), 16 * np);
  SmallVector<Value> words = dropoutPairWords(dropoutCounter(bhq, query, key));
  for (int64_t m = 0; m < 4; ++m) {
    // Matrix m: rows 8 (m / 2) of the stage, chunk m % 2. Transposed
    // (key-tile), its stage rows are the n-tile's queries and its chunk the
    // fragment rows' key group; as is, the reverse.
    int64_t t = keyRows ? m / 2 : m % 2;
    int64_t r = keyRows ? m % 2 : m / 2;
    SmallVector<Value, 2> pair;
    for (int64_t c = 0; c < 2; ++c)
      pair.push_back(buildPhiloxKeepHalf(b, b.getLoc(), words[m], c, dropP));
    keeps[2 * t + r] = vector::FromElementsOp::create(b, i1x2, pair);
  }
  return keeps;
}

Value BackwardKernel::keptGradient(Value keep, Value dP) {
  // dP of the kept scores scaled by 1 / (1 - p), 0 for the dropped.
  Value scaled =
      arith::MulFOp::create(b, dP, mb.splat2(kb.f32(1.0 / (1.0 - dropP))));
  return arith::SelectOp::create(b, keep, scaled, mb.splat2(kb.f32(0.0)));
}

Value BackwardKernel::keptProbability(Value keep, Value p) {
  // dV's operand: P zeroed where dropped (dV takes 1 / (1 - p) once).
  return arith::SelectOp::create(b, keep, p, mb.splat2(kb.f32(0.0)));
}

double BackwardKernel::keptScale() const {
  return dropP > 0.0 ? 1.0 / (1.0 - dropP) : 1.0;
}
