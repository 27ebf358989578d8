//===- Passes.td - Sinter's CUDA backend passes ------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPU_PASSES_TD
#define SINTER_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TensorOpsToLinalg : Pass<"sinter-tensor-ops-to-linalg"> {
  let summary = "Turn tensor ops left between kernels into gathering "
                "linalg.generic ops the CUDA kernels run";
  let description = [{
    A CUDA artifact's host code only sequences kernel launches and views
    buffers. The tensor ops real models leave between fused kernels become
    `linalg.generic` ops that gather from their sources (each source read at
    a clamped, in-bounds index, the right one selected), which
    `sinter-outline-cuda-kernels` runs on its general path:

    * `tensor.concat` of booleans (HF's position checks; other static
      concatenations are left for `sinter-outline-cuda-kernels`, which runs
      one elementwise kernel per part storing into the joined buffer);
    * `tensor.insert_slice` with static offsets and unit strides (TOSA's
      rotate_half);
    * `tensor.pad` with a constant padding value and low pads (TOSA's
      cumsum; high pads alone are left for `sinter-outline-cuda-kernels`,
      which runs them as an elementwise kernel over the padded shape);
    * a scalar `tensor.extract`ed on the host with constant indices and used
      by a generic's region (torch-mlir's 0-d step arithmetic) is moved into
      that region, so the kernel reads it; a fused chain's scalar input read
      from a 0-d tensor takes the tensor itself (the empty map);
    * scalar `arith`/`math` ops on values read from 0-d tensors (torch-mlir's
      update of its RNG seed in train mode) become 0-d generics, and a
      `tensor.insert` of such a value into a 0-d tensor is that value's
      tensor: an artifact runs no host code;
    * a `tensor.extract` inside a generic's region from a static unit-stride
      `tensor.extract_slice` reads the slice's source at the slice's offsets
      (the cross-entropy's target logit gathered from logits sliced out of
      their padded product), so the slice needs no copy kernel;
    * a `tensor.expand_shape` of a static slice moves before the slice when
      the split keeps whole rows of the inner dimensions (GPT-2's Q, K and V
      sliced from the fused projection, then split into heads), so that the
      kernel after it reads the slice in place;
    * `sinter.softmax` over a non-trailing axis, which the register-resident
      row kernel cannot hold, becomes three generics (max over the axis, sum
      of exponentials, normalize) with the op's contract (f32 arithmetic, an
      all `-inf` slice gives zeros); their threads walk the axis serially
      and neighbouring threads read neighbouring elements, so the reads
      coalesce without a transpose;
    * `sinter.softmax_backward`, and the `sinter.attention_backward` ops
      that the tensor-core backward does not run (f32, a mask's gradient,
      other head dims; option `chip`), become the generics
      of their reference form (the CPU lowering's, SinterToLoops'
      BackwardRowOps/BackwardAttention): correct, run by the general path
      and cuBLASLt, the attention one over B x Hq x Sq x Skv tensors. The
      norms' backward and the other attention backwards keep their op and
      kernels.

    Before:

    ```mlir
    %c = tensor.concat dim(1) %a, %b : (tensor<4x8xi1>, tensor<4x8xi1>)
        -> tensor<4x16xi1>
    ```

    After:

    ```mlir
    %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
        iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x16xi1>) {
    ^bb0(%out: i1):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      // %x = %a[%i, min(%j, 7)], %y = %b[%i, max(%j - 8, 0)]
      // yield select(%j - 8 in [0, 8), %y, %x)
    } -> tensor<4x16xi1>
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "GPU architecture of the kernels: sinter.attention_backward ops "
           "the tensor-core backward runs there (bf16/f16, head dim 64 or "
           "128, no mask gradient, sm_80 and later) keep their "
           "op">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect"];
}

def PadMatmuls : Pass<"sinter-pad-matmuls"> {
  let summary = "Pad the dimensions of large matmuls whose rows are not "
                "16-byte aligned, so that cuBLASLt takes its aligned kernels";
  let description = [{
    cuBLASLt runs a GEMM with its fast kernels only when every matrix's
    leading dimension is a multiple of 16 bytes; a language model's
    vocabulary (GPT-2's 50257) leaves the logits and their gradient with
    odd rows, and cuBLASLt falls back to sm_75 `align1` kernels several
    times slower (about 5 ms a GEMM at GPT-2's B8 T1024 on an H200). This
    pass pads the dimensions (M, N, K) whose stored rows are misaligned up
    to the next multiple, as torch's inductor does: the operands are padded
    with zeros (`tensor.pad`; an operand that is a transpose is padded
    before it, so that the matmul still reads it in place), the matmul
    computes the padded product, and `tensor.extract_slice` takes the
    result back (elementwise consumers read the slice in place). Zero rows
    of the reduction dimension add nothing: the result is the same up to
    the order of f32 additions. Only matmuls of at least `min-flops`
    floating-point operations are padded: the copies cost more than the
    aligned kernels save on small ones. A zero pad of a transpose that a
    matmul reads (the weight the torch backend pads when it saves the
    padded logits) becomes the transpose of the padded source, read in
    place too.

    Before:

    ```mlir
    %y = linalg.matmul ins(%x, %wt : tensor<8192x768xbf16>,
        tensor<768x50257xbf16>) outs(%zero : tensor<8192x50257xf32>)
    ```

    After:

    ```mlir
    %wp = tensor.pad %w low[0, 0] high[7, 0] { ... } : tensor<50257x768xbf16>
        to tensor<50264x768xbf16>
    %wpt = linalg.transpose ins(%wp) ... permutation = [1, 0]
    %yp = linalg.matmul ins(%x, %wpt : tensor<8192x768xbf16>,
        tensor<768x50264xbf16>) outs(%zero2 : tensor<8192x50264xf32>)
    %y = tensor.extract_slice %yp[0, 0] [8192, 50257] [1, 1]
    ```
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kPadMinFlops",
           "Pad only matmuls of at least this many floating-point "
           "operations (2 M N K)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def OnlineLogSumExp : Pass<"sinter-online-logsumexp"> {
  let summary = "Fuse a logsumexp's max and sum-of-exponentials reductions "
                "into one online reduction";
  let description = [{
    torch's log_softmax (a cross-entropy over a vocabulary) reaches
    linalg-on-tensors as two row reductions over the same logits: a max
    from -inf, then a sum from 0 of `exp(f(x) - g(max))` that reads the
    first's result (g is the max itself, or torch's guard that replaces an
    infinite max by 0). On the GPU each is a pass over the logits (GPT-2's
    are 8192 x 50257). This pass merges them into one reduction with two
    results, the running max M and the sum S of `exp(f(x) - M)` rescaled
    when the max grows (one exponential per point), marked
    `sinter.online_logsumexp` so that the CUDA reduction kernel splits it
    across a warp's lanes with the pair's combination; an elementwise fixup
    gives the sum's value, `S exp(M - g(M))` where M is finite and
    `exp(M - g(M))` otherwise (the inf, 0 or NaN the two passes gave for a
    row with an infinite or NaN maximum). The sum's order of additions
    changes, as in every split reduction. Pairs that differ from this
    form (another init, another per-point function of the logits, inputs
    other than the logits and the max) are left alone, with the reason as
    a match-failure note (`-debug`).

    Before:

    ```mlir
    %m = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<8192x50257xf32>) outs(%minus_inf : tensor<8192xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %r = arith.maximumf %in, %acc : f32
        linalg.yield %r : f32 } -> tensor<8192xf32>
    %me = tensor.expand_shape %m [[0, 1]] ... into tensor<8192x1xf32>
    %s = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x, %me : tensor<8192x50257xf32>, tensor<8192x1xf32>)
        outs(%zero : tensor<8192xf32>) {
      ^bb0(%in: f32, %max: f32, %acc: f32):
        %d = arith.subf %in, %max : f32
        %e = math.exp %d : f32
        %r = arith.addf %e, %acc : f32
        linalg.yield %r : f32 } -> tensor<8192xf32>
    ```

    After:

    ```mlir
    %ms:2 = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<8192x50257xf32>)
        outs(%minus_inf, %zero : tensor<8192xf32>, tensor<8192xf32>)
        attrs = {sinter.online_logsumexp} { ... }
    %s = linalg.generic {iterator_types = ["parallel"]}
        ins(%ms#0, %ms#1 : tensor<8192xf32>, tensor<8192xf32>) ... {
      ... S exp(M - g(M)), or exp(M - g(M)) where M is not finite }
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect"];
}

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
    that table (one entry per head dim and causality, per chip, and
    per key-sequence bucket where a shorter tuned length chose other
    tiles), shipped
    with the compiler
    (lib/GPU/Attention/AttentionConfigs.inc, written by bench/autotune_attention.py)
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
    through the same one-pass kernel as sinter.fused. That kernel keeps
    16-byte slots over rows of odd length (a slot may run into the next
    row), and computes an input that an index-only generic produced (an
    arange: torch-mlir's one-hot columns, positions) from each element's
    coordinates instead of loading it. A `tensor.pad` with zero low pads and
    a constant value runs as that kernel over the padded shape (the lanes
    past the source store the value), with the body of the elementwise op
    that produced the source when nothing else reads it (GPT-2's
    cross-entropy gradient and its pad for the lm_head GEMMs: one kernel).
    A `tensor.concat` runs one such kernel per part, each storing into the
    joined buffer at its offset, in place after the first; a part's
    producer (through a `tensor.collapse_shape`) runs in it (three
    transposed parts: three kernels, no gather). Reductions run one thread per output element, a warp per
    element when long, a block per element when long and few (a loss's
    sum), the column form for column sums. Upstream aggregate
    ops (`linalg.softmax`) and torch-mlir's `tm_tensor` ops left by fusion
    first become linalg generics, as on the CPU. Every tensor a kernel
    touches must have a static shape, at least one element and integer or
    floating-point elements (not `index`); other ops are errors at the op.

    With `matmul=cublas` (the default) such a matmul also becomes a library
    call when cuBLASLt takes its element types (A and B both f16, bf16 or
    f32; C of their type or f32, f32 only for f32 inputs) and its init is a
    zero fill (C = A x B) or a tensor it reads (C = C0 + A x B): its
    `gpu.launch_func` carries a `sinter.library_call` dictionary (`kind =
    "cublas_gemm"`, `m`, `n`, `k`, `batch`, and the kernel argument indices
    `a`, `b`, `c` and `c_init`), which the artifact writes as a
    `cublas_gemm` launch entry with the kernel as its fallback
    (docs/Manifest.md). The runtime runs the GEMM through cuBLASLt when it
    can open it, otherwise the kernel. A non-zero constant fill keeps the
    kernel alone. `matmul=kernel` builds the kernel alone everywhere.

    Kernels read and write around the transposes frontends put between
    them (the transposes then run no kernel unless something else reads
    them): a matmul operand that is a transpose of the last two dimensions
    is read in place (`trans_a` / `trans_b` in the library call, the
    fallback kernel indexing it so; not when the copy's rows would be
    16-byte aligned for cuBLASLt and the source's are not), and the
    tensor-core attention kernels read Q, K and V split into heads and
    transposed from the projection that holds them ([B, S, H', D] at a head
    offset) and write O straight into the [B, S, H, D] tensor its transpose
    made (lib/GPU/InPlaceOperands.cpp, Attention/InPlaceHeads.cpp). The
    tensor-core attention backward reads Q, K and V there too, and dO in the
    [B, S, H, D] gradient it was transposed from; when dQ, dK and dV are
    transposed back, merged and joined (`tensor.concat`, the fused
    projection's gradient), its kernels write each into the joined tensor at
    its heads and the concatenation runs no kernel. A LayerNorm or RMSNorm
    whose input is an elementwise chain of same-shape inputs (a residual
    add) computes the chain itself and stores its result for the chain's
    other readers (NormPrologue.cpp; non-persistent row kernels); a
    LayerNorm or RMSNorm backward whose dx only an elementwise chain of
    same-shape inputs reads (the residual stream's gradient, g + dx and its
    rounding) computes that chain where it would store dx and stores the
    chain's results instead; a sum of one of those results over the rows
    into a zero fill (the next linear layer's bias gradient) is added up
    beside dweight and dbias and written by the column kernel, with no
    reduction kernel of its own.

    ```mlir
    gpu.launch_func @sinter_kernels::@matmul_0 blocks in (%c8, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%a : memref<100x96xbf16>,
        %b : memref<96x200xbf16>, %c : memref<100x200xbf16>)
        {sinter.library_call = {a = 0 : i64, b = 1 : i64, batch = 1 : i64,
         c = 2 : i64, k = 96 : i64, kind = "cublas_gemm", m = 100 : i64,
         n = 200 : i64}}
    ```

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
    written. Long sums and maxes split their points: over the trailing axis
    a warp per output element (lanes combined by shuffles); over a leading
    axis, when every operand is contiguous along the output's innermost
    dimension (a bias gradient summed over the rows), the column form -- a
    block per 32 adjacent outputs whose 8 warps read chunks of the rows
    with coalesced loads, their partials combined in shared memory and,
    for long columns, across chunks by a second launch `reduce_N_1`, in a
    fixed order. Other reductions are for correctness, not speed: a thread
    reads its whole reduction alone.

    Model state across calls (`ml_program.global`, torch-mlir's RNG seed in
    train mode) lives in a mutable, 16-byte aligned `memref.global
    @sinter_state_<name>` of the kernel module, initialized from the
    global's value and kept as long as the artifact is loaded;
    `ml_program.global_load` and `global_store` become copy kernels
    (`global_load_N`, `global_store_N`) between it and a buffer, run in
    program order. A scalar operand of a kernel read from a 0-d tensor
    (AdamW's step counter computed by a kernel) is passed as that tensor's
    buffer and loaded in the kernel.

    Slices are read in place: a static, unit-stride `tensor.extract_slice`
    whose every use is an input of an elementwise generic is not copied out;
    the generic's kernel reads the slice's source at its offsets. A
    reduction reads a slice (read through a permutation of its loops) in
    its source too; when anything else needs the slice itself (the forward
    returns GPT-2's unpadded logits for the backward while the
    cross-entropy's statistics reduce them), a reduction along the slice's
    rows writes it as it reads it -- each element once -- for readers after
    it, and no copy kernel runs (SlicedInputs.cpp). A reader before the
    reduction, or a column reduction, keeps the copy kernel.

    A bias add after a matmul becomes the matmul's epilogue (with
    `matmul=cublas`): an f32-accumulating `linalg.matmul` whose only use is a
    `sinter.fused` chain `round(acc + bias[n])` (bias over the columns, of
    the result's type; an f32 bias that only widens a narrow vector is read
    narrow) launches once, with `bias` in its `sinter.library_call` (the
    manifest's `bias`/`bias_dtype`, cuBLASLt's EPILOGUE_BIAS), and its
    fallback kernel adds the bias before the one rounding. The f32 product
    never reaches memory.

    A GELU after that epilogue becomes the matmul's activation too: the one
    chain reading the epilogue's result (through reshapes) that computes
    gelu_tanh of it (`activation = "gelu_tanh"`, cuBLASLt's
    GELU(_AUX)(_BIAS); the epilogue's result stored as `aux` when anything
    else reads it: a training graph's saved pre-activation), or the chain
    that multiplies a rounded product by gelu_tanh' of a saved tensor
    (`activation = "gelu_tanh_grad"`, `aux` that tensor, cuBLASLt's DGELU).
    Chains are recognized by what their body computes (evaluated exactly at
    probe points, to 1e-3 of the reference), whatever arithmetic the
    frontend wrote; a chain holding both the bias and the GELU is cut in two
    first. The fallback kernel evaluates the chain's own body.

    i1 buffers hold one byte per element; kernels load and store them
    element by element (LLVM packs a `vector<N x i1>` into bits). Vector
    loads are used only where every vector starts at a multiple of its width
    (a slice at an odd offset, or rows of odd length, are read element by
    element).

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
    raises the PTX version of sm_80-sm_88 (7.0, 7.1) to 7.4 when a hint
    is set. Accesses narrower than 16 bytes (rows or tensors whose sizes are
    not a multiple of the vector) keep plain loads and stores. The option
    exists to time the hints against each other (bench/NOTES.md).

    `row-persistent` and `adamw-persistent` select persistent variants of
    the softmax/norm and AdamW kernels, to be timed against the default
    (bench/NOTES.md); 0 (the default) leaves the kernels as described
    above. With 1 the grid is sized to the chip: `sm-count` SMs (by default
    the chip's usual count, lib/GPU/TargetInfo.cpp: 132 for sm_90, 108 for
    sm_80, 148 for sm_100) times
    `persistent-ctas` blocks per SM (by default 1024 threads' worth, e.g. 4
    blocks of 256 threads), reduced so that every block gets the same number
    of row groups (or AdamW chunks); the kernel declares that many blocks
    per SM (`nvvm.minctasm`, PTX `.minnctapersm`) so that ptxas keeps its
    registers within them. Each block loops over the row groups
    `blockIdx.x, blockIdx.x + gridDim.x, ...` (correct for any grid); the
    norm's weight and bias are loaded once before the loop. RMSNorm's one
    reduction per row alternates between two sets of shared-memory slots,
    as no other barrier separates two rows. AdamW runs one loop per group
    of same-shaped tensors over its chunks. With 2 the row kernels also
    load the next row group's vectors (in their element type) at the top of
    each iteration, before the current row is reduced and stored, and carry
    them to the next iteration; AdamW updates one vector per thread per
    chunk (instead of two) and loads the next chunk's parameter, gradient
    and moments before updating the current one. `row-persistent=3` is 2
    without the hoisting (the weight and bias are loaded per row, as in the
    default kernel), spending the registers on the prefetched row only.
    bf16/f16 weights stay packed in registers across the loop (an opaque
    register copy per iteration keeps LLVM from hoisting their conversion
    to f32, which would double the registers they hold).

    ```mlir
    gpu.func @rms_norm_0(...) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 4 : i32} {
      %w = vector.load %weight[...]          // once per thread
      %x0 = scf.if %valid0 -> (vector<8xbf16>, ...) {...}   // row group blockIdx.x
      %r:5 = scf.for %g = %bid to %c8192 step %gdim iter_args(%x = %x0, ..., %parity = %c0) {
        %next = scf.if %valid1 -> (vector<8xbf16>, ...) {...}  // group %g + %gdim
        ... reduce, normalize and store %x ...
        scf.yield %next, ..., %parity_next
      }
    }
    ```

    Kernels whose functions are identical but for their names (a model's
    repeated layers outline the same kernels once per layer) are merged into
    the first, and their launches call it: each distinct body goes through
    the NVVM lowering, LLVM and ptxas once (GPT-2's 12-layer training
    forward: 296 kernels -> 38, its compile 10.0 -> 1.1 s on a 2-core
    machine; the backward 495 -> 45, 12.9 -> 1.4 s).

    Shapes must be static. An op the backend cannot run is reported as an
    error at its location: dynamic shapes, operands read through maps that
    are not projected permutations (convolutions), output maps that do not
    index exactly the parallel loops, element types other than f16, bf16,
    f32, f64, i32 and i64 in the serial kernel, and region ops other than
    arith, math and linalg.index.
  }];
  let options = [
    Option<"rowVectors", "row-vectors", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kRowVectors",
           "16-byte vectors each thread of a softmax/norm kernel keeps in "
           "flight (sets the lanes per row)">,
    Option<"fusedVectors", "fused-vectors", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kFusedVectors",
           "16-byte vectors per thread in a sinter.fused kernel">,
    Option<"rowBlock", "row-block", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kRowBlock",
           "threads per block of a softmax/norm kernel (short rows share a "
           "block)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "GPU architecture the kernels are for (sm_80 and later run "
           "attention on tensor cores)">,
    Option<"attentionConfig", "attention-config", "std::string",
           /*default=*/"\"\"",
           "Tile configuration of every attention kernel, overriding the "
           "shipped table: '[wgmma,][pipe,[mbar,[pp,][ws,[persist,]["
           "tmastore,]]]]warps=W,mtiles=M,bn=N[,maxregs=R]' (tensor cores: "
           "W warps of 16*M query rows, N keys per K/V tile, N in "
           "16/32/64/128 or with wgmma also 160/176/192; wgmma and its forms "
           "need sm_90a; ws adds a TMA producer warpgroup to W = 4, 8 or 12 consumer "
           "warps; persist: one block per SM (sm-count) looping over the "
           "work items; tmastore: O stored through shared memory by TMA) or "
           "'cuda-cores'">,
    Option<"cacheHints", "cache-hints", "std::string", /*default=*/"\"none\"",
           "Cache policy of the 16-byte loads/stores of data touched once "
           "(norm/softmax rows, AdamW state): none, evict-first, "
           "no-allocate, l2-256b or streaming">,
    Option<"rowPersistent", "row-persistent", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kRowPersistent",
           "Softmax/norm kernels: 0 = one block per row group, 1 = a grid "
           "sized to the chip looping over row groups (norm weight and bias "
           "loaded once), 2 = as 1 and the next row loaded before the "
           "current one is reduced, 3 = as 2 with the weight and bias "
           "loaded per row">,
    Option<"adamwPersistent", "adamw-persistent", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kAdamWPersistent",
           "AdamW: 0 = up to 1024 blocks, 1 = a grid sized to the chip with "
           "equal chunks per block, 2 (default) = as 1 and the next chunk "
           "loaded before the current one is updated">,
    Option<"persistentCtas", "persistent-ctas", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kPersistentCtas",
           "Blocks per SM that the persistent grids count on (the kernels' "
           ".minnctapersm; 0: 1024 threads' worth)">,
    Option<"smCount", "sm-count", "int64_t",
           /*default=*/"::sinter::cuda_defaults::kSmCount",
           "SMs of the chip, for the persistent grids (0: the chip's "
           "usual count, e.g. 132 for sm_90, 108 for sm_80, 148 for sm_100, "
           "and the runtime sizes them again for the device it runs on; N pins them to N SMs)">,
    Option<"matmul", "matmul", "std::string", /*default=*/"\"cublas\"",
           "How unfused matmuls run: 'cublas' (a cuBLASLt library call with "
           "the CUDA-core kernel as its fallback) or 'kernel' (the CUDA-core "
           "kernel alone)">,
    Option<"attentionBackward", "attention-backward", "std::string",
           /*default=*/"\"wgmma\"",
           "Form of the tensor-core attention backward's key-tile kernel: "
           "'wgmma' (warpgroup MMA from shared-memory descriptors on sm_90a, "
           "mma.sync before it) or 'mma-sync' (FlashAttention-2's form on "
           "every chip)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::gpu::GPUDialect", "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
    // The copy kernel of a slice yields through sinter.yield, also in a
    // module without sinter ops (sinterc --no-fusion).
    "sinter::SinterDialect"
  ];
}

def CombineLaunches : Pass<"sinter-combine-launches", "mlir::ModuleOp"> {
  let summary = "Run independent elementwise kernels as one launch";
  let description = [{
    Horizontal fusion after `sinter-outline-cuda-kernels`: launches of
    elementwise kernels (`sinter.fused` chains, elementwise generics, slice
    copies; the outliner marks them `sinter.elementwise_kernel`) that do
    not depend on each other become one launch of a combined kernel whose
    blocks run the members' bodies one after another in block order: block
    b runs member i as block b - (the grids before it), found by a binary
    search over the members' first blocks. A model's per-weight
    casts under autocast (GPT-2: 96 kernels, half of them one or two
    blocks) are then one launch instead of many graph nodes and ramps.

    A group spans launches of the same block size with constant
    one-dimensional grids, no dynamic shared memory, no cluster, no library
    call or persistent grid, with only host glue between them (allocations,
    constants, views, `bufferization.to_buffer`/`to_tensor`), and no member
    reads or writes a buffer another member writes (a buffer is written
    unless it reaches the launch through a `read_only` to_buffer). At most
    256 kernel parameters a launch. The combined launch replaces the last
    member's:

    ```mlir
    gpu.launch_func @sinter_kernels::@fused_0 blocks in (%c432, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%w0 : memref<768x2304xf32>,
                                          %o0 : memref<768x2304xbf16>)
    %t = bufferization.to_tensor %o0 ...
    gpu.launch_func @sinter_kernels::@fused_1 blocks in (%c2, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%w1 : memref<2304xf32>,
                                          %o1 : memref<2304xbf16>)
    // ->
    gpu.launch_func @sinter_kernels::@combined_0 blocks in (%c434, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%w0, %o0, %w1, %o1 : ...)
    ```

    Kernels only the groups launched are erased. Part of the CUDA pipeline
    unless `combine-launches=false` (sinterc `--cuda-combine-launches=false`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect"];
}

def NVVMTensorMapParams
    : Pass<"sinter-nvvm-tensor-map-params", "mlir::gpu::GPUModuleOp"> {
  let summary = "Make the tensor-map parameters of lowered kernels by-value "
                "grid constants";
  let description = [{
    Kernels that load tiles with the Tensor Memory Accelerator (sm_90a
    attention with `ws`) take CUDA tensor maps (128-byte TMA descriptors
    that the runtime encodes per launch) as parameters. In the kernel they
    are `!llvm.ptr` values named by the kernel's `sinter.tensor_map_params`
    attribute (parameter indices), which `sinter-outline-cuda-kernels` sets.
    Run after the `gpu.func` kernels became `llvm.func`s
    (`convert-gpu-to-nvvm`), this pass gives each such parameter
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64` and
    `nvvm.grid_constant`: PTX then declares `.param .align 64 .b8 p[128]`
    and the kernel addresses the parameter in place (`cvta.param`), which is
    where `cp.async.bulk.tensor` reads the descriptor from, with no copy to
    local memory and no device allocation. The attribute is removed.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

#endif // SINTER_GPU_PASSES_TD
