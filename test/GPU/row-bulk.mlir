// Softmax/norm rows through Hopper bulk copies (option row-bulk /
// row-bulk-stages of sinter-outline-cuda-kernels and sinter-lower-to-nvvm,
// sinterc --cuda-row-bulk / --cuda-row-bulk-stages). One thread loads a
// whole row group into shared memory with cp.async.bulk, completing an
// mbarrier (arrive.expect_tx first); every thread waits for the phase and
// reads its vectors from shared memory. 2 and 4 write the results back to
// shared memory and out with a bulk store; 3 and 4 are persistent, with
// row-bulk-stages groups loading ahead. Rows whose bytes are not a multiple
// of 16, and chips before sm_90, keep the register kernel (a remark). The
// default (0) leaves the kernels as they were. No GPU needed; the
// artifacts go through ptxas.

// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s --check-prefix=OFF --implicit-check-not=dynamic_shared_memory --implicit-check-not=llvm.inline_asm
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-bulk=1" 2>&1 | FileCheck %s --check-prefix=IR1
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-bulk=4 row-bulk-stages=3" 2>/dev/null | FileCheck %s --check-prefix=IR4
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-bulk=3 row-bulk-stages=4 persistent-ctas=8" 2>/dev/null | FileCheck %s --check-prefix=FIT

// The PTX (sinterc) of each form.
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-bulk=1 | FileCheck %s --check-prefix=PTX1
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-bulk=2 | FileCheck %s --check-prefix=PTX2
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-bulk=3 --cuda-row-bulk-stages=3 | FileCheck %s --check-prefix=PTX3
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-bulk=4 | FileCheck %s --check-prefix=PTX4
// Before sm_90: the register kernels, and a remark per op.
// RUN: sinterc %s --target=cuda:sm_80 --emit=ptx -o - --quiet --cuda-row-bulk=3 --remarks 2>&1 | FileCheck %s --check-prefix=SM80 --implicit-check-not=cp.async.bulk --implicit-check-not=mbarrier

// Every form assembles (ptxas) for sm_90a; the manifest asks for the
// dynamic shared memory.
// RUN: rm -rf %t
// RUN: sinterc %s --target=cuda:sm_90a -o %t/b1 --quiet --cuda-row-bulk=1
// RUN: test -s %t/b1/kernels.cubin
// RUN: sinterc %s --target=cuda:sm_90a -o %t/b2 --quiet --cuda-row-bulk=2
// RUN: test -s %t/b2/kernels.cubin
// RUN: sinterc %s --target=cuda:sm_90a -o %t/b3 --quiet --cuda-row-bulk=3 --cuda-row-bulk-stages=4
// RUN: test -s %t/b3/kernels.cubin
// RUN: sinterc %s --target=cuda:sm_90a -o %t/b4 --quiet --cuda-row-bulk=4 --cuda-row-bulk-stages=1
// RUN: test -s %t/b4/kernels.cubin
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/b1/manifest.json

// Bad values.
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="row-bulk=5" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="row-bulk=3 row-bulk-stages=9" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-bulk=1 --cuda-row-persistent=2 2>&1 | FileCheck %s --check-prefix=BAD

// The benchmark's RMSNorm: 8 KB rows, one per block of 256 threads.
func.func @rms(%x: tensor<16384x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<16384x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<16384x4096xbf16> -> tensor<16384x4096xbf16>
  return %y : tensor<16384x4096xbf16>
}

// Four rows of 1536 bytes per block, 17 rows: the last group has one.
func.func @ln(%x: tensor<17x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xbf16>) -> tensor<17x768xbf16> {
  %y = sinter.layer_norm %x weight(%w : tensor<768xbf16>) bias(%b : tensor<768xbf16>) : tensor<17x768xbf16> -> tensor<17x768xbf16>
  return %y : tensor<17x768xbf16>
}

// Softmax shares the row loop.
func.func @softmax(%x: tensor<5x1024xf32>) -> tensor<5x1024xf32> {
  %y = sinter.softmax %x dim 1 : tensor<5x1024xf32>
  return %y : tensor<5x1024xf32>
}

// Rows of 514 bytes cannot be bulk-copied: the register kernel.
func.func @ln_odd(%x: tensor<3x257xbf16>, %w: tensor<257xbf16>) -> tensor<3x257xbf16> {
  %y = sinter.layer_norm %x weight(%w : tensor<257xbf16>) : tensor<3x257xbf16> -> tensor<3x257xbf16>
  return %y : tensor<3x257xbf16>
}

