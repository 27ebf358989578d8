//===- KernelBuilder.h - Helpers to write CUDA kernels in MLIR --*- C++ -*-===//
//
// Part of the Sinter project.
//
// Small building blocks shared by the kernel generators: constants, thread
// and block ids, predicated 16-byte vector loads/stores that convert to and
// from f32 (optionally issued with a cache-policy hint), and reductions
// across a group of lanes (warp shuffles, then shared memory across warps).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_KERNELBUILDER_H
#define SINTER_LIB_GPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>
#include <optional>

namespace mlir {
class IRMapping;
} // namespace mlir

namespace sinter::gpu_kernels {

enum class ReduceKind { Sum, Max };

/// How the memory-bound kernels issue the 16-byte global loads and stores of
/// data they touch once (pass option `cache-hints`). Every form but None is
/// inline PTX; all assemble for sm_80 and later (PTX ISA 7.4).
enum class CacheHint {
  /// Plain vector loads/stores (ld.global.v4 / st.global.v4 from NVPTX).
  None,
  /// Loads ld.global.L1::no_allocate.L2::cache_hint and stores
  /// st.global.L2::cache_hint with an L2 evict_first policy
  /// (createpolicy.fractional.L2::evict_first, once per kernel). The direct
  /// .L2::evict_first qualifier needs 32-byte accesses (sm_100), so 16-byte
  /// accesses take the policy operand.
  EvictFirst,
  /// Loads ld.global.L1::no_allocate; stores unchanged.
  NoAllocate,
  /// Loads ld.global.L2::256B (prefetch size hint); stores unchanged.
  L2Prefetch256B,
  /// Loads ld.global.cs and stores st.global.cs (CUDA's __ldcs/__stcs: cache
  /// streaming, evict first at every level).
  Streaming,
};

/// "none", "evict-first", "no-allocate", "l2-256b", "streaming"; nullopt for
/// anything else.
std::optional<CacheHint> parseCacheHint(llvm::StringRef text);
/// The accepted spellings, for messages.
constexpr const char *kCacheHintValues =
    "none, evict-first, no-allocate, l2-256b, streaming";

/// Creates the kernel `name` in `module` with the given arguments and block
/// size, and positions `b` at the start of its body (before gpu.return).
mlir::gpu::GPUFuncOp createKernel(mlir::ImplicitLocOpBuilder &b,
                                  mlir::gpu::GPUModuleOp module,
                                  llvm::StringRef name,
                                  mlir::TypeRange argTypes, int64_t blockSize);

/// A scalar operand as a kernel takes it: a value read on the host from a
/// 0-d tensor that a kernel computes (torch-mlir's AdamW step counter) is
/// passed as that tensor's buffer instead, since an artifact runs no host
/// code; scalarInKernel reads it back inside the kernel.
mlir::Value kernelScalarOperand(mlir::Value scalar);
/// The scalar that kernel argument `arg` carries: the argument itself, or
/// the element of a 0-d buffer (kernelScalarOperand).
mlir::Value scalarInKernel(mlir::ImplicitLocOpBuilder &b, mlir::Value arg);

/// Clones a region op into a kernel, rewriting the ops the NVVM lowering
/// has no pattern for into ones it has (math.absi as a compare and select).
mlir::Operation *cloneForDevice(mlir::OpBuilder &b, mlir::Operation &op,
                                mlir::IRMapping &mapping);

/// The constants an elementwise body (a fused chain's, a generic's) reads
/// from above its region -- the greedy rewriter hoists them to the
/// function's entry -- each cloned at `b`'s insertion point, as (value
/// above, value in the kernel) pairs to seed a per-element IRMapping.
llvm::SmallVector<std::pair<mlir::Value, mlir::Value>>
cloneConstantsAbove(mlir::OpBuilder &b, mlir::Block &body);

/// Clones one arith/math op of an elementwise body for one element, as the
/// elementwise kernels evaluate it: with `fastTanh` (every result of the
/// chain bf16: the rounding dominates), an f32 math.tanh becomes the
/// hardware approximation (tanh.approx.f32); anything else cloneForDevice.
void cloneElementOp(mlir::OpBuilder &b, mlir::Operation &op,
                    mlir::IRMapping &mapping, bool fastTanh);

/// Philox4x32-10's words (Philox.h) with the rounds' products as
/// llvm.nvvm.mulhi.ui and an i32 multiply, which ptxas pairs into one wide
/// multiply; the generic i64 form lets LLVM widen the rounds' xors, or the
/// whole generator, to 64 bits.
std::array<mlir::Value, 4> buildPhiloxOnGPU(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::Value counterI64,
                                            mlir::Value seedI64);
/// `philoxKeep(offset, seed, p)` (one call per element) with the same
/// products.
mlir::Value buildPhiloxKeepOnGPU(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value offsetI64, mlir::Value seedI64,
                                 double p);

class KernelBuilder {
public:
  explicit KernelBuilder(mlir::ImplicitLocOpBuilder &b,
                         CacheHint hint = CacheHint::None)
      : b(b), hint(hint) {}

