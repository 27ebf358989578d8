// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s
// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels=attention-backward=mma-sync -split-input-file | FileCheck %s --check-prefix=MMA
// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg=chip=sm_80 --sinter-outline-cuda-kernels=chip=sm_80 -split-input-file | FileCheck %s --check-prefix=SM80
// RUN: not sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels=attention-backward=wmma -split-input-file 2>&1 | FileCheck %s --check-prefix=BADFORM
// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg=chip=sm_75 --sinter-outline-cuda-kernels=chip=sm_75 -split-input-file | FileCheck %s --check-prefix=SM75
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a --no-fusion -o %t 2>&1 | FileCheck %s --check-prefix=CENSUS

// The backward ops on CUDA. The norms' backward is two tuned launches: a
// persistent row kernel writing dx and partial column sums into a scratch
// buffer ([K, blocks * rows per block, N] f32), then a column kernel that
// reads that scratch and writes dweight and dbias. Softmax's backward, and
// attention's outside the tensor-core backward (f32 here), run their
// reference generics on the general path and cuBLASLt.

// CHECK-LABEL: func.func @layer_norm_backward
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<2x{{[0-9]+}}x768xf32>
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_[[N:[0-9]+]] blocks in (%{{.*}}) threads in (%{{.*}}) args({{.*}}, %[[SCRATCH]] : memref<2x{{[0-9]+}}x768xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[SCRATCH]]
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[T]]
// CHECK: gpu.launch_func @sinter_kernels::@layer_norm_backward_[[N]]_1 {{.*}} args(%[[B]] : memref<2x{{[0-9]+}}x768xf32>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<768xf32>)
// CHECK: gpu.func @layer_norm_backward_[[N]](
// CHECK-SAME: nvvm.minctasm = 2
// CHECK: scf.for
// CHECK: gpu.func @layer_norm_backward_[[N]]_1(
// The reference form's batch matmuls read their transposed operands in
// place (InPlaceOperands.cpp): no transpose kernels.
// CENSUS: outline {{.*}}(24 tuned kernels (attention_backward 21, layer_norm_backward 2, rms_norm_backward 1); 5 library calls (cublas_gemm 5); 8 general-path kernels (generic 6, reduce 2))
func.func @layer_norm_backward(%dy: tensor<1024x768xbf16>, %x: tensor<1024x768xbf16>,
    %mean: tensor<1024xf32>, %rstd: tensor<1024xf32>, %w: tensor<768xbf16>)
    -> (tensor<1024x768xbf16>, tensor<768xbf16>, tensor<768xf32>) {
  %dx, %dw, %db = sinter.layer_norm_backward %dy, %x, %mean, %rstd weight(%w : tensor<768xbf16>)
      : tensor<1024x768xbf16>, tensor<1024xf32> -> tensor<1024x768xbf16>
        dweight(tensor<768xbf16>) dbias(tensor<768xf32>)
  return %dx, %dw, %db : tensor<1024x768xbf16>, tensor<768xbf16>, tensor<768xf32>
}

// -----

