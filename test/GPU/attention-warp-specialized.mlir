// Warp-specialized wgmma attention (`ws`, sm_90a): a producer warpgroup
// (threads 256-383 beside two consumer warpgroups) loads Q, K and V with the
// Tensor Memory Accelerator. The host encodes one tensor map per operand
// (box = one 64-column, 128-byte-swizzled panel of a tile's rows; rows past
// the sequence read as zeros) and passes it by value; the kernel names the
// parameters in sinter.tensor_map_params and starts at 168 registers (384
// threads); the producer gives registers away (setmaxnreg 24), one thread
// arms the full barriers with the tile's bytes and issues the copies, and
// waits for the consumers to release a stage before refilling it (one
// arrival per consumer warpgroup); the consumers take 240 registers and
// never load. With `tmastore` they store O the same way: each warpgroup
// writes its 64 rows of O into its (swizzled) rows of the Q tile, meets at
// its own named barrier, and one thread stores the panels through O's map.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=8,mtiles=1,bn=128" | FileCheck %s
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=8,mtiles=1,bn=128" | FileCheck %s --check-prefix=PTX
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,ws,warps=4,mtiles=1,bn=176" | FileCheck %s --check-prefix=ONEWG
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,ws,persist,warps=8,mtiles=1,bn=128 sm-count=3" | FileCheck %s --check-prefix=PERSIST
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,persist,warps=8,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=NOWS
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,ws,warps=8,mtiles=1,bn=64" 2>&1 | FileCheck %s --check-prefix=NOMBAR
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,ws,warps=12,mtiles=1,bn=128" 2>&1 | FileCheck %s --check-prefix=TOOMANY
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=warps=4,mtiles=1,bn=176" 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,ws,persist,tmastore,warps=8,mtiles=1,bn=128 sm-count=3" | FileCheck %s --check-prefix=PERSISTTMA
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,tmastore,warps=8,mtiles=1,bn=128" 2>&1 | FileCheck %s --check-prefix=TMANOWS
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a --attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=8,mtiles=1,bn=128 -o %t --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// Host: Q's map has 128-row boxes (the block's rows), K's and V's the key
// tile's; Q (128 x 128) + two stages of K and V (128 x 128) bf16 + 1 KB of
// alignment slack + 9 mbarriers (128 bytes) = 164992 bytes.
// CHECK-LABEL: func.func @ragged_gqa
// CHECK: %[[QC:.*]] = memref.cast %{{.*}} : memref<2x4x300x128xbf16> to memref<*xbf16>
// CHECK: %[[QD:.*]] = nvgpu.tma.create.descriptor %[[QC]] box[%c1{{.*}}, %c1{{.*}}, %c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK: %[[QP:.*]] = builtin.unrealized_conversion_cast %[[QD]] {{.*}} to !llvm.ptr
// CHECK: memref.cast %{{.*}} : memref<2x2x333x128xbf16> to memref<*xbf16>
// CHECK: nvgpu.tma.create.descriptor
// CHECK: nvgpu.tma.create.descriptor
// CHECK: %[[OC:.*]] = memref.cast %alloc : memref<2x4x300x128xbf16> to memref<*xbf16>
// CHECK: nvgpu.tma.create.descriptor %[[OC]] box[%c1{{.*}}, %c1{{.*}}, %c64{{.*}}, %c64{{.*}}]
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%c24, %{{.*}}, %{{.*}}) threads in (%c384, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c164992_i32 args({{.*}}, %[[QP]] : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)

// CHECK: gpu.func @attention_0({{.*}}, %[[QM:.*]]: !llvm.ptr, %[[KM:.*]]: !llvm.ptr, %[[VM:.*]]: !llvm.ptr, %[[OM:.*]]: !llvm.ptr)
// CHECK-SAME: nvvm.maxnreg = 168
// CHECK-SAME: sinter.tensor_map_params = array<i64: 4, 5, 6, 7>
// CHECK-NOT: nvgpu.device_async_copy
// The warpgroup index goes through shfl.sync (ptxas then knows it is
// warp-uniform: descriptors and branches stay on the uniform datapath);
// warpgroup 2 is the producer.
// CHECK: llvm.inline_asm has_side_effects "shfl.sync.idx.b32 $0, $1, 0, 0x1f, -1;"
// Full barriers take the producer's one arrival, empty ones one per
// consumer warpgroup.
// CHECK: mbarrier.init.shared.b64 [$0], $1;{{.*}}%c1_i32
// CHECK: mbarrier.init.shared.b64 [$0], $1;{{.*}}%c2_i32
// CHECK: gpu.barrier
// CHECK: arith.cmpi uge, %{{.*}}, %c2
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: prefetch.tensormap
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 {{.*}}[$0], $1;{{.*}}%c32768_i32
// CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}} %[[QM]], %c0_i32
// CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}} %[[QM]], %c64_i32
// CHECK: scf.for
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.arrive.expect_tx
// CHECK: cp.async.bulk.tensor.4d{{.*}} %[[KM]]
// CHECK: cp.async.bulk.tensor.4d{{.*}} %[[KM]]
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.arrive.expect_tx
// CHECK: cp.async.bulk.tensor.4d{{.*}} %[[VM]]
// CHECK: cp.async.bulk.tensor.4d{{.*}} %[[VM]]
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 240
// CHECK-NOT: cp.async
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: cp.async
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c3_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK: nvvm.barrier id = %c4_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group {{.*}} %[[OM]], %c0_i32
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group {{.*}} %[[OM]], %c64_i32
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: gpu.return

// PTX: .param .align 64 .b8 attention_0_param_4[128],
// PTX: .param .align 64 .b8 attention_0_param_5[128],
// PTX: .param .align 64 .b8 attention_0_param_6[128],
// PTX: .param .align 64 .b8 attention_0_param_7[128]
// PTX: .maxnreg 168
// PTX: cvta.param.u64
// PTX: setmaxnreg.dec.sync.aligned.u32 \0924;
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 \09240;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group

// One consumer warpgroup: 256 threads, no register hand-over; 176-key
// tiles (a ragged last tile: 333 keys) make 176-row boxes and 45056-byte
// transactions.
// ONEWG: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c64{{.*}}, %c64{{.*}}]
// ONEWG: nvgpu.tma.create.descriptor {{.*}} box[%c1{{.*}}, %c1{{.*}}, %c176{{.*}}, %c64{{.*}}]
// ONEWG: threads in (%c256,
// ONEWG: gpu.func @attention_0
// ONEWG-NOT: nvvm.maxnreg
// ONEWG-NOT: setmaxnreg
// ONEWG: mbarrier.arrive.expect_tx.shared::cta.b64 {{.*}}[$0], $1;{{.*}}%c45056_i32
// ONEWG: wgmma.mma_async.sync.aligned.m64n176k16
// Without `tmastore` O is stored from registers.
// ONEWG-NOT: bulk_group
// ONEWG: vector.store {{.*}} : memref<{{.*}}xbf16>, vector<2xbf16>
// ONEWG-NOT: bulk_group
// ONEWG: gpu.return

// `persist`: 24 work items (2 x 4 heads x 3 query tiles) on a grid of 3
// (sm-count=3); producer and consumers loop over the items blockIdx.x,
// + gridDim.x, ... counting items and key tiles (for Q's barriers and the
// K/V stages' phases); Q's empty barrier (one arrival per consumer
// warpgroup) lets the producer load the next item's Q once the item's S
// GEMMs are done, and the consumers release the last V stage of each item.
// The Q tile is the next item's, so O is stored from registers (no map).
// PERSIST: gpu.launch_func @sinter_kernels::@attention_0 blocks in (%c3,
// PERSIST: sinter.tensor_map_params = array<i64: 4, 5, 6>}
// PERSIST: mbarrier.init.shared.b64 [$0], $1;{{.*}}%c1_i32
// PERSIST: mbarrier.init.shared.b64 [$0], $1;{{.*}}%c2_i32
// PERSIST: nvvm.fence.mbarrier.init
// PERSIST: nvvm.setmaxregister decrease 24
// PERSIST: scf.for %{{.*}} = %block_id_x to %c24 step %grid_dim_x iter_args(%[[J:.*]] = %c0{{.*}}, %[[BASE:.*]] = %c0{{.*}}) -> (index, index)
// PERSIST: arith.cmpi uge, %[[J]], %c1
// PERSIST: mbarrier.try_wait.parity
// PERSIST: cp.async.bulk.tensor.4d
// PERSIST: scf.for
// PERSIST: arith.addi %[[BASE]], %{{.*}} : index
// PERSIST: cp.async.bulk.tensor.4d
// PERSIST: scf.yield %{{.*}}, %{{.*}} : index, index
// PERSIST: nvvm.setmaxregister increase 240
// PERSIST: scf.for %{{.*}} = %block_id_x to %c24 step %grid_dim_x iter_args
// PERSIST: mbarrier.try_wait.parity
// PERSIST: wgmma.mma_async.sync.aligned.m64n128k16
// PERSIST: mbarrier.arrive.shared.b64
// PERSIST: scf.for
// PERSIST: wgmma.wait_group.sync.aligned 0;
// PERSIST: mbarrier.arrive.shared.b64
// PERSIST: scf.yield %{{.*}}, %{{.*}} : index, index
// PERSIST-NEXT: }
// PERSIST-NEXT: }
// PERSIST-NEXT: gpu.return
// `persist` with `tmastore`: O gets a tile of its own after V's stages
// (164992 + 32768 bytes; the Q tile holds the next item's rows); each
// warpgroup's leader waits for the last item's stores to have read it
// before the warpgroup writes the next item's O, and once more after the
// last item.
// PERSISTTMA: dynamic_shared_memory_size %c197760_i32
// PERSISTTMA: sinter.tensor_map_params = array<i64: 4, 5, 6, 7>}
// PERSISTTMA: nvvm.setmaxregister increase 240
// PERSISTTMA: scf.for %{{.*}} = %block_id_x to %c24 step %grid_dim_x iter_args
// PERSISTTMA: nvvm.cp.async.bulk.wait_group 0 {read}
// PERSISTTMA: nvvm.barrier id = %c3_i32{{[_0-9]*}} number_of_threads = %c128_i32
// PERSISTTMA: nvvm.barrier id = %c4_i32{{[_0-9]*}} number_of_threads = %c128_i32
// PERSISTTMA: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// PERSISTTMA: nvvm.barrier id = %c3_i32{{[_0-9]*}} number_of_threads = %c128_i32
// PERSISTTMA: nvvm.barrier id = %c4_i32{{[_0-9]*}} number_of_threads = %c128_i32
// PERSISTTMA: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// PERSISTTMA: nvvm.cp.async.bulk.commit.group
// PERSISTTMA-NOT: wait_group 0 {read}
// PERSISTTMA: scf.yield %{{.*}}, %{{.*}} : index, index
// PERSISTTMA-NEXT: }
// PERSISTTMA: nvvm.cp.async.bulk.wait_group 0 {read}
// PERSISTTMA: gpu.return
// NOWS: bad attention-config 'wgmma,pipe,mbar,persist,warps=8,mtiles=1,bn=64': persist needs ws
// NOMBAR: bad attention-config 'wgmma,pipe,ws,warps=8,mtiles=1,bn=64': ws needs mbar
// TOOMANY: attention-config 'wgmma,pipe,mbar,ws,warps=12,mtiles=1,bn=128' cannot run this op on the tensor cores: the tile shape needs more than 160 registers per thread
// WIDE: bad attention-config 'warps=4,mtiles=1,bn=176'
// TMANOWS: bad attention-config 'wgmma,pipe,mbar,pp,tmastore,warps=8,mtiles=1,bn=128': tmastore needs ws

// The manifest (format 4) passes each tensor map with its buffer, shape
// and box, outermost first.
// MANIFEST: "format_version": 6,
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST-NOT: format_version
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "arg": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "dtype": "bfloat16",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 4,
// MANIFEST-NEXT: 300,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "swizzle": "128B",
// MANIFEST-NEXT: "l2_promotion": "256B",
// MANIFEST-NEXT: "oob_fill": "zero",
// MANIFEST-NEXT: "interleave": "none"
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "arg": 1
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "arg": 2
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "arg": 3
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "dtype": "bfloat16",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 4,
// MANIFEST-NEXT: 300,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64

func.func @ragged_gqa(%q: tensor<2x4x300x128xbf16>, %k: tensor<2x2x333x128xbf16>,
                      %v: tensor<2x2x333x128xbf16>) -> tensor<2x4x300x128xbf16> {
  %o = sinter.attention %q, %k, %v {causal} : tensor<2x4x300x128xbf16>,
      tensor<2x2x333x128xbf16>, tensor<2x2x333x128xbf16> -> tensor<2x4x300x128xbf16>
  return %o : tensor<2x4x300x128xbf16>
}