  mlir::ImplicitLocOpBuilder &builder() { return b; }
  mlir::Value idx(int64_t v);
  mlir::Value i32(int32_t v);
  mlir::Value f32(double v);
  mlir::Value threadId();
  mlir::Value blockId();
  /// The number of blocks of the launch (gridDim.x).
  mlir::Value gridDim();

  /// Views a statically shaped memref as 1-D.
  mlir::Value flatten(mlir::Value memref);

  /// Loads `width` consecutive elements of the 1-D `memref` at `index` as a
  /// vector<width x f32> (converting from the element type); yields `fill`
  /// splatted when `pred` is false (pred may be null: unconditional). The
  /// load is aligned to its size when `aligned`.
  mlir::Value loadF32(mlir::Value memref, mlir::Value index, int64_t width,
                      mlir::Value pred, double fill = 0.0, bool aligned = true);
  /// Converts the vector<width x f32> `value` to the element type of the 1-D
  /// `memref` and stores it at `index` when `pred` holds (pred may be null).
  void storeF32(mlir::Value memref, mlir::Value index, mlir::Value value,
                mlir::Value pred, bool aligned = true);
  /// As loadF32/storeF32 (aligned, fill 0), for data the kernel reads or
  /// writes exactly once (a row of a norm, an optimizer's state): 16-byte
  /// vectors of an identity-layout memref go through the builder's cache
  /// hint; other accesses, and CacheHint::None, are plain loadF32/storeF32.
  /// The address is the memref's aligned pointer plus the byte offset, so
  /// the access must be 16-byte aligned as the plain aligned path assumes.
  mlir::Value streamLoadF32(mlir::Value memref, mlir::Value index,
                            int64_t width, mlir::Value pred);
  void streamStoreF32(mlir::Value memref, mlir::Value index, mlir::Value value,
                      mlir::Value pred);
  /// Loads of `width` elements of each `memrefs[i]` at `indices[i]` (aligned)
  /// under one predicate (one branch for all of them; null: unconditional),
  /// zeros where it is false; `stream` as streamLoadF32 (the cache hint),
  /// else as loadF32. With `toF32` the vectors are f32; otherwise they keep
  /// the element type (convert them later with extF32), which halves the
  /// registers of bf16/f16 data carried across a loop.
  llvm::SmallVector<mlir::Value> loadAll(mlir::ArrayRef<mlir::Value> memrefs,
                                         mlir::ArrayRef<mlir::Value> indices,
                                         int64_t width, mlir::Value pred,
                                         bool toF32, bool stream);
  /// The vector `vec` (f16, bf16 or f32 elements) as f32.
  mlir::Value extF32(mlir::Value vec);

  /// Reduces `value` (f32) across the `groupSize` consecutive lanes (a power
  /// of two) that share `groupIndex`; every lane gets the result. Groups of
  /// more than 32 lanes go through `smem`, a workgroup buffer with at least
  /// (blockSize / 32) f32 slots that no other reduction uses. Every thread of
  /// the block must call this (it contains shuffles and barriers).
  mlir::Value groupReduce(mlir::Value value, ReduceKind kind, int64_t groupSize,
                          mlir::Value lane, mlir::Value groupIndex,
                          mlir::Value smem);
  /// groupReduce of several independent values at once, value i through
  /// buffer `smems[i]`: one barrier for all of them.
  llvm::SmallVector<mlir::Value>
  groupReduceAll(mlir::ArrayRef<mlir::Value> values, ReduceKind kind,
                 int64_t groupSize, mlir::Value lane, mlir::Value groupIndex,
                 mlir::ArrayRef<mlir::Value> smems);

