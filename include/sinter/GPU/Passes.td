//===- Passes.td - Sinter's CUDA backend passes ------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_PASSES_TD
#define SINTER_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineCUDAKernels : Pass<"sinter-outline-cuda-kernels", "mlir::ModuleOp"> {
  let summary = "Turn every sinter op into a CUDA kernel and a gpu.launch_func";
  let description = [{
    Builds one `gpu.func` kernel per sinter op in a `gpu.module @sinter_kernels`
    and replaces the op in its function by host-side IR: its tensor operands
    become buffers (`bufferization.to_buffer`), its results fresh buffers
    (`memref.alloc`), and a `gpu.launch_func` runs the kernel over them.
    The kernels are written for memory-bound work: one row (or a few rows)
    per block for softmax and the norms, with the row held in registers,
    16-byte vector loads and stores, f32 arithmetic, warp shuffles and a
    shared-memory reduction across warps; `sinter.fused` chains are one pass
    over the iteration space, each thread handling one 16-byte vector;
    `sinter.adamw` is one multi-tensor kernel. `sinter.attention` with
    bf16/f16 operands runs FlashAttention-2 on the tensor cores for sm_80
    and later (cp.async tiles in shared memory, ldmatrix, mma.sync
    m16n8k16 with f32 accumulators, online softmax on the accumulator
    fragments); on sm_90a the shipped table selects warpgroup MMA instead
    (wgmma with Q and K read from 128-byte-swizzled shared memory through
    matrix descriptors and P from registers), and for some shapes its
    two-stage form (`pipe`: K/V double-buffered, each iteration issuing
    S = Q K^T of tile t and then P V of tile t-1 so that tile t's softmax
    runs while P V is on the tensor cores; `mbar`: mbarriers instead of a
    block-wide barrier per tile; `pp`: warpgroups take turns at the tensor
    cores); the tile shape comes from
    that table (one entry per head dim and causality, per chip), shipped
    with the compiler
    (lib/GPU/AttentionConfigs.inc, written by bench/autotune_attention.py)
    unless `attention-config` overrides it. f32 attention, and shapes the
    tensor-core kernel does not take, run a CUDA-core FlashAttention loop.

    Before:

    ```mlir
    %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>)
        : tensor<16x4096xbf16> -> tensor<16x4096xbf16>
    ```

    After:

    ```mlir
    %xb = bufferization.to_buffer %x read_only : ...
    %wb = bufferization.to_buffer %w read_only : ...
    %yb = memref.alloc() : memref<16x4096xbf16>
    gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c8, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%xb : ..., %wb : ..., %yb : ...)
    %y = bufferization.to_tensor %yb restrict writable : ...
    ```

    Ops that no fusion pattern absorbed run too: linalg.matmul and
    linalg.batch_matmul with their default indexing maps through a simple
    shared-memory-tiled kernel on CUDA cores (f32 accumulation), and
    elementwise linalg ops (generics with parallel loops, and named ops such
    as add, transpose, fill and broadcast, which are generalized first)
    through the same one-pass kernel as sinter.fused.

    Every other linalg op -- reductions (generics with reduction iterators,
    linalg.reduce), matmuls with transposed operands (user indexing maps),
    contraction generics, writes through a permuted output map -- is
    generalized and runs on a simple serial kernel, `reduce_N` (`generic_N`
    when it has no reduction loop): one thread per output element, threads
    in the row-major order of the first result; each thread starts from the
    init (a constant `linalg.fill` folds into the initial value, any other
    init is read), runs the reduction loops serially in iteration order and
    evaluates the region at each point, then stores each result once.
    Operands may be read through any projected permutation (transposes,
    broadcasts). f16/bf16 arithmetic in the region runs in f32 and each
    result is rounded to its storage type once (a bf16 sum or matmul
    accumulates in f32); an explicit `arith.truncf` in the region still
    rounds where it is written; f32, f64 and integer regions run exactly as
    written. This path is for correctness, not speed: a thread reads its
    whole reduction alone.

    ```mlir
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<64x1000xf32>) outs(%zero_fill : tensor<64xf32>) {...}
    // becomes one thread per row:
    gpu.func @reduce_0(%x: memref<64x1000xf32>, %r: memref<64xf32>) {
      %sum = scf.for %k = %c0 to %c1000 step %c1 iter_args(%acc = %zero) {...}
      memref.store %sum, %r[%tid] : memref<64xf32>
    }
    ```

    `cache-hints` changes how the softmax, LayerNorm, RMSNorm and AdamW
    kernels issue the 16-byte global loads and stores of the data they touch
    exactly once -- the rows of the norms and softmax, and the parameters,
    gradients and moments of AdamW; weights, biases and masks, which every
    row reads again, keep plain loads. With `none` (the default) they are
    ordinary vector loads and stores (`ld.global.v4.b32`,
    `st.global.v4.b32`). Otherwise each access is inline PTX on the
    buffer's aligned pointer plus the byte offset, the 16 bytes travelling
    as four b32 registers:

    | value | loads | stores |
    |---|---|---|
    | `evict-first` | `ld.global.L1::no_allocate.L2::cache_hint.v4.b32` | `st.global.L2::cache_hint.v4.b32` |
    | `no-allocate` | `ld.global.L1::no_allocate.v4.b32` | unchanged |
    | `l2-256b` | `ld.global.L2::256B.v4.b32` | unchanged |
    | `streaming` | `ld.global.cs.v4.b32` | `st.global.cs.v4.b32` |

    `evict-first` gives its accesses an L2 evict_first policy created once
    per kernel (`createpolicy.fractional.L2::evict_first.b64 %rd, 1.0`): the
    plain `.L2::evict_first` qualifier is only accepted on 32-byte accesses
    (sm_100). The hinted forms need PTX ISA 7.4, so `sinter-lower-to-nvvm`
    raises the PTX version of sm_80-sm_87 from 7.0 to 7.4 when a hint is
    set. Accesses narrower than 16 bytes (rows or tensors whose sizes are
    not a multiple of the vector) keep plain loads and stores. The option
    exists to time the hints against each other (bench/NOTES.md).

    Shapes must be static. An op the backend cannot run is reported as an
    error at its location: dynamic shapes, operands read through maps that
    are not projected permutations (convolutions), output maps that do not
    index exactly the parallel loops, element types other than f16, bf16,
    f32, f64, i32 and i64 in the serial kernel, and region ops other than
    arith, math and linalg.index.
  }];
  let options = [
    Option<"rowVectors", "row-vectors", "int64_t", /*default=*/"4",
           "16-byte vectors each thread of a softmax/norm kernel keeps in "
           "flight (sets the lanes per row)">,
    Option<"fusedVectors", "fused-vectors", "int64_t", /*default=*/"2",
           "16-byte vectors per thread in a sinter.fused kernel">,
    Option<"rowBlock", "row-block", "int64_t", /*default=*/"256",
           "threads per block of a softmax/norm kernel (short rows share a "
           "block)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "GPU architecture the kernels are for (sm_80 and later run "
           "attention on tensor cores)">,
    Option<"attentionConfig", "attention-config", "std::string",
           /*default=*/"\"\"",
           "Tile configuration of every attention kernel, overriding the "
           "shipped table: '[wgmma,][pipe,[mbar,[pp,]]]warps=W,mtiles=M,"
           "bn=N[,maxregs=R]' (tensor cores: W warps of 16*M query rows, N "
           "keys per K/V tile; wgmma and its forms need sm_90a) or "
           "'cuda-cores'">,
    Option<"cacheHints", "cache-hints", "std::string", /*default=*/"\"none\"",
           "Cache policy of the 16-byte loads/stores of data touched once "
           "(norm/softmax rows, AdamW state): none, evict-first, "
           "no-allocate, l2-256b or streaming">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::gpu::GPUDialect", "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

#endif // SINTER_GPU_PASSES_TD