// Without a weight gradient there is no scratch and one launch.
// CHECK-LABEL: func.func @rms_norm_backward_dx
// CHECK-NOT: memref<1x
// CHECK: gpu.launch_func @sinter_kernels::@rms_norm_backward_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<64x4096xf32>, %{{.*}} : memref<64x4096xf32>, %{{.*}} : memref<64xf32>, %{{.*}} : memref<64x4096xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @rms_norm_backward_dx(%dy: tensor<64x4096xf32>, %x: tensor<64x4096xf32>,
    %rstd: tensor<64xf32>) -> tensor<64x4096xf32> {
  %dx = sinter.rms_norm_backward %dy, %x, %rstd : tensor<64x4096xf32>, tensor<64xf32> -> tensor<64x4096xf32>
  return %dx : tensor<64x4096xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_backward
// CHECK: gpu.launch_func @sinter_kernels::@reduce_
// CHECK: gpu.launch_func @sinter_kernels::@generic_
func.func @softmax_backward(%dy: tensor<8x100xf32>, %y: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %dx = sinter.softmax_backward %dy, %y dim 1 : tensor<8x100xf32>
  return %dx : tensor<8x100xf32>
}

// -----

// Attention's backward on the tensor cores (bf16, D 64, causal, two query
// heads per key/value head): prepare writes delta and zeroes an f32 dQ
// accumulator; the main kernel (one block per key tile: 2 x 2 x 2) adds
// into that same accumulator and writes dK and dV; finish reads it and
// writes dQ. Nothing of size Sq x Skv is allocated.
// CHECK-LABEL: func.func @attention_backward_tensor_cores
// CHECK-NOT: memref<2x4x{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK: %[[DELTA:.*]] = memref.alloc() : memref<2x4x100xf32>
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<2x4x100x64xf32>
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]] blocks in (%{{.*}}) threads in (%{{.*}}) args({{.*}}, %[[DELTA]] : memref<2x4x100xf32>, %[[ACC]] : memref<2x4x100x64xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[ACC]]
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[T]] :
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_1 blocks in (%{{.*}}) threads in (%[[C128]], %{{.*}}) dynamic_shared_memory_size %{{.*}} args({{.*}}, %[[B]] : memref<2x4x100x64xf32>, %{{.*}} : memref<2x2x128x64xbf16>, %{{.*}} : memref<2x2x128x64xbf16>)
// CHECK: %[[T2:.*]] = bufferization.to_tensor %[[B]]
// CHECK: %[[B2:.*]] = bufferization.to_buffer %[[T2]]
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_2 {{.*}} args(%[[B2]] : memref<2x4x100x64xf32>, %{{.*}} : memref<2x4x100x64xbf16>)
// On sm_90a the key-tile kernel is on wgmma (Attention/BackwardWgmma.cpp):
// the copies land and reach the async proxy; S^T = K Q^T and dP^T = V dO^T
// are a group each (D/16 k-steps), S^T's waited on first; while they run,
// the next query tile is copied into the other stage once this thread's
// reductions of the previous tile's dQ (staged there) have read it and the
// block has seen that; dV and dK take P^T and dS^T from registers after one
// fence (BM/16 k-steps each); dS goes to shared memory by stmatrix and
// reaches the async proxy before dQ = dS K (BN/16 k-steps), whose stage is
// the tile's own (no copy between dK and dQ); no ldmatrix, no mma.sync.
// CHECK: gpu.func @attention_backward_[[N]]_1(
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}"=f,
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-COUNT-4: nvvm.stmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-16: vector.store {{.*}} {alignment = 8 : i64} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;"
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
// mma-sync: FlashAttention-2's form (ldmatrix fragments of padded tiles).
// MMA-LABEL: func.func @attention_backward_tensor_cores
// MMA: gpu.func @attention_backward_{{[0-9]+}}_1(
// MMA-NOT: wgmma
// MMA: nvgpu.device_async_copy
// MMA: scf.for
// MMA: nvgpu.ldmatrix
// MMA: nvvm.mma.sync
// MMA: nvvm.stmatrix {{.*}}layout = #nvvm.mma_layout<col>
// MMA: memref.atomic_rmw addf
// MMA: gpu.return
// BADFORM: error: sinter-outline-cuda-kernels: bad attention-backward 'wmma': expected 'wgmma' or 'mma-sync'
// sm_80 has no stmatrix: dS^T goes to shared memory element by element.
// SM80: gpu.func @attention_backward_{{[0-9]+}}_1(
// SM80-NOT: nvvm.stmatrix
// SM80: memref.store {{.*}} : memref<32x72xbf16, #gpu.address_space<workgroup>>
// SM80: gpu.return
// Before sm_80 (no bf16 mma.sync) the op takes its reference form.
// SM75-LABEL: func.func @attention_backward_tensor_cores
// SM75-NOT: @attention_backward_{{[0-9]+}}_1
// SM75: gpu.launch_func @sinter_kernels::@batch_matmul_
// SM75: return
func.func @attention_backward_tensor_cores(%do: tensor<2x4x100x64xbf16>,
    %q: tensor<2x4x100x64xbf16>, %k: tensor<2x2x128x64xbf16>,
    %v: tensor<2x2x128x64xbf16>, %o: tensor<2x4x100x64xbf16>,
    %lse: tensor<2x4x100xf32>)
    -> (tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse {causal}
      : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
}

// -----

