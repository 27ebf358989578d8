// The two-stage wgmma attention schedule (`pipe` configurations, sm_90a):
// the prologue computes tile 0's S and softmax; each loop iteration waits
// for K[t] and V[t-1] (one barrier), starts the copies of V[t] and K[t+1]
// into the other stage, issues S[t] = Q K[t]^T and then O += P[t-1] V[t-1],
// waits for S only (wait_group 1) to run tile t's softmax while P V is in
// flight, then for P V (wait_group 0); the epilogue adds the last P V.
// Three warpgroups (192 rows) copy 64-row K/V tiles in 24-row passes: the
// last pass is partial and guarded.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,warps=12,mtiles=1,bn=64,maxregs=168" | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa attention-config=wgmma,pipe,warps=8,mtiles=1,bn=128" | FileCheck %s --check-prefix=PTX
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=pipe,warps=4,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=NOWG
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,warps=8,mtiles=1,bn=64" | FileCheck %s --check-prefix=MBAR
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,mbar,warps=8,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=NOPIPE
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,warps=4,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=ONEWG

// Shared memory: Q (192 x 128) + two stages of K and V (64 x 128 each),
// bf16, + 1 KB of alignment slack = 115712 bytes.
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c115712_i32
// CHECK: gpu.func @attention_0
// CHECK-SAME: nvvm.maxnreg = 168
// Prologue, when the block sees any key: Q, K[0], V[0] (and K[1]) copied.
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// The partial last pass of a 64-row tile copy.
// CHECK: arith.cmpi ult, %{{.*}}, %c64
// CHECK-NEXT: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0;
// Steady state, from tile 1.
// CHECK: scf.for %{{.*}} = %c1
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: ex2.approx.ftz.f32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: scf.yield
// Epilogue: the last tile's P V.
// CHECK: scf.if
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: wgmma.wait_group.sync.aligned 0;

// PTX: .maxntid 256, 1, 1
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: ex2.approx
// PTX: wgmma.wait_group.sync.aligned 0;

// NOWG: bad attention-config 'pipe,warps=4,mtiles=1,bn=64'
// NOPIPE: bad attention-config 'wgmma,mbar,warps=8,mtiles=1,bn=64'
// ONEWG: bad attention-config 'wgmma,pipe,mbar,pp,warps=4,mtiles=1,bn=64'

// `mbar`: eight mbarriers (full/empty x K/V x 2 stages, 64 bytes after the
// tiles: 128x128 + 4 x 64x128 bf16 + 1024 + 64 = 99392 bytes), armed for
// all 256 threads by thread 0; copies arrive on them when they land, and
// the loop waits on them instead of a block-wide barrier. `pp`: warpgroup
// w issues its GEMMs between bar.sync (1+w) and bar.arrive (2+w mod 2);
// the last warpgroup opens the first turn, warpgroup 0 closes the last.
// MBAR: dynamic_shared_memory_size %c99392_i32
// MBAR: mbarrier.init.shared.b64 [$0], $1;{{.*}}%c256_i32
// MBAR: nvvm.fence.mbarrier.init
// MBAR: gpu.barrier
// MBAR: cp.async.mbarrier.arrive.noinc.shared.b64
// MBAR: wgmma.wait_group.sync.aligned 0;
// MBAR: mbarrier.arrive.shared.b64
// MBAR: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c1_i32{{[_0-9]*}}, %c256_i32
// MBAR: scf.for
// MBAR-NOT: gpu.barrier
// MBAR: mbarrier.try_wait.parity.shared.b64
// MBAR: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// MBAR: cp.async.mbarrier.arrive.noinc.shared.b64
// MBAR: nvvm.barrier id = %c1_i32{{[_0-9]*}} number_of_threads = %c256_i32
// MBAR: nvvm.barrier id = %c2_i32{{[_0-9]*}} number_of_threads = %c256_i32
// MBAR: wgmma.mma_async.sync.aligned.m64n64k16
// MBAR: wgmma.mma_async.sync.aligned.m64n128k16
// MBAR: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c1_i32{{[_0-9]*}}, %c256_i32
// MBAR: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c2_i32{{[_0-9]*}}, %c256_i32
// MBAR: wgmma.wait_group.sync.aligned 1;
// MBAR: mbarrier.arrive.shared.b64
// MBAR: wgmma.wait_group.sync.aligned 0;
// MBAR: mbarrier.arrive.shared.b64
// MBAR: scf.yield
// MBAR: nvvm.barrier id = %c1_i32{{[_0-9]*}} number_of_threads = %c256_i32
// MBAR: mbarrier.try_wait.parity.shared.b64
// MBAR: wgmma.wait_group.sync.aligned 0;

func.func @causal_d128(%q: tensor<1x2x200x128xbf16>, %k: tensor<1x2x200x128xbf16>,
                       %v: tensor<1x2x200x128xbf16>) -> tensor<1x2x200x128xbf16> {
  %o = sinter.attention %q, %k, %v {causal} : tensor<1x2x200x128xbf16>,
      tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16> -> tensor<1x2x200x128xbf16>
  return %o : tensor<1x2x200x128xbf16>
}