// OFF: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c16384, %c1, %c1) threads in (%c256, %c1, %c1) args(

// 1: one block per row group, the group's bytes (the last LayerNorm group
// has one row of four) through one bulk copy; dynamic shared memory: 256
// bytes (alignment, mbarriers) + the stage.
// IR1: remark: row-bulk: rows of 514 bytes are not a multiple of 16 (bulk copies); the register row kernel runs instead
// IR1: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c16384, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c8448_i32
// IR1: gpu.launch_func @sinter_kernels::@layer_norm_1 blocks in (%c5, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c6400_i32
// IR1: gpu.launch_func @sinter_kernels::@softmax_2 blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c8448_i32
// IR1: gpu.launch_func @sinter_kernels::@layer_norm_3 blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1) args(
// IR1-LABEL: gpu.func @rms_norm_0(
// IR1-NOT: nvvm.minctasm
// IR1: gpu.dynamic_shared_memory
// IR1: %[[TID:.*]] = gpu.thread_id x
// IR1: scf.if
// IR1: "mbarrier.init.shared.b64 [$0], $1;"
// IR1: "fence.mbarrier_init.release.cluster;"
// IR1: "{\0A.reg .b64 st;\0Ambarrier.arrive.expect_tx.shared::cta.b64 st, [$0], $1;\0A}", "r,r,~{memory}" %[[BAR:.*]], %c8192_i32
// IR1: "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c8192_i32, %[[BAR]] : (i32, !llvm.ptr<1>, i32, i32) -> ()
// IR1: gpu.barrier
// IR1: mbarrier.try_wait.parity.shared.b64
// IR1-NOT: scf.for
// IR1: %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xbf16, #gpu.address_space<workgroup>>
// IR1-COUNT-2: vector.load %[[VIEW]][%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// IR1: gpu.barrier
// IR1: vector.load %arg1
// IR1: vector.store %{{.*}}, %collapse_shape
// IR1-NOT: gpu.barrier
// IR1: gpu.return
// The last group's bytes: min(4, 17 - 4 g) rows of 1536 bytes.
// IR1-LABEL: gpu.func @layer_norm_1(
// IR1: arith.subi %c17{{(_[0-9]+)?}}, %{{.*}} : index
// IR1: arith.minui %{{.*}}, %c4{{(_[0-9]+)?}} :
// IR1: arith.muli %{{.*}}, %c1536{{(_[0-9]+)?}} :
// IR1: mbarrier.arrive.expect_tx
// IR1: cp.async.bulk.shared::cluster.global
// IR1-LABEL: gpu.func @softmax_2(
// IR1: cp.async.bulk.shared::cluster.global
// IR1: memref<2048xf32, #gpu.address_space<workgroup>>
// IR1-LABEL: gpu.func @layer_norm_3(
// IR1-NOT: dynamic_shared_memory
// IR1-NOT: inline_asm
// IR1: gpu.return

// 4 with three stages: a persistent loop (512 blocks, 4 per SM) with the
// weight hoisted; the prologue loads the block's first three groups; each
// iteration waits on its stage's phase, writes its results into the stage,
// fences them for the async proxy, stores the group with a bulk store and,
// once the previous group's store has read its stage, refills that stage
// with the group two iterations ahead.
// IR4: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c512, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c24832_i32
// IR4-LABEL: gpu.func @rms_norm_0(
// IR4-SAME: nvvm.minctasm = 4 : i32
// IR4: %[[BID:.*]] = gpu.block_id x
// IR4: %[[GDIM:.*]] = gpu.grid_dim x
// IR4-COUNT-3: "mbarrier.init.shared.b64 [$0], $1;"
// IR4: fence.mbarrier_init.release.cluster
// IR4-COUNT-3: cp.async.bulk.shared::cluster.global
// IR4: gpu.barrier
// IR4: vector.load %arg1
// IR4: scf.for %[[G:.*]] = %[[BID]] to %c16384 step %[[GDIM]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[STAGE:.*]] = %{{.*}}, %[[PHASE:.*]] = %{{.*}}) -> (vector<8xbf16>, vector<8xbf16>, index, index) {
// IR4: %[[P32:.*]] = arith.index_cast %[[PHASE]] : index to i32
// IR4: mbarrier.try_wait.parity.shared.b64 p, [$0], $1;{{.*}} %{{.*}}, %[[P32]] : (i32, i32) -> ()
// IR4: %[[VIEW:.*]] = memref.view
// IR4: vector.load %[[VIEW]]
// IR4: vector.store %{{.*}}, %[[VIEW]]
// IR4: vector.store %{{.*}}, %[[VIEW]]
// IR4-NEXT: "fence.proxy.async.shared::cta;"
// IR4-NEXT: gpu.barrier
// IR4: "cp.async.bulk.global.shared::cta.bulk_group [$0], [$1], $2;", "l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c8192_i32
// IR4-NEXT: "cp.async.bulk.commit_group;"
// IR4-NEXT: "cp.async.bulk.wait_group.read 1;"
// IR4: arith.muli %[[GDIM]], %c2{{(_[0-9]+)?}} :
// IR4: arith.cmpi ne, %[[G]], %[[BID]] : index
// IR4: mbarrier.arrive.expect_tx
// IR4: cp.async.bulk.shared::cluster.global
// IR4: "mov.b32 $0, $1;"
// IR4: arith.cmpi eq, %{{.*}}, %c3{{(_[0-9]+)?}} :
// IR4: arith.xori %[[PHASE]], %c1{{(_[0-9]+)?}} :
// IR4: scf.yield
// IR4: "cp.async.bulk.wait_group.read 0;"
// IR4: gpu.return