// D128 on wgmma: one warpgroup per block of 64 keys (2 x 2 x 4 blocks for
// Skv 256): S^T and dP^T (m64n64, 8 k-steps each), dV and dK (m64n128),
// then dQ = dS K (m64n128, 4 k-steps), its rows reduced one by one from
// the stage (512 bytes a row). lse and delta arrive by 4-byte cp.async with
// Q and dO. Shared memory: K and V (32 KB), two query stages of 34 KB (Q
// and dO, 32 KB, or dQ's stage of 64 rows of 136 f32), dS (8 KB), two
// stages' lse and delta (1 KB) and 1 KB of slack: 112640 bytes, two blocks
// per SM.
// CHECK-LABEL: func.func @attention_backward_d128
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]]_1 blocks in (%c16, %{{.*}}) threads in (%c128{{[_0-9]*}}, %{{.*}}) dynamic_shared_memory_size %c112640_i32
// CHECK: gpu.func @attention_backward_[[N]]_1(
// CHECK: scf.for
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvgpu.device_async_copy {{.*}}, 1, %{{.*}} : memref<{{[0-9]+}}xf32> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-32: vector.store {{.*}} : memref<8704xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;"
// CHECK: gpu.return
func.func @attention_backward_d128(%do: tensor<2x4x200x128xbf16>,
    %q: tensor<2x4x200x128xbf16>, %k: tensor<2x2x256x128xbf16>,
    %v: tensor<2x2x256x128xbf16>, %o: tensor<2x4x200x128xbf16>,
    %lse: tensor<2x4x200xf32>)
    -> (tensor<2x4x200x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x2x256x128xbf16>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse
      : tensor<2x4x200x128xbf16>, tensor<2x4x200x128xbf16>, tensor<2x2x256x128xbf16>,
        tensor<2x2x256x128xbf16>, tensor<2x4x200x128xbf16>, tensor<2x4x200xf32>
      -> tensor<2x4x200x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x2x256x128xbf16>
  return %dq, %dk, %dv : tensor<2x4x200x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x2x256x128xbf16>
}

// -----

// f32 attention keeps its reference form: the products are cuBLASLt matmuls.
// CHECK-LABEL: func.func @attention_backward_f32
// CHECK-NOT: @attention_backward_{{[0-9]+}}_1
// CHECK: gpu.launch_func @sinter_kernels::@batch_matmul_
// CHECK: return
func.func @attention_backward_f32(%do: tensor<1x2x64x64xf32>,
    %q: tensor<1x2x64x64xf32>, %k: tensor<1x2x64x64xf32>,
    %v: tensor<1x2x64x64xf32>, %o: tensor<1x2x64x64xf32>,
    %lse: tensor<1x2x64xf32>)
    -> (tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse
      : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>,
        tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64xf32>
      -> tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>
  return %dq, %dk, %dv : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>
}

// -----

