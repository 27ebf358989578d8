// The tensor-core attention kernels: which attention runs on them, their
// PTX (sm_80: cp.async tiles, ldmatrix + mma.sync; sm_90a: TMA tiles,
// wgmma with shared-memory descriptors and P from registers), the shipped tile table
// and its override, and the fallbacks.
//
// RUN: sinter-opt %s --split-input-file --sinter-outline-cuda-kernels | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="chip=sm_80" | FileCheck %s --check-prefix=MMA
// RUN: sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="chip=sm_75" | FileCheck %s --check-prefix=SM75
// RUN: sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="attention-config=warps=8,mtiles=1,bn=32" | FileCheck %s --check-prefix=CFG
// RUN: sinter-opt %s --split-input-file --sinter-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: sinter-opt %s --split-input-file --sinter-lower-to-nvvm="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: not sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="attention-config=warps=3" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="attention-config=warps=4,mtiles=2,bn=128" 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: not sinter-opt %s --split-input-file --sinter-outline-cuda-kernels="chip=sm_90 attention-config=wgmma,warps=4,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=NOTA

// bf16, head dim 128, causal, 200 keys. sm_90a: the table's entry (two
// consumer warpgroups of 64 query rows and a TMA producer warpgroup, 128
// keys per tile, two K/V stages, O stored with TMA;
// attention-warp-specialized.mlir checks the schedule) in dynamic shared
// memory with 1024 bytes of slack for the 128-byte swizzle alignment. The
// tuner found the same tiles best at 1024 keys, so the table has no
// shorter-sequence entry for this shape (@causal_d128_long below gets the
// same kernel; non-causal @d128_short at the end does get one).
// CHECK-LABEL: func.func @causal_d128
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%{{.*}}) threads in (%{{.*}}) dynamic_shared_memory_size %{{.*}} args
// CHECK: gpu.func @attention_0
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: gpu.dynamic_shared_memory
// CHECK: mbarrier.init
// CHECK: cp.async.bulk.tensor
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: wgmma.fence.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// sm_80: the table's mma.sync tiles (4 warps of 32 rows, 64 keys per tile).
// MMA: gpu.func @attention_0
// MMA-SAME: known_block_size = array<i32: 128, 1, 1>
// MMA: nvgpu.device_async_copy
// MMA: scf.for
// MMA: nvgpu.ldmatrix {{.*}}transpose = false
// MMA: nvvm.mma.sync
// MMA: nvgpu.ldmatrix {{.*}}transpose = true
// SM75-LABEL: func.func @causal_d128
// SM75-NOT: nvgpu.ldmatrix
// SM75: gpu.func @attention_0
// SM75-NOT: nvvm.mma.sync
// CFG: gpu.func @attention_0
// CFG-SAME: known_block_size = array<i32: 256, 1, 1>
// PTX: .entry attention_0
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 \09240
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.commit_group.sync.aligned
// PTX-DAG: ex2.approx
// SM80: .target sm_80
// SM80-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// SM80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BAD: bad attention-config 'warps=3'
// TOOBIG: the tile shape needs more than 240 registers per thread
// NOTA: wgmma needs sm_90a
func.func @causal_d128(%q: tensor<1x2x200x128xbf16>, %k: tensor<1x2x200x128xbf16>,
                       %v: tensor<1x2x200x128xbf16>) -> tensor<1x2x200x128xbf16> {
  %o = sinter.attention %q, %k, %v {causal} : tensor<1x2x200x128xbf16>,
      tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16> -> tensor<1x2x200x128xbf16>
  return %o : tensor<1x2x200x128xbf16>
}

// -----

