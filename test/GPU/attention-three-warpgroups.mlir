// Warp specialization with three consumer warpgroups (`ws,warps=12`,
// sm_90a): FlashAttention-3's shape for head dim 64. 192 query rows per
// block (three wgmma warpgroups of 64) beside the TMA producer warpgroup,
// 512 threads. The kernel starts at 128 registers (512 threads fill the
// register file); the producer drops to 24 and the consumers take 160.
// Each K/V "empty" barrier expects one arrival per consumer warpgroup (3);
// ping-pong passes the turn through named barriers 1-3, and with
// `tmastore` each warpgroup meets its stores at barrier 4, 5 or 6.
// Wider key tiles and head dim 128 do not fit 160 registers: rejected
// with the reason.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=12,mtiles=1,bn=128" | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa attention-config=wgmma,pipe,mbar,ws,warps=12,mtiles=1,bn=128" | FileCheck %s --check-prefix=PTX
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,ws,warps=12,mtiles=1,bn=192" 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,ws,warps=8,mtiles=1,bn=128,maxregs=200" 2>&1 | FileCheck %s --check-prefix=MAXREGS
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,ws,warp=8" 2>&1 | FileCheck %s --check-prefix=TOKEN

// Q's map has 192-row boxes, K's and V's 128; O's 64 (one warpgroup's
// rows). Two row tiles of 192 cover the 300 queries (the second is
// ragged): 2 x 4 x 2 = 16 blocks. Shared memory: Q 192 x 64 + two stages
// of K and V 128 x 64, bf16, + 1 KB of alignment slack + the mbarriers
// = 91264 bytes.
// CHECK-LABEL: func.func @ragged_d64
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c192{{.*}}, %c64{{.*}}]
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c128{{.*}}, %c64{{.*}}]
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c128{{.*}}, %c64{{.*}}]
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c64{{.*}}, %c64{{.*}}]
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%c16, {{.*}}) threads in (%c512, {{.*}}) dynamic_shared_memory_size %c91264_i32
// CHECK: gpu.func @attention_0
// CHECK-SAME: nvvm.maxnreg = 128
// CHECK-COUNT-4: mbarrier.init.shared.b64 [$0], $1;", "r,r,~{memory}" %{{.*}}, %c1_i32
// CHECK-COUNT-4: mbarrier.init.shared.b64 [$0], $1;", "r,r,~{memory}" %{{.*}}, %c3_i32
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.setmaxregister increase 160
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c1_i32{{[_0-9]*}}, %c256_i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c2_i32{{[_0-9]*}}, %c256_i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%c3_i32{{[_0-9]*}}, %c256_i32
// CHECK: nvvm.barrier id = %c4_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK: nvvm.barrier id = %c5_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK: nvvm.barrier id = %c6_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group

// PTX: .maxnreg 128
// PTX: setmaxnreg.dec.sync.aligned.u32 \0924;
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 \09160;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16

// WIDE: attention-config 'wgmma,pipe,mbar,ws,warps=12,mtiles=1,bn=192' cannot run this op on the tensor cores: the tile shape needs more than 160 registers per thread
// MAXREGS: bad attention-config 'wgmma,pipe,mbar,ws,warps=8,mtiles=1,bn=128,maxregs=200': maxregs does not combine with ws
// TOKEN: bad attention-config 'wgmma,pipe,mbar,ws,warp=8': 'warp=8' is neither a form (cuda-cores, wgmma, pipe, mbar, pp, ws, persist, tmastore) nor warps=, mtiles=, bn=, maxregs= with a number

func.func @ragged_d64(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x333x64xbf16>,
                      %v: tensor<2x4x333x64xbf16>) -> tensor<2x4x300x64xbf16> {
  %o = sinter.attention %q, %k, %v : tensor<2x4x300x64xbf16>, tensor<2x4x333x64xbf16>, tensor<2x4x333x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