// Four stages of 8 KB at 8 blocks per SM do not fit the shared memory: 6
// per SM (792 slots, 21 groups each on 781 blocks).
// FIT: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c781, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c33024_i32
// FIT: nvvm.minctasm = 6 : i32

// PTX1: .entry rms_norm_0(
// PTX1-NOT: .minnctapersm
// PTX1: mbarrier.init.shared.b64
// PTX1: fence.mbarrier_init.release.cluster;
// PTX1: mbarrier.arrive.expect_tx.shared::cta.b64 st, [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX1: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX1: bar.sync
// PTX1: mbarrier.try_wait.parity.shared.b64
// PTX1: ld.shared.v4.b32
// PTX1: st.global.v4.b32
// PTX1: .entry layer_norm_1(
// PTX1: cp.async.bulk.shared::cluster.global
// PTX1: .entry softmax_2(
// PTX1: cp.async.bulk.shared::cluster.global
// PTX1: .entry layer_norm_3(
// PTX1-NOT: mbarrier
// PTX1: ret;

// PTX2: .entry rms_norm_0(
// PTX2: cp.async.bulk.shared::cluster.global
// PTX2: mbarrier.try_wait.parity.shared.b64
// PTX2: st.shared.v4.b32
// PTX2: fence.proxy.async.shared::cta;
// PTX2: bar.sync
// PTX2: cp.async.bulk.global.shared::cta.bulk_group [%rd{{[0-9]+}}], [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX2: cp.async.bulk.commit_group;
// PTX2: cp.async.bulk.wait_group.read 0;
// PTX2: .entry layer_norm_1(
// PTX2: cp.async.bulk.global.shared::cta.bulk_group

// The prologue's three loads, then (the loop's blocks in any order) the
// wait, the reads of the stage, the stores and the refill.
// PTX3: .entry rms_norm_0(
// PTX3: .minnctapersm 4
// PTX3: %nctaid.x
// PTX3-COUNT-3: mbarrier.init.shared.b64
// PTX3-COUNT-3: cp.async.bulk.shared::cluster.global
// PTX3: bar.sync
// PTX3-DAG: mbarrier.try_wait.parity.shared.b64 p, [%r[[BAR:[0-9]+]]]
// PTX3-DAG: ld.shared.v4.b32
// PTX3-DAG: st.global.v4.b32
// PTX3-DAG: mbarrier.arrive.expect_tx.shared::cta.b64 st, [%r[[BAR]]]
// PTX3-DAG: cp.async.bulk.shared::cluster.global
// PTX3: .entry layer_norm_1(
// PTX3: .minnctapersm 4

// PTX4: .entry rms_norm_0(
// PTX4: .minnctapersm 4
// PTX4-COUNT-2: mbarrier.init.shared.b64
// PTX4: cp.async.bulk.global.shared::cta.bulk_group
// PTX4: cp.async.bulk.wait_group.read 1;
// PTX4: cp.async.bulk.wait_group.read 0;
// PTX4: .entry layer_norm_1(

// SM80: remark: row-bulk: bulk copies need sm_90; the register row kernel runs instead
// SM80: .entry rms_norm_0(
// SM80-NOT: .minnctapersm
// SM80: ld.global.v4

// MANIFEST: "kernel": "rms_norm_0"
// MANIFEST: "shared_memory": 8448

// BAD: row-bulk must be 0-4, row-bulk-stages 1-8, and row-bulk and row-persistent are not combined
