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
// kernel). With Skv % 8 == 0 a warp's 16 rows by a pair of n-tiles are 32
// calls, one per lane, exchanged through the warp's stage (DropoutStage.h:
// one store, one ldmatrix.x4, transposed for the key-tile kernel). Other Skv
// take one call per score.
//
//===----------------------------------------------------------------------===//

#include "Backward.h"

#include "DropoutStage.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "sinter/Conversion/Philox.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;
using namespace sinter::gpu_kernels::attention;

int64_t BackwardTiles::dropoutStageBytes(bool dropout) {
  return dropout ? kWarps * DropoutStage::kBytesPerWarp : 0;
}

bool BackwardKernel::dropoutStaged() const {
  return drawsThroughStage(Skv, QT);
}

void BackwardKernel::setupDropout(Value seedArg, int64_t byteOffset) {
  seed = seedArg;
  if (dropoutStaged())
    drawStage.emplace(b, kb, smem, mb.add(smemPad, kb.idx(byteOffset)),
                      BackwardTiles::kWarps);
}

Value BackwardKernel::dropoutOffset(Value bhq, Value query, Value key) {
  // The score's place in the forward's [B, Hq, Sq, Skv] stream.
  return mb.add(mb.mul(mb.add(mb.mul(bhq, Sq), query), Skv), key);
}

SmallVector<Value> BackwardKernel::dropoutKeeps(Value bhq, Value q0, Value kv0,
                                                int64_t np) {
  auto i1x2 = VectorType::get({2}, b.getI1Type());
  SmallVector<Value> keeps(4);
  bool keyRows = role == BackwardRole::KeyTiles;
  if (!dropoutStaged()) {
    // One call per score: (nt, r, c) is query/key as the fragments say.
    for (int64_t t = 0; t < 2; ++t)
      for (int64_t r = 0; r < 2; ++r) {
        Value row = mb.add(mb.add(warpKey, quadRow), 8 * r);
        SmallVector<Value, 2> pair;
        for (int64_t c = 0; c < 2; ++c) {
          Value col = mb.add(quadCol, 8 * (2 * np + t) + c);
          Value query = keyRows ? mb.add(q0, col) : mb.add(q0, row);
          Value key = keyRows ? mb.add(kv0, row) : mb.add(kv0, col);
          pair.push_back(buildPhiloxKeepOnGPU(
              b, b.getLoc(),
              arith::IndexCastOp::create(b, b.getI64Type(),
                                         dropoutOffset(bhq, query, key)),
              seed, dropP));
        }
        keeps[2 * t + r] = vector::FromElementsOp::create(b, i1x2, pair);
      }
    return keeps;
  }
  // The lane's call: a stage row is a query, a chunk a group of eight
  // keys. Key-tile: queries q0 + 16 np + row, keys of the warp's 16;
  // query-tile: the warp's 16 queries, keys kv0 + 16 np + group.
  Value stageRow = drawStage->callRow(lane);
  Value keyGroup = mb.mul(drawStage->callChunk(lane), kPhiloxDraws);
  Value query = keyRows
                    ? mb.add(mb.add(q0, stageRow), DropoutStage::kColumns * np)
                    : mb.add(mb.add(q0, warpKey), stageRow);
  Value key = keyRows
                  ? mb.add(mb.add(kv0, warpKey), keyGroup)
                  : mb.add(mb.add(kv0, keyGroup), DropoutStage::kColumns * np);
  Value counter = arith::IndexCastOp::create(
      b, b.getI64Type(),
      arith::DivUIOp::create(b, dropoutOffset(bhq, query, key),
                             kb.idx(kPhiloxDraws)));
  SmallVector<Value, 4> words =
      drawStage->exchange(counter, seed, warp, lane, keyRows);
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
      arith::MulFOp::create(b, dP, mb.splat2(kb.f32(dropoutKeptScale(dropP))));
  return arith::SelectOp::create(b, keep, scaled, mb.splat2(kb.f32(0.0)));
}

Value BackwardKernel::keptProbability(Value keep, Value p) {
  // dV's operand: P zeroed where dropped (dV takes 1 / (1 - p) once).
  return arith::SelectOp::create(b, keep, p, mb.splat2(kb.f32(0.0)));
}

double BackwardKernel::keptScale() const { return dropoutKeptScale(dropP); }