  mlir::Value combine(ReduceKind kind, mlir::Value a, mlir::Value b);

  /// Inline PTX `text` (side effects) with LLVM constraints `cons` on
  /// `operands`; results of `types` (none, one, or a struct unpacked here).
  llvm::SmallVector<mlir::Value> callAsm(llvm::StringRef text,
                                         llvm::StringRef cons,
                                         mlir::ArrayRef<mlir::Value> operands,
                                         mlir::ArrayRef<mlir::Type> types);
  /// The 32-bit shared-window address (i32) of byte `byteOffset` of the
  /// workgroup memref `memref` (its aligned pointer plus the offset).
  mlir::Value sharedAddress(mlir::Value memref, mlir::Value byteOffset);

  /// mbarriers (sm_80+ except where noted; `bar` is an i32 shared address
  /// of an 8-byte aligned word, `parity`, `count` and `bytes` i32 values).
  /// Inline PTX: upstream's ops take 64-bit shared pointers
  /// (KernelBuilder.cpp says what that costs).
  /// mbarrier.init with `count` expected arrivals.
  void mbarrierInit(mlir::Value bar, mlir::Value count);
  /// fence.mbarrier_init.release.cluster: makes the inits visible to the
  /// other threads and to the async proxy (sm_90; then a barrier).
  void mbarrierInitFence();
  /// Spins on mbarrier.try_wait.parity until the phase of `parity` is done.
  void mbarrierWait(mlir::Value bar, mlir::Value parity);
  /// One arrival (mbarrier.arrive).
  void mbarrierArrive(mlir::Value bar);
  /// cp.async.mbarrier.arrive.noinc: an arrival once this thread's
  /// cp.async copies have landed.
  void mbarrierCopyArrive(mlir::Value bar);
  /// One arrival that also expects `bytes` more bytes of transactions
  /// (mbarrier.arrive.expect_tx, sm_90).
  void mbarrierArriveExpectTx(mlir::Value bar, mlir::Value bytes);

  /// cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32: adds
  /// `bytes` (i32, a multiple of 16) of f32 at the i32 shared address `src`
  /// (16-byte aligned) into the 1-D f32 global memref `dst` from element
  /// `index` on, as a bulk async-group operation of this thread (sm_90; then
  /// nvvm.cp.async.bulk.commit_group and wait_group).
  void bulkReduceAddF32(mlir::Value dst, mlir::Value index, mlir::Value src,
                        mlir::Value bytes);
  /// fence.proxy.async.shared::cta: orders this thread's generic-proxy
  /// shared-memory accesses before later async-proxy ones (TMA, wgmma).
  void fenceProxyAsync();
  /// Reduces the lanes of a vector<N x f32> to an f32.
  mlir::Value reduceVector(ReduceKind kind, mlir::Value vec);
  mlir::Value splat(mlir::Value scalar, int64_t width);

private:
  mlir::Value load(mlir::Value memref, mlir::Value index, int64_t width,
                   mlir::Value pred, double fill, bool aligned, bool stream,
                   bool toF32 = true);
  void store(mlir::Value memref, mlir::Value index, mlir::Value value,
             mlir::Value pred, bool aligned, bool stream);
  /// Whether a `bytes`-byte access to `memref` takes the hinted path.
  bool hinted(mlir::Value memref, int64_t bytes, bool aligned, bool isStore);
  /// The 64-bit L2 evict_first policy of the kernel, created once at the
  /// start of the enclosing gpu.func.
  mlir::Value evictFirstPolicy();

  mlir::ImplicitLocOpBuilder &b;
  CacheHint hint;
  mlir::Value policy;
};

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_KERNELBUILDER_H
