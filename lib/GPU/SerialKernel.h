//===- SerialKernel.h - The general path's reduction kernels ----*- C++ -*-===//
//
// Part of the Sinter project.
//
// The kernel builder of linalg generics that reduce or gather
// (ReductionKernel.cpp: one thread or one warp per output element) and its
// column form (ColumnReduction.cpp: a block per 32 adjacent output
// elements, its warps over chunks of the reduction, when the reduced
// operands are contiguous along the output's innermost dimension -- a
// bias gradient's sum over the rows). Internal to lib/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_SERIALKERNEL_H
#define SINTER_LIB_GPU_SERIALKERNEL_H

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace sinter::gpu_kernels {

/// f16 and bf16: carried in f32 inside the reduction kernels.
inline bool isNarrowFloat(mlir::Type t) { return t.isF16() || t.isBF16(); }

/// Threads per block of the serial kernel and of the column form's
/// finishing kernel.
inline constexpr int64_t kSerialBlock = 256;

/// Lanes of the warp that reduces one output element of a split reduction.
inline constexpr int64_t kSplitLanes = kWarpSize;

/// A reduction whose points can be split among threads (a warp per output
/// element, or the column form's warps and chunks): every result j is
/// `combiners[j](acc_j, x_j)` where x_j reads no accumulator.
///
///   ^bb0(%in: f32, %acc: f32):
///     %e = math.exp %in : f32
///     %s = arith.addf %e, %acc : f32      <- the combiner, identity -0.0
///     linalg.yield %s : f32
///
/// Or the two results of sinter-online-logsumexp's reduction
/// (kOnlineLogSumExpAttr): a max M and the sum S of exp(a - M), combined
/// as a pair (combineSplit); `combiners` is then empty.
struct SplitReduction {
  llvm::SmallVector<mlir::Operation *> combiners;
  llvm::SmallVector<mlir::TypedAttr> identities;
  /// Which operand of each combiner is the accumulator.
  llvm::SmallVector<unsigned> accOperand;
  bool onlineLogSumExp = false;
};

/// How the column form splits a reduction (ColumnReduction.cpp): `groups`
/// blocks of kColumnLanes x `vector` adjacent output elements (`vector` per
/// lane, read as one 16- or 8-byte vector from each contiguous input)
/// times `chunks` chunks of `chunkLen` reduction points; with more than one
/// chunk the blocks write f32 partial results into `partials`
/// ([results][chunks][elements]) and a second kernel combines them.
/// How the warp-per-element form reads its rows (RowVectorReduction.cpp):
/// the inputs read along the single reduced dimension, contiguous there,
/// as vectors of `width` elements (up to 16 bytes) -- lane l takes vectors
/// l, l + lanes, ... of the row, then the points past the last whole
/// vector one at a time.
struct RowVectors {
  int64_t width = 1;
  llvm::SmallVector<unsigned> inputs;
};

struct ColumnSplit {
  int64_t groups = 1, chunks = 1, chunkLen = 1, vector = 1;
  mlir::Value partials;
};

/// The serial (or warp-per-element, or column) kernel of one generic, built
/// in steps: what the kernel takes (plan), then its body (emit).
class SerialKernel {
public:
  /// `smCount`: the target chip's SMs (the column form sizes its grid by
  /// them).
  /// `sliced`: an input read in its slice's source (SlicedInputs.cpp).
  SerialKernel(mlir::linalg::GenericOp op, mlir::gpu::GPUModuleOp module,
               int64_t smCount, const SlicedInput *sliced = nullptr)
      : op(op), module(module), smCount(smCount), body(op.getRegion().front()),
        b(op->getLoc(), op->getContext()), kb(b), f32(b.getF32Type()) {
    if (sliced)
      this->sliced = *sliced;
  }
  /// Which inits and captured values the kernel reads, its operands and its
  /// launch shape; fails (with a diagnostic) on what a kernel cannot take.
  mlir::LogicalResult plan();
  /// Creates the kernel `name` (and, for a column split into chunks, the
  /// kernel `name`_1 that combines them) and emits its body.
  llvm::SmallVector<KernelLaunch, 1> emit(llvm::StringRef name);

private:
  mlir::LogicalResult planInits();
  mlir::LogicalResult planCaptures();
  void planOperands();
  // The column form (ColumnReduction.cpp).
  bool planColumns();
  /// Output elements per lane: the widest vector (at most 16 bytes) that
  /// every contiguous input can be read in, while the grid keeps enough
  /// blocks; 1 when an input or the row length does not allow one.
  int64_t planColumnVector(unsigned last);
  KernelLaunch emitColumnChunks(llvm::StringRef name);
  /// Each lane's `vector` columns: partials [column][result].
  llvm::SmallVector<llvm::SmallVector<mlir::Value>>
  emitColumnLoop(mlir::Value start, mlir::Value end, unsigned last);
  /// The contiguous inputs' vectors at the current point (their elements
  /// go to emitRegion through `preloaded`).
  llvm::SmallVector<std::pair<unsigned, mlir::Value>>
  emitColumnVectorLoads(unsigned last);
  KernelLaunch emitColumnFinish(llvm::StringRef name);
  // The warp-per-element form's vector reads (RowVectorReduction.cpp).
  /// Whether every input the reduced dimension reaches reads it innermost
  /// and aligned to a common vector width; sets rowVectors.
  bool planRowVectors();
  /// The region at the `width` points of vector `vector` of the row (its
  /// row inputs loaded as one vector each), on the accumulators `acc`.
  llvm::SmallVector<mlir::Value> emitRowVector(mlir::Value vector,
                                               mlir::ValueRange acc);
  // Emission, in order.
  void emitViews();
  void emitCaptures();
  mlir::Value emitThreadIndex();
  void emitCoordinates(mlir::Value element);
  void emitInitialAccumulators(mlir::Value element);
  llvm::SmallVector<mlir::Value> emitRegion(mlir::ValueRange current);
  /// The sliced input's element at the current point, read in the slice's
  /// source; when the kernel makes the slice's copy, its store waits in
  /// `pendingCopies` until emitCopies (after the loop trip's loads: a store
  /// between them would keep the next from issuing before it).
  mlir::Value emitSlicedLoad(mlir::OpOperand *operand);
  void emitCopies();
  /// The linear index, in the slice's source, of the sliced input's element
  /// at the current point.
  mlir::Value slicedSourceIndex(mlir::OpOperand *operand);
  llvm::SmallVector<mlir::Value> emitSerialLoops(unsigned level,
                                                 mlir::ValueRange current);
  llvm::SmallVector<mlir::Value> emitPoint(mlir::Value point,
                                           mlir::ValueRange current);
  /// What a lane does with item `item` of a split reduction: the
  /// accumulators after it.
  using LaneItem = llvm::function_ref<llvm::SmallVector<mlir::Value>(
      mlir::Value item, mlir::ValueRange acc)>;
  /// Items first .. first + count - 1 shared by the lanes: lane l takes
  /// first + l, first + l + lanes, ..., `unroll` of them per loop trip
  /// while all are in range (their loads issue together), then one at a
  /// time; each lane still takes its items in order.
  llvm::SmallVector<mlir::Value> emitLaneLoop(int64_t first, int64_t count,
                                              int64_t unroll,
                                              mlir::ValueRange partial,
                                              LaneItem item);
  /// emitLaneLoop's single steps: items first + start, + lanes, ... below
  /// first + count.
  llvm::SmallVector<mlir::Value> emitLaneSteps(int64_t first, int64_t count,
                                               mlir::Value start,
                                               mlir::ValueRange partial,
                                               LaneItem item);
  llvm::SmallVector<mlir::Value> emitWarpLoop();
  // The warps of a block combining their partials (the column form's
  // lanes, a block per element): per result, shared slots of `warps` x
  // `slots` elements of its carried type.
  void addWarpPartials(int64_t warps, int64_t slots);
  /// Warp w's `partial[j]` into slot (w, `slot`) of result j's buffer
  /// (where `stores` holds; null: every thread), a barrier, then each
  /// thread's slot combined over the warps in warp order from the
  /// identity. Every thread of the block calls it.
  llvm::SmallVector<mlir::Value>
  combineAcrossWarps(llvm::ArrayRef<mlir::Value> partial, mlir::Value warpId,
                     mlir::Value slot, int64_t warps, int64_t slots,
                     mlir::Value stores);
  /// The halves of combineAcrossWarps (the caller places the barrier).
  void storeWarpPartials(llvm::ArrayRef<mlir::Value> partial,
                         mlir::Value warpId, mlir::Value slot, int64_t slots,
                         mlir::Value stores);
  llvm::SmallVector<mlir::Value> sumWarpPartials(mlir::Value slot,
                                                 int64_t warps, int64_t slots);
  void emitStores(llvm::ArrayRef<mlir::Value> results);
  // f16/bf16 values live in f32 inside the kernel.
  mlir::Value promoted(mlir::Value v);
  mlir::Value promotedConstant(mlir::TypedAttr attr);
  // 1-D views of the buffers (rank-0 buffers are read without an index).
  mlir::Value view(mlir::Value memref);
  mlir::Value load(mlir::Value mem, mlir::Value index);
  void store(mlir::Value v, mlir::Value mem, mlir::Value index);

  mlir::linalg::GenericOp op;
  mlir::gpu::GPUModuleOp module;
  int64_t smCount;
  mlir::Block &body;
  mlir::ImplicitLocOpBuilder b;
  KernelBuilder kb;
  mlir::Type f32;
  // The plan.
  llvm::SmallVector<int64_t> ranges;
  llvm::SmallVector<unsigned> reductionDims;
  int64_t trips = 1; // iterations of the reduction loops
  llvm::SmallVector<mlir::OpOperand *> inits;
  llvm::SmallVector<mlir::TypedAttr> initConstants;
  llvm::SmallVector<bool> readsInit;
  llvm::SetVector<mlir::Value> captured;
  llvm::SmallVector<mlir::Value> capturedArgs, inputs;
  llvm::SmallVector<int64_t> inputArg;
  llvm::SmallVector<unsigned> initArg;
  unsigned firstCaptured = 0, firstResult = 0;
  int64_t total = 0, lanes = 1;
  /// How the reduction's points are split (warp-per-element or column
  /// form), when they are.
  std::optional<SplitReduction> split;
  /// The input read in its slice's source; with a copy, the copy is the
  /// launch's last result.
  std::optional<SlicedInput> sliced;
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> pendingCopies;
  std::optional<ColumnSplit> column;
  std::optional<RowVectors> rowVectors;
  /// Inputs whose element at the current point was loaded ahead (the
  /// column form's vectors), by input number: emitRegion reads these.
  llvm::DenseMap<unsigned, mlir::Value> preloaded;
  /// The column form's vector inputs: those read contiguously along the
  /// output's innermost dimension.
  llvm::SmallVector<unsigned> vectorInputs;
  KernelLaunch launch;
  // The kernel under construction.
  mlir::gpu::GPUFuncOp func;
  llvm::SmallVector<mlir::Value> inputViews, initViews, resultViews;
  mlir::IRMapping captures;
  mlir::Value lane;
  llvm::SmallVector<mlir::Value> iv, outIndex, accs;
  /// The warps' partials in shared memory, per result (addWarpPartials).
  llvm::SmallVector<mlir::Value> warpPartials;
};

/// The split of `op`'s reduction when its combiners allow one (at least
/// `minTrips` points): sums and maxes carried in f32, integer sums, maxes,
/// mins and bitwise reductions of 32 or 64 bits (f64 reductions and
/// products stay serial).
std::optional<SplitReduction> matchSplitReduction(mlir::linalg::GenericOp op,
                                                  int64_t trips,
                                                  int64_t minTrips);
/// Partial results `acc` and `x` (one value per result) combined: each
/// result's combiner, or the online logsumexp's pair.
llvm::SmallVector<mlir::Value> combineSplit(mlir::ImplicitLocOpBuilder &b,
                                            const SplitReduction &split,
                                            llvm::ArrayRef<mlir::Value> acc,
                                            llvm::ArrayRef<mlir::Value> x);
/// The lanes' partial results (one value per result) combined across the
/// warp by shuffles (butterfly: every lane ends with the total).
llvm::SmallVector<mlir::Value>
warpTotals(mlir::ImplicitLocOpBuilder &b, const SplitReduction &split,
           llvm::SmallVector<mlir::Value> partial);
/// Row-major linear index of the element of a static `shape` that `map` reads
/// at the iteration point `iv` (any affine map: a convolution reads
/// `d2 * 16 + d5`; constant results add their offset).
mlir::Value linearIndex(KernelBuilder &kb, mlir::AffineMap map,
                        llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<mlir::Value> iv);
/// `combiner` applied to the accumulator `acc` and `x`.
mlir::Value combineWith(mlir::ImplicitLocOpBuilder &b,
                        mlir::Operation *combiner, unsigned accOperand,
                        mlir::Value acc, mlir::Value x);

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_SERIALKERNEL_H