// f16 with GQA: tensor cores, f16 operands.
// PTX: .entry attention_0
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.f16.f16
// SM80: .entry attention_0
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @gqa_f16(%q: tensor<1x8x64x64xf16>, %k: tensor<1x2x64x64xf16>,
                   %v: tensor<1x2x64x64xf16>) -> tensor<1x8x64x64xf16> {
  %o = sinter.attention %q, %k, %v : tensor<1x8x64x64xf16>,
      tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x8x64x64xf16>
  return %o : tensor<1x8x64x64xf16>
}

// -----

// f32 stays exact on CUDA cores; so does a head dim that is not a multiple
// of 16.
// CHECK-LABEL: func.func @f32_and_odd_dims
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.func @attention_0
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.func @attention_1
// CHECK-NOT: nvvm.mma.sync
func.func @f32_and_odd_dims(%q: tensor<1x2x64x64xf32>, %q2: tensor<1x2x64x40xbf16>)
    -> (tensor<1x2x64x64xf32>, tensor<1x2x64x40xbf16>) {
  %o = sinter.attention %q, %q, %q : tensor<1x2x64x64xf32>,
      tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  %o2 = sinter.attention %q2, %q2, %q2 : tensor<1x2x64x40xbf16>,
      tensor<1x2x64x40xbf16>, tensor<1x2x64x40xbf16> -> tensor<1x2x64x40xbf16>
  return %o, %o2 : tensor<1x2x64x64xf32>, tensor<1x2x64x40xbf16>
}

// -----

// The same op over 2048 keys: the table's entry for any length (the same
// warp-specialized kernel as for 200 keys).
// CHECK-LABEL: func.func @causal_d128_long
// CHECK: gpu.func @attention_0
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: mbarrier.init.shared.b64
// CHECK: scf.for
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
func.func @causal_d128_long(%q: tensor<1x2x2048x128xbf16>,
                            %k: tensor<1x2x2048x128xbf16>,
                            %v: tensor<1x2x2048x128xbf16>)
    -> tensor<1x2x2048x128xbf16> {
  %o = sinter.attention %q, %k, %v {causal} : tensor<1x2x2048x128xbf16>,
      tensor<1x2x2048x128xbf16>, tensor<1x2x2048x128xbf16>
      -> tensor<1x2x2048x128xbf16>
  return %o : tensor<1x2x2048x128xbf16>
}

// -----

// Non-causal, head dim 128: up to 1024 keys the table's short-sequence
// entry (persistent blocks, at most one per SM, with O through a shared
// tile of its own: 164992 + 32768 bytes), longer sequences the general
// one (a block per 128 query rows, O through the Q tile).
// CHECK-LABEL: func.func @d128_short
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%c132, %{{.*}}, %{{.*}}) threads in (%c384, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c197760_i32
// CHECK-LABEL: func.func @d128_long
// CHECK: gpu.launch_func @sinter_kernels::@attention_1 blocks in (%c32, %{{.*}}, %{{.*}}) threads in (%c384, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c164992_i32
func.func @d128_short(%q: tensor<2x16x1024x128xbf16>,
                      %k: tensor<2x16x1024x128xbf16>,
                      %v: tensor<2x16x1024x128xbf16>)
    -> tensor<2x16x1024x128xbf16> {
  %o = sinter.attention %q, %k, %v : tensor<2x16x1024x128xbf16>,
      tensor<2x16x1024x128xbf16>, tensor<2x16x1024x128xbf16>
      -> tensor<2x16x1024x128xbf16>
  return %o : tensor<2x16x1024x128xbf16>
}
func.func @d128_long(%q: tensor<1x2x2048x128xbf16>,
                     %k: tensor<1x2x2048x128xbf16>,
                     %v: tensor<1x2x2048x128xbf16>)
    -> tensor<1x2x2048x128xbf16> {
  %o = sinter.attention %q, %k, %v : tensor<1x2x2048x128xbf16>,
      tensor<1x2x2048x128xbf16>, tensor<1x2x2048x128xbf16>
      -> tensor<1x2x2048x128xbf16>
  return %o : tensor<1x2x2048x128xbf16>
}