// `deterministic`: no accumulator and no atomics. Prepare writes delta only,
// the key-tile kernel dK and dV, and a query-tile kernel (one block per 64
// queries: 2 x 4 x 2 = 16 blocks) sums dQ in registers.
// CHECK-LABEL: func.func @attention_backward_deterministic
// CHECK-NOT: memref<2x4x100x64xf32>
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]] {{.*}} args({{.*}}, %{{.*}} : memref<2x4x100xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_1 {{.*}} args({{.*}} : memref<2x4x100xf32>, %{{.*}} : memref<2x2x128x64xbf16>, %{{.*}} : memref<2x2x128x64xbf16>)
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_2 blocks in (%[[C16]], {{.*}} args({{.*}} : memref<2x4x100xf32>, %{{.*}} : memref<2x4x100x64xbf16>)
// CHECK: gpu.func @attention_backward_[[N]]_1(
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
// CHECK: gpu.func @attention_backward_[[N]]_2(
// CHECK-NOT: memref.atomic_rmw
// CHECK: scf.for
// CHECK: nvvm.mma.sync
// CHECK: gpu.return
func.func @attention_backward_deterministic(%do: tensor<2x4x100x64xbf16>,
    %q: tensor<2x4x100x64xbf16>, %k: tensor<2x2x128x64xbf16>,
    %v: tensor<2x2x128x64xbf16>, %o: tensor<2x4x100x64xbf16>,
    %lse: tensor<2x4x100xf32>)
    -> (tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse {causal, deterministic}
      : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
}

// -----

// An additive mask without a gradient (HF's padding mask, [B, 1, Sq, Skv]):
// the key-tile kernel reads it in place, after delta.
// CHECK-LABEL: func.func @attention_backward_mask
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]]_1 {{.*}} args({{.*}} : memref<2x4x100xf32>, %{{.*}} : memref<2x1x100x128xbf16>, %{{.*}} : memref<2x4x100x64xf32>,
func.func @attention_backward_mask(%do: tensor<2x4x100x64xbf16>,
    %q: tensor<2x4x100x64xbf16>, %k: tensor<2x4x128x64xbf16>,
    %v: tensor<2x4x128x64xbf16>, %o: tensor<2x4x100x64xbf16>,
    %lse: tensor<2x4x100xf32>, %m: tensor<2x1x100x128xbf16>)
    -> (tensor<2x4x100x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse mask(%m : tensor<2x1x100x128xbf16>)
      : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x128x64xbf16>,
        tensor<2x4x128x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>
}

// -----

// Dropout: the seed follows delta; the key-tile kernel regenerates the
// forward's keep mask (Attention/BackwardDropout.cpp). With Skv % 8 == 0
// each lane draws one Philox call (8 keys of one query) per pair of query
// n-tiles, stores its four words into its warp's stage and reads the
// words of its fragment rows back with one transposed ldmatrix.x4; dV
// takes 1 / (1 - p) = 1.25 once, on its store.
// CHECK-LABEL: func.func @attention_backward_dropout
// CHECK: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]]_1 {{.*}} args({{.*}} : memref<2x4x100xf32>, %{{.*}} : memref<i64>, %{{.*}} : memref<2x4x100x64xf32>,
// CHECK: gpu.func @attention_backward_[[N]]_1(
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: nvvm.bar.warp.sync
// CHECK: vector.store %{{.*}} : memref<512xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: arith.cmpi uge, %{{.*}}, %c858980352_i32
// CHECK: gpu.return
func.func @attention_backward_dropout(%do: tensor<2x4x100x64xbf16>,
    %q: tensor<2x4x100x64xbf16>, %k: tensor<2x2x128x64xbf16>,
    %v: tensor<2x2x128x64xbf16>, %o: tensor<2x4x100x64xbf16>,
    %lse: tensor<2x4x100xf32>, %state: tensor<i64>)
    -> (tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>) {
  // (The seed read from a 0-d tensor, as torch-mlir's generator state: the
  // launch passes the tensor.)
  %seed = tensor.extract %state[] : tensor<i64>
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse seed(%seed) {causal, dropout_p = 2.0e-01 : f64}
      : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
}

// -----

// `deterministic` with dropout: the query-tile kernel's fragments have the
// queries as rows, so its ldmatrix of the draws is not transposed; Skv = 130
// (not a multiple of 8) takes one Philox call per score instead.
// CHECK-LABEL: func.func @attention_backward_dropout_deterministic
// CHECK: gpu.func @attention_backward_[[N:[0-9]+]]_2(
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x16xf16
// CHECK: gpu.func @attention_backward_[[M:[0-9]+]]_1(
// CHECK-NOT: nvgpu.ldmatrix %{{.*}} : memref<64x16xf16
// CHECK: gpu.return
// CHECK: gpu.func @attention_backward_[[M]]_2(
// CHECK-NOT: nvgpu.ldmatrix %{{.*}} : memref<64x16xf16
// CHECK: gpu.return
func.func @attention_backward_dropout_deterministic(%do: tensor<2x4x100x64xbf16>,
    %q: tensor<2x4x100x64xbf16>, %k: tensor<2x2x128x64xbf16>,
    %v: tensor<2x2x128x64xbf16>, %o: tensor<2x4x100x64xbf16>,
    %lse: tensor<2x4x100xf32>, %seed: i64,
    %do2: tensor<1x2x77x64xbf16>, %q2: tensor<1x2x77x64xbf16>,
    %k2: tensor<1x2x130x64xbf16>, %v2: tensor<1x2x130x64xbf16>,
    %o2: tensor<1x2x77x64xbf16>, %lse2: tensor<1x2x77xf32>)
    -> (tensor<2x4x100x64xbf16>, tensor<1x2x77x64xbf16>) {
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse seed(%seed) {deterministic, dropout_p = 2.0e-01 : f64}
      : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  %dq2, %dk2, %dv2 = sinter.attention_backward %do2, %q2, %k2, %v2, %o2, %lse2 seed(%seed) {deterministic, dropout_p = 2.0e-01 : f64}
      : tensor<1x2x77x64xbf16>, tensor<1x2x77x64xbf16>, tensor<1x2x130x64xbf16>,
        tensor<1x2x130x64xbf16>, tensor<1x2x77x64xbf16>, tensor<1x2x77xf32>
      -> tensor<1x2x77x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>
  return %dq, %dq2 : tensor<2x4x100x64xbf16>, tensor<1x2x77x64xbf16>
}
