//===- Kernels.h - CUDA kernel generators for sinter ops --------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_KERNELS_H
#define SINTER_LIB_GPU_KERNELS_H

#include "KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/LLVM.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/GPU/Defaults.h"

#include <optional>
#include <string>

namespace mlir::linalg {
class FillOp;
class GenericOp;
} // namespace mlir::linalg

namespace sinter::gpu_kernels {

/// A generated kernel and how to launch it: the kernel's arguments are the
/// buffers (or scalars) of `operands`, then fresh buffers for `results`.
/// `inPlace` lists results that the kernel writes into the buffer of one of
/// its operands (by kernel argument index) instead of a fresh buffer.
struct KernelLaunch {
  mlir::gpu::GPUFuncOp kernel;
  int64_t grid = 1;
  int64_t block = 1;
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Value> results;
  llvm::SmallVector<std::pair<mlir::Value, unsigned>> inPlace;
  /// Bytes of dynamic shared memory (gpu.dynamic_shared_memory).
  int64_t sharedMemory = 0;
  /// When set, a library call (a cuBLASLt GEMM) that computes the same
  /// results and that the runtime prefers, with this kernel as its fallback;
  /// it travels on the gpu.launch_func as kLibraryCallAttrName.
  mlir::DictionaryAttr libraryCall;
  /// CUDA tensor maps (TMA descriptors) the kernel takes after the buffers,
  /// one 128-byte by-value grid-constant parameter each: the tensor map of
  /// kernel argument `argument` (a dense buffer) with tiles of `box`
  /// elements (the buffer's rank, outermost first), 128-byte swizzle,
  /// 256-byte L2 promotion, out-of-bound elements read as zero.
  struct TensorMap {
    unsigned argument;
    llvm::SmallVector<int64_t, 4> box;
  };
  llvm::SmallVector<TensorMap, 0> tensorMaps;
  /// Persistent kernels, whose blocks loop over `persistentWork` items
  /// blockIdx.x + i * gridDim.x (correct for any grid): the grid is sized
  /// for `persistentCtasPerSM` resident blocks per SM, and the runtime
  /// sizes it again for the device it runs on (kPersistentAttrName).
  int64_t persistentWork = 0;
  int64_t persistentCtasPerSM = 0;
};

/// The discardable attribute of a kernel (gpu.func, then llvm.func) that
/// lists which of its parameters are tensor maps (KernelLaunch::tensorMaps);
/// sinter-nvvm-tensor-map-params makes them by-value grid constants.
constexpr llvm::StringLiteral kTensorMapParamsAttrName =
    "sinter.tensor_map_params";

/// The unit attribute of an elementwise kernel (a sinter.fused chain, an
/// elementwise generic, a slice's copy: no shared memory, a few vectors a
/// thread), which sinter-combine-launches may run with others in one
/// launch.
constexpr llvm::StringLiteral kElementwiseKernelAttrName =
    "sinter.elementwise_kernel";

/// The attribute of a kernel sinter-combine-launches made: the names of
/// the kernels whose bodies it runs, in block order (one per launch it
/// replaced).
constexpr llvm::StringLiteral kCombinedKernelsAttrName =
    "sinter.combined_kernels";

/// The discardable attribute sinter-online-logsumexp puts on the reduction
/// it makes (results: the running max, the sum of exponentials relative to
/// it): the reduction kernel splits it with the pair's combination
/// (SerialKernel.h). Without it, it runs serially -- correct, slower.
constexpr llvm::StringLiteral kOnlineLogSumExpAttr = "sinter.online_logsumexp";

/// The online logsumexp's arithmetic, one definition for its per-point
/// update (OnlineLogSumExp.cpp) and its combination of partial results
/// (SplitReduction.cpp): the finite reference of a running max m (-inf
/// counts as 0, so that an empty sum rescales to nothing), and exp(x) as
/// exp2(x log2 e) (ex2.approx on the GPU).
mlir::Value finiteMaxReference(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value m);
mlir::Value expAsExp2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Most tensors one AdamW launch updates (4 pointers each must fit the
/// kernel parameter space).
constexpr unsigned kTensorsPerLaunch = 32;

/// A launch of `grid` x `block` threads whose kernel takes all of `op`'s
/// operands and then a fresh buffer per result (the kernel is set later).
KernelLaunch launchFor(mlir::Operation *op, int64_t grid, int64_t block);

/// Kernel argument types of `launch`: tensors become identity-layout
/// memrefs, scalars stay scalars.
llvm::SmallVector<mlir::Type> bufferTypes(const KernelLaunch &launch);

/// Tile configuration of the tensor-core attention kernel, or the CUDA-core
/// kernel. Text form: "warps=4,mtiles=2,bn=64" or "cuda-cores".
struct AttentionConfig {
  int64_t warps = 4;   // warps per block
  int64_t mTiles = 1;  // 16-row m-tiles per warp (rows per block: 16*mt*w)
  int64_t blockN = 64; // keys per K/V tile
  bool tensorCores = true;
  bool wgmma = false; // sm_90a warpgroup MMA instead of mma.sync
  // wgmma only: two K/V stages, S of tile t+1 overlapping softmax and P V.
  bool pipelined = false;
  // pipe only: mbarriers instead of one block-wide barrier per tile.
  bool mbarriers = false;
  // mbar only: warpgroups take turns issuing their GEMMs (ping-pong).
  bool pingPong = false;
  // mbar only: warp specialization. A producer warpgroup (beyond `warps`)
  // loads Q, K and V with the Tensor Memory Accelerator (tensor maps,
  // mbarrier transaction counts) and gives its registers to the consumer
  // warpgroups (setmaxnreg), which only compute.
  bool warpSpecialized = false;
  // ws only: persistent blocks (one per SM) looping over the work items.
  bool persistent = false;
  // ws without persist: O leaves through shared memory (the Q tile) and a
  // TMA store per 64-column panel instead of 4-byte stores from registers.
  bool tmaStore = false;
  int64_t maxRegs = 0; // registers per thread cap (0: ptxas decides)
  std::string str() const;
};

/// Tile parameters of the generated kernels (pass options).
struct Tuning {
  int64_t rowVectors = ::sinter::cuda_defaults::kRowVectors;
  int64_t fusedVectors = ::sinter::cuda_defaults::kFusedVectors;
  int64_t rowBlock = ::sinter::cuda_defaults::kRowBlock;
  int64_t smVersion = 90;   // target chip, sm_<smVersion>
  bool archSpecific = true; // the chip's "a" features (sm_90a: wgmma)
  /// Overrides the attention table when set (pass option attention-config).
  std::optional<AttentionConfig> attention;
  // How norms, softmax and AdamW issue the 16-byte loads/stores of the data
  // they touch once (the rows, the optimizer state); weights, biases and
  // masks keep plain loads.
  CacheHint cacheHints = CacheHint::None;
  // Persistent variants of the memory-bound kernels (pass options
  // row-persistent / adamw-persistent; bench/NOTES.md): 0 = off (one block
  // per row group / AdamW's 1024-block grid), 1 = a grid sized to the chip
  // whose blocks loop over the work (norm weight and bias loaded once),
  // 2 = as 1 and the next row / chunk loaded before this one is finished;
  // rows only: 3 = as 2 but the weight and bias reloaded per row (L1 hits)
  // instead of held in registers.
  int64_t rowPersistent = ::sinter::cuda_defaults::kRowPersistent;
  int64_t adamwPersistent = ::sinter::cuda_defaults::kAdamWPersistent;
  int64_t persistentCtas = ::sinter::cuda_defaults::kPersistentCtas;
  int64_t smCount = ::sinter::cuda_defaults::kSmCount;
  /// Plain matmuls also get a cuBLASLt library call (pass option matmul).
  bool matmulLibraryCall = true;
  /// The attention backward's key-tile kernel on wgmma where the chip has
  /// it (sm_90a), else mma.sync (pass option attention-backward).
  bool attentionBackwardWgmma = true;
};

/// How a row kernel maps rows of `cols` elements onto threads.
struct RowConfig {
  int64_t rows, cols;
  int64_t vec;           // elements per vector access (16 bytes when possible)
  int64_t nvec;          // vectors per row
  int64_t threadsPerRow; // power of two
  int64_t perThread;     // vectors held in registers by each thread
  int64_t rowsPerBlock;
  int64_t block, grid;
  int64_t groups;         // row groups (blocks' worth of rows)
  int64_t persistent = 0; // Tuning::rowPersistent
  bool hoist = false;     // weight/bias loaded once per thread (1, 2)
  bool prefetch = false;  // next row group loaded a row ahead (2, 3)
  int64_t ctasPerSM = 0;  // persistent: the kernel's nvvm.minctasm
};

/// Blocks of `block` threads that a persistent kernel expects on each SM.
int64_t persistentCtasPerSM(const Tuning &tuning, int64_t block);
/// The grid of a persistent kernel over `work` equal items: at most one
/// block per slot (SMs x blocks per SM), and as few blocks as give each the
/// same number of items, ceil(work / slots) (e.g. 8192 items over 528 slots:
/// 16 each on 512 blocks, rather than 16 on some and 15 on others).
int64_t persistentGrid(const Tuning &tuning, int64_t work, int64_t block);
/// SMs of the target chip: Tuning::smCount, or the chip's usual count.
int64_t smCountOf(const Tuning &tuning);
mlir::FailureOr<RowConfig> chooseRowConfig(mlir::Operation *op, int64_t rows,
                                           int64_t cols, mlir::Type elt,
                                           const Tuning &tuning);

/// sinter.layer_norm / sinter.rms_norm; with `prologue` (matchNormPrologue)
/// the kernel computes its input from the chain's inputs and also writes
/// the chain's result when others read it.
mlir::FailureOr<KernelLaunch> buildNormKernel(mlir::Operation *op,
                                              mlir::gpu::GPUModuleOp module,
                                              llvm::StringRef name,
                                              const Tuning &tuning,
                                              FusedOp prologue = {});
/// The elementwise chain a norm `norm` computes as its prologue
/// (NormPrologue.cpp), or null: a sinter.fused of arith/math ops whose one
/// result is the norm's input, each of its inputs a tensor of that shape
/// read through the identity, every other reader of its result after the
/// norm, and a non-persistent row kernel (tuning.rowPersistent 0).
FusedOp matchNormPrologue(mlir::Operation *norm, const Tuning &tuning);
/// The elementwise chain that is the only reader of a norm backward's dx,
/// which its row kernel computes where it would store dx (NormPrologue.cpp),
/// or null.
FusedOp matchNormBackwardEpilogue(mlir::Operation *normBackward);
/// sinter.layer_norm_backward / sinter.rms_norm_backward: a persistent row
/// kernel (dx, and partial column sums into a scratch tensor it creates
/// before `op`) and, with dweight or dbias, a column kernel adding them.
/// With `epilogue` (matchNormBackwardEpilogue) the row kernel writes the
/// chain's results instead of dx.
/// With `columnSum` (matchEpilogueColumnSum) the row kernel also adds up
/// that result of the epilogue per column, and the column kernel writes
/// the sum as `columnSum.sum`'s result.
struct EpilogueColumnSum {
  mlir::Operation *sum = nullptr; // a linalg.generic
  unsigned result = 0;            // which result of the epilogue it sums
};
mlir::FailureOr<llvm::SmallVector<KernelLaunch, 1>>
buildNormBackwardKernels(mlir::Operation *op, mlir::gpu::GPUModuleOp module,
                         llvm::StringRef name, const Tuning &tuning,
                         FusedOp epilogue = {},
                         std::optional<EpilogueColumnSum> columnSum = {});
/// A sum over the rows of a result of `normBackward`'s `epilogue` (a
/// linear layer's bias gradient: the residual stream's gradient summed
/// over the tokens), which the norm backward's kernels can add up beside
/// dweight (NormPrologue.cpp), if there is one: its columns are the
/// normalized elements of a row.
std::optional<EpilogueColumnSum>
matchEpilogueColumnSum(mlir::Operation *normBackward, FusedOp epilogue);
/// Whether the tensor-core attention backward (Attention/Backward.h) runs
/// `op` on sm_`smVersion`; `why` says why not (the op then takes its
/// reference form, TensorOpsToLinalg).
mlir::LogicalResult checkAttentionBackwardKernel(AttentionBackwardOp op,
                                                 int64_t smVersion,
                                                 std::string &why);
struct AttentionHeads;
/// Its three launches: prepare (delta, a zeroed f32 dQ accumulator, both
/// scratch tensors created before `op`), the main kernel (on wgmma when
/// the chip has it and `tuning` asks for it), finish (dQ); dO, Q, K and V
/// are read where `heads` says (planAttentionBackwardHeads).
mlir::FailureOr<llvm::SmallVector<KernelLaunch, 1>>
buildAttentionBackwardKernels(AttentionBackwardOp op,
                              mlir::gpu::GPUModuleOp module,
                              llvm::StringRef name, const Tuning &tuning,
                              const AttentionHeads &heads);
mlir::FailureOr<KernelLaunch> buildSoftmaxKernel(SoftmaxOp op,
                                                 mlir::gpu::GPUModuleOp module,
                                                 llvm::StringRef name,
                                                 const Tuning &tuning);
mlir::FailureOr<KernelLaunch>
buildAttentionKernel(AttentionOp op, mlir::gpu::GPUModuleOp module,
                     llvm::StringRef name);
/// The shape of an attention op, as every attention kernel reads it: Q
/// [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv] of `elt`, and
/// the dropout probability.
struct AttentionShape {
  explicit AttentionShape(AttentionOp op);
  /// The forward's shape, seen from its backward (dropP: the forward's).
  explicit AttentionShape(AttentionBackwardOp op);
  AttentionShape(mlir::Value query, mlir::Value key, mlir::Value value,
                 double dropoutP);
  int64_t B, Hq, Sq, D, Hkv, Skv, Dv;
  mlir::Type elt;
  double dropP;
};

/// Where an attention kernel finds the heads of one of Q, K, V or puts
/// those of O: the op's own dense [B, H, S, D] tensor, or (`seqMajor`) a
/// [B, S, bufferHeads, D] tensor at heads [headOffset, headOffset + H) --
/// the projection a frontend splits into heads and transposes, read or
/// written in place without the transpose (Attention/InPlaceHeads.cpp).
struct HeadLayout {
  /// The tensor the kernel reads (Q, K, V) or writes (O) instead of the
  /// op's own; null for the op's own.
  mlir::Value tensor;
  bool seqMajor = false;
  int64_t bufferHeads = 0;
  int64_t headOffset = 0;
  /// Elements between consecutive sequence rows of one head.
  int64_t rowStride(int64_t headDim) const {
    return seqMajor ? bufferHeads * headDim : headDim;
  }
};

/// The layouts of an attention kernel's Q, K, V and O (the backward's: Q,
/// K, V and dO), and the transposes that reading and writing heads in place
/// makes dead.
struct AttentionHeads {
  HeadLayout q, k, v, out;
  /// The backward's gradient of O (read) and of Q, K and V (written).
  HeadLayout gradOut, gradQuery, gradKey, gradValue;
  /// The transpose of O whose result the kernel writes (erased with the op).
  mlir::Operation *outTranspose = nullptr;
  /// The backward's: the concatenation of dQ, dK and dV that its kernels
  /// write in its stead, then the reshapes and transposes between them and
  /// it (erased with the op, in this order).
  llvm::SmallVector<mlir::Operation *, 8> writtenAround;
  /// The transposes the kernel reads around, and the numbers of the op's
  /// operands it reads in place.
  llvm::SmallVector<mlir::Operation *, 4> readTransposes;
  llvm::SmallVector<unsigned, 4> operandsReadInPlace;
  /// Whether the backward writes dQ, dK and dV into one joined tensor
  /// (all three in place, or none).
  bool joinsGradients() const { return gradQuery.seqMajor; }
  bool any() const {
    return q.seqMajor || k.seqMajor || v.seqMajor || out.seqMajor ||
           gradOut.seqMajor || joinsGradients();
  }
};
/// Which of `op`'s operands and result the tensor-core kernel reads and
/// writes in place (dense layouts where it cannot; Attention/InPlaceHeads.cpp).
AttentionHeads planAttentionHeads(AttentionOp op);
/// Which of the backward's dO, Q, K and V its tensor-core kernels read in
/// place, and whether they write dQ, dK and dV into the concatenation that
/// joins them (dense layouts where they cannot).
AttentionHeads planAttentionBackwardHeads(AttentionBackwardOp op);

/// The buffers of an attention kernel's arguments (q, k, v[, mask][, seed],
/// out[, lse]), flattened to 1-D; absent ones are null.
struct AttentionArgs {
  mlir::Value q, k, v, mask, seed, out, lse;
};
AttentionArgs attentionArguments(KernelBuilder &kb, mlir::gpu::GPUFuncOp func,
                                 AttentionOp op);
/// The launch of an attention kernel over `grid` blocks of `block` threads:
/// the op's operands and results, a seed read from a 0-d tensor (torch-mlir's
/// generator state) passed as that tensor (kernelScalarOperand), which
/// attentionArguments reads back.
KernelLaunch attentionLaunchFor(AttentionOp op, int64_t grid, int64_t block);
/// Element strides of the additive mask broadcast (numpy rules) to
/// [B, Hq, Sq, Skv]: 0 along broadcast dimensions.
llvm::SmallVector<int64_t> attentionMaskStrides(AttentionOp op);
/// The same for a mask operand `mask` (all zeros when null).
llvm::SmallVector<int64_t> attentionMaskStrides(mlir::Value mask);

/// Parses an attention-config string (see AttentionConfig::str()); on
/// failure `why`, when given, says which rule the text breaks.
mlir::FailureOr<AttentionConfig>
parseAttentionConfig(llvm::StringRef text, std::string *why = nullptr);
/// The shipped table's configuration for `op` on sm_`smVersion` (see
/// Attention/AttentionConfigs.inc, written by bench/autotune_attention.py).
AttentionConfig selectAttentionConfig(AttentionOp op, int64_t smVersion,
                                      bool archSpecific);
/// Whether the tensor-core kernel can run `op` at all on sm_`smVersion`
/// (operand types, head dims, scale); `why` says why not.
mlir::LogicalResult checkMMAAttentionOp(AttentionOp op, int64_t smVersion,
                                        std::string &why);
/// Whether it runs `op` with the tiles of `cfg` (registers, shared memory).
mlir::LogicalResult checkMMAAttention(AttentionOp op, int64_t smVersion,
                                      bool archSpecific,
                                      const AttentionConfig &cfg,
                                      std::string &why);
/// FlashAttention-2 on tensor cores (mma.sync m16n8k16, sm_80+), reading
/// and writing the heads where `heads` says.
mlir::FailureOr<KernelLaunch>
buildAttentionMMAKernel(AttentionOp op, mlir::gpu::GPUModuleOp module,
                        llvm::StringRef name, const AttentionConfig &cfg,
                        int64_t smCount, const AttentionHeads &heads = {});
mlir::FailureOr<llvm::SmallVector<KernelLaunch, 1>>
buildAdamWKernels(AdamWOp op, mlir::gpu::GPUModuleOp module,
                  llvm::StringRef baseName, const Tuning &tuning);
/// An epilogue a matmul takes over from the elementwise chain that is its
/// only use (MatmulEpilogue.cpp): `result` = round(A x B + `bias`[n]),
/// `bias` a vector over the columns of `result`'s element type (added in
/// f32), the rounding to `result`'s type; without `bias` (null), only the
/// rounding.
struct MatmulEpilogue {
  mlir::Value bias;
  mlir::Value result;
};
/// The epilogue `op`'s only use computes, if it is one.
std::optional<MatmulEpilogue> matchMatmulEpilogue(mlir::linalg::LinalgOp op);
/// An activation a matmul applies after its epilogue, taken over from the
/// chain that reads the epilogue's result (GeluEpilogue.cpp):
///   GeluTanh      `result` = gelu_tanh(epilogue), `aux` (when something
///                 else reads the epilogue's result) that result, stored too;
///   GeluTanhGrad  `result` = epilogue * gelu_tanh'(`aux`), the epilogue a
///                 rounding alone (no bias), `aux` read.
/// `chain`'s body, whose input `productArg` reads the epilogue's result, is
/// what the fallback kernel evaluates.
struct MatmulActivation {
  enum class Kind { GeluTanh, GeluTanhGrad };
  Kind kind = Kind::GeluTanh;
  FusedOp chain;
  mlir::Value result;
  unsigned productArg = 0;
  mlir::Value aux;
};
/// The activation that the one chain reading `e`'s result computes, if it
/// is one the matmul takes.
std::optional<MatmulActivation> matchMatmulActivation(const MatmulEpilogue &e);
/// Whether `chain`'s two inputs are read as a 2-D identity and a vector
/// over its columns (a bias).
bool readsRowsAndBias(FusedOp chain);
/// A chain that computes a matmul's bias (or rounding) and a GELU of it
/// becomes two, the epilogue's and the activation's (GeluEpilogue.cpp). Run
/// before roundBiasOnce.
void splitMatmulActivationChains(mlir::ModuleOp module);
/// Whether `chain` is the activation a matmul takes (not a kernel, nor a
/// producer another kernel may compute).
bool isMatmulActivation(mlir::Operation *chain);
/// The name of an activation in the manifest's `activation` key.
llvm::StringRef activationName(MatmulActivation::Kind kind);
/// Two-input chains whose second input is the exact f32 widening of a 1-D
/// narrow vector (a bias) read the narrow vector and widen it in their body;
/// the widening chain goes when nothing else reads it. Run before
/// outlining: it gives matchMatmulEpilogue biases of cuBLASLt's type.
void foldBiasWidenings(mlir::ModuleOp module);
/// Bias chains of a matmul that round its product before adding a narrow
/// bias in the narrow type (torch-mlir's lowering of a bf16 addmm:
/// round(round(A x B) + bias)) add the bias in f32 and round once, as
/// torch's CUDA addmm does (cuBLASLt's bias epilogue): round(A x B + bias).
/// Not exact -- the second rounding goes, so an element may differ by one
/// unit in the last place of the narrow type, towards the exact value. Run
/// before splitMatmulRoundings, which would otherwise take the rounding
/// alone.
void roundBiasOnce(mlir::ModuleOp module);
/// An f32 matmul whose every use is a chain or generic that only rounds it
/// to one narrow type (its block argument read by arith.truncf alone:
/// torch-mlir's bf16 matmuls accumulate in f32 and round before anything
/// else, and reductions that fused that rounding do too) gets a
/// chain of its own that rounds it, which matchMatmulEpilogue gives the
/// matmul (cuBLASLt writes D in the narrow type); the chains read the
/// rounded tensor. Exact: the same one rounding per element. Run before
/// outlining.
void splitMatmulRoundings(mlir::ModuleOp module);

/// Merges the kernels of `module`'s gpu.modules whose functions are
/// identical but for their names (a model's repeated layers) into the
/// first, relaunching it (DedupKernels.cpp); returns how many went.
unsigned dedupKernels(mlir::ModuleOp module);

/// Whether `t` copies its one input to its identity-mapped init through
/// `permutation` (a generalized linalg.transpose with a permutation that is
/// its own inverse: its input map is (d0, ...) -> (d_p[0], ...)), with all
/// loops parallel and a body that yields the input element.
bool isTransposeCopy(mlir::linalg::GenericOp t,
                     llvm::ArrayRef<unsigned> permutation);

/// The operands a matmul kernel reads: A and B, or (transA, transB) the
/// tensors whose transposes of the last two dimensions they are, read in
/// place (InPlaceOperands.cpp): torch-mlir's nn.Linear is x @ transpose(W),
/// and its weight gradient transpose(dY) @ x.
struct MatmulOperands {
  mlir::Value a, b;
  bool transA = false, transB = false;
  /// The transposes read around.
  llvm::SmallVector<mlir::Operation *, 2> readTransposes;
};
MatmulOperands planMatmulOperands(mlir::linalg::LinalgOp op);

/// Unfused linalg.matmul / linalg.batch_matmul on CUDA cores (f32
/// accumulation, 64x64 tiles through shared memory). With `libraryCall`, a
/// matmul whose types cuBLASLt takes also gets a cublas_gemm library call
/// that the runtime runs instead of the kernel when it can. With
/// `epilogue`, both compute and store its result instead of the matmul's.
/// `operands` (default: the op's own) says which tensors both read.
mlir::FailureOr<KernelLaunch>
buildMatmulKernel(mlir::linalg::LinalgOp op, mlir::gpu::GPUModuleOp module,
                  llvm::StringRef name, bool libraryCall = false,
                  const MatmulEpilogue *epilogue = nullptr,
                  const MatmulOperands *operands = nullptr,
                  const MatmulActivation *activation = nullptr);

/// Any linalg.generic on static tensors that the elementwise and matmul
/// kernels do not run -- reductions, contractions with transposed or
/// broadcast operands, writes through permuted output maps: one thread per
/// output element runs the reduction loops serially and evaluates the
/// region per point (f16/bf16 arithmetic in f32, one rounding per result).
/// Operands must be read through projected permutations, and output maps
/// must index exactly the parallel loops. A reduction whose operands are
/// contiguous along the output's innermost dimension (a column sum) takes
/// the column form instead, its grid sized for `smCount` SMs: two
/// launches when its rows are split into chunks (SerialKernel.h).
mlir::FailureOr<llvm::SmallVector<KernelLaunch, 1>>
buildSerialKernel(mlir::linalg::GenericOp op, mlir::gpu::GPUModuleOp module,
                  llvm::StringRef name, int64_t smCount,
                  const struct SlicedInput *sliced = nullptr);
/// An input of a reduction that its kernel reads in the tensor it was
/// sliced from (SlicedInputs.cpp): `input` is `slice`'s result, read at
/// the slice's offsets in its source; with `copy`, the same kernel also
/// writes the slice (every element once, as it reads it) for the slice's
/// other users, and no copy kernel runs.
struct SlicedInput {
  unsigned input = 0;
  mlir::tensor::ExtractSliceOp slice;
  bool copy = false;
};
/// The sliced input `op`'s kernel reads in place, if it has one.
std::optional<SlicedInput> planSlicedInput(mlir::linalg::GenericOp op);
/// Checks that the serial kernel can run `op` (a generic, or a named op
/// before it is generalized, so that errors name it); emits a located error
/// otherwise.
mlir::LogicalResult checkSerialKernel(mlir::linalg::LinalgOp op);
/// The value of `fill` converted to its element type when it is a constant
/// that kernels fold into their initial accumulators; null otherwise.
mlir::TypedAttr foldableFillValue(mlir::linalg::FillOp fill);

/// A pad fused into an elementwise kernel (PadKernel.cpp): the body runs
/// over `valid`, the leading part of the results' shape (zero low pads),
/// and the elements past it hold `padValues[r]` in result r. Inputs are
/// indexed by `valid`'s iteration space, at clamped (in-bounds)
/// coordinates.
struct ElementwisePadding {
  llvm::SmallVector<int64_t> valid;
  llvm::SmallVector<mlir::TypedAttr> padValues;
};

/// Where an elementwise kernel stores its one result instead of a buffer
/// of its own (a part of a concatenation, ConcatKernel.cpp): element
/// (i0, ..., in) of the iteration space goes to `dest`'s buffer at
/// `offset` + sum(i_d * strides[d]). The launch allocates `dest` when
/// `fresh` (the first part), else writes the buffer an earlier launch of
/// the same op made, in place.
struct ElementwisePlacement {
  mlir::Value dest;
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 0;
  bool fresh = true;
};

/// One pass over the iteration space of `results` (all of one shape): the
/// body's arguments are the elements of `inputs` (by `inputMaps`, projected
/// permutations), its terminator's operands the elements of `results`.
/// Serves sinter.fused, unfused elementwise linalg.generic ops, slices and
/// pads: `inputOffsets[i]`, when given, is a constant start added to input
/// i's indices (tensor.extract_slice); `padding`, when given, a high pad
/// of the results (tensor.pad of the body's results); `placement`, when
/// given, where the one result is stored instead (a concatenation's part).
mlir::FailureOr<KernelLaunch> buildElementwiseKernel(
    mlir::Operation *op, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::AffineMap> inputMaps, mlir::Block &body,
    mlir::ValueRange results, mlir::gpu::GPUModuleOp module,
    llvm::StringRef name, const Tuning &tuning,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> inputOffsets = {},
    const ElementwisePadding *padding = nullptr,
    const ElementwisePlacement *placement = nullptr);

/// An elementwise linalg op the elementwise kernel runs: at least one loop,
/// all loops parallel, inputs read through projected permutations, results
/// written through identity maps, all results of one shape, and the inits
/// the body reads leading the inits (they become the kernel's last
/// inputs); a body of arith and math ops, no i1/index tensors, no
/// non-splat constant inputs, nothing captured but constants.
bool isElementwiseGeneric(mlir::linalg::GenericOp op);
/// A linalg.matmul / linalg.batch_matmul the tiled matmul kernel runs: the
/// default (untransposed) indexing maps and f16/bf16/f32 elements. Other
/// matmuls are generalized and run on the serial kernel.
bool isPlainMatmul(mlir::Operation *op);
/// `v` as a slice an elementwise kernel can read in place: a static,
/// unit-stride, rank-preserving tensor.extract_slice (its source is read at
/// the slice's offsets).
mlir::tensor::ExtractSliceOp sliceReadInPlace(mlir::Value v);
/// Whether `use` is an input of an elementwise generic, whose kernel reads
/// a slice there in place (elementwiseFormOf) whoever else reads it.
bool isElementwiseInput(mlir::OpOperand &use);
/// Whether every use of `slice` is an input of an elementwise generic, a
/// part of a concatenation (ConcatKernel.cpp), or an input of a chain in
/// `slicedChains` (the sinter.fused chains pad kernels run: PadKernel.cpp),
/// which read it in place: then no kernel copies it out.
bool readInPlaceByAllUsers(
    mlir::tensor::ExtractSliceOp slice,
    const llvm::SmallPtrSetImpl<mlir::Operation *> *slicedChains = nullptr);

/// What the elementwise kernel reads and runs for an elementwise op (a
/// sinter.fused, or a generic isElementwiseGeneric accepts): its inputs,
/// plus the inits its body reads (last), their maps, each input's slice
/// offsets when it is a slice read in place, and its body.
struct ElementwiseForm {
  llvm::SmallVector<mlir::Value> inputs;
  llvm::SmallVector<mlir::AffineMap> maps;
  llvm::SmallVector<llvm::SmallVector<int64_t>> offsets;
  mlir::Block *body = nullptr;
};
ElementwiseForm elementwiseFormOf(mlir::Operation *op);
/// The inputs of `form` (a sinter.fused chain's) that are slices read in
/// place, replaced by their sources at the slices' offsets, as a generic's
/// form has them: for the kernels that take a chain whose slices
/// readInPlaceByAllUsers counted as read in place.
void readSlicesInPlace(ElementwiseForm &form);

/// The elementwise op whose body the kernel of `consumer` (a pad, a
/// concatenation) runs in its own kernel: `v`'s producer when it is an
/// elementwise op of one result that nothing else reads, in `consumer`'s
/// block, whose body has no dropout (its Philox counters are its own
/// linear indices) and that no matmul takes as its epilogue. Null
/// otherwise: the kernel copies `v`.
mlir::Operation *chainProducer(mlir::Value v, mlir::Operation *consumer,
                               const Tuning &tuning);

/// A generic that computes its elements from their indices alone (an
/// iota: torch-mlir's arange of a cross-entropy's one-hot columns): no
/// inputs, an identity output it does not read, a body of linalg.index and
/// arith ops over constants. Elementwise kernels compute such an input per
/// element instead of loading it; the outliner runs the generic itself
/// only where something still reads it.
mlir::linalg::GenericOp indexOnlyGeneric(mlir::Operation *op);
/// An input an elementwise kernel computes: `producer` (indexOnlyGeneric),
/// read directly or through `reshape` (a tensor.expand_shape or
/// collapse_shape).
struct ComputedInput {
  mlir::Operation *producer = nullptr; // an indexOnlyGeneric
  mlir::Operation *reshape = nullptr;
};
std::optional<ComputedInput> computedInputOf(mlir::Value v);

/// The elementwise kernel copying `source` (read at `offsets` when given:
/// a slice read in place) into `results` (one value of the shape read),
/// with `padding` / `placement` as buildElementwiseKernel takes them.
mlir::FailureOr<KernelLaunch>
buildCopyKernel(mlir::Operation *op, mlir::Value source,
                llvm::ArrayRef<int64_t> offsets, mlir::ValueRange results,
                mlir::gpu::GPUModuleOp module, llvm::StringRef name,
                const Tuning &tuning,
                const ElementwisePadding *padding = nullptr,
                const ElementwisePlacement *placement = nullptr);

/// Whether the CUDA backend runs `pad` as an elementwise kernel (rather
/// than a gather): static shapes, zero low pads, constant high pads and a
/// constant pad value, of elements the elementwise kernel stores in
/// vectors.
bool isElementwisePad(mlir::tensor::PadOp pad);
/// The pad value of such a pad.
mlir::TypedAttr padValueOf(mlir::tensor::PadOp pad);
/// The kernel of such a pad over its padded shape: the body of `producer`
/// (chainProducer of its source) when given, else a copy of the source.
mlir::FailureOr<KernelLaunch> buildPadKernel(mlir::tensor::PadOp pad,
                                             mlir::Operation *producer,
                                             mlir::gpu::GPUModuleOp module,
                                             llvm::StringRef name,
                                             const Tuning &tuning);

/// Whether the CUDA backend runs `concat` as one elementwise kernel per
/// part storing into its buffer (rather than a gather): static, non-empty
/// shapes of elements the elementwise kernel stores in vectors.
bool isElementwiseConcat(mlir::tensor::ConcatOp concat);
/// A part of a concatenation: the elementwise op whose body its kernel
/// runs (chainProducer; null: a copy of the operand), which produced the
/// operand directly or through `reshape`.
struct ConcatPart {
  mlir::Operation *producer = nullptr;
  mlir::tensor::CollapseShapeOp reshape;
};
/// The launches of such a concatenation, one per part, in order.
mlir::FailureOr<llvm::SmallVector<KernelLaunch, 1>> buildConcatKernels(
    mlir::tensor::ConcatOp concat, llvm::ArrayRef<ConcatPart> parts,
    mlir::gpu::GPUModuleOp module, llvm::StringRef name, const Tuning &tuning);
/// `ml_program.global_load` / `global_store` (model state across calls, as
/// torch-mlir's RNG seed): a copy between a buffer and the global's mutable
/// device copy in `module` (StateKernels.cpp).
mlir::FailureOr<KernelLaunch> buildStateKernel(mlir::Operation *op,
                                               mlir::gpu::GPUModuleOp module,
                                               llvm::StringRef name);
mlir::FailureOr<KernelLaunch> buildFusedKernel(FusedOp op,
                                               mlir::gpu::GPUModuleOp module,
                                               llvm::StringRef name,
                                               const Tuning &tuning);

} // namespace sinter::gpu_kernels

#endif // SINTER_LIB_GPU_KERNELS_H
