// Persistent variants of the row (softmax/norm) and AdamW kernels (options
// row-persistent / adamw-persistent / persistent-ctas / sm-count of
// sinter-outline-cuda-kernels, sinterc --cuda-row-persistent,
// --cuda-adamw-persistent, --cuda-persistent-ctas; bench/NOTES.md). The
// default (0) leaves the kernels as they were: one block per row group, no
// loop, no grid_dim, no .minnctapersm. No GPU needed; the artifacts go
// through ptxas.

// RUN: sinter-opt %s --sinter-outline-cuda-kernels | FileCheck %s --check-prefix=DEF
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=0 adamw-persistent=0 row-vectors=4" | FileCheck %s --check-prefix=IR0 --implicit-check-not=minctasm --implicit-check-not=gpu.grid_dim --implicit-check-not=llvm.inline_asm
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=1 adamw-persistent=1 row-vectors=4" | FileCheck %s --check-prefix=IR1
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=2 adamw-persistent=2 row-vectors=4" | FileCheck %s --check-prefix=IR2
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=3 row-vectors=4" | FileCheck %s --check-prefix=IR3
// The grid: SMs x blocks per SM, then as few blocks as give each the same
// number of row groups (8192 groups: 528 slots -> 16 each on 512 blocks;
// 264 slots -> 32 each on 256 blocks; sm_80's 108 SMs -> 19 each on 432).
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=1 persistent-ctas=2 row-vectors=4" | FileCheck %s --check-prefix=CTAS2
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=1 chip=sm_80 row-vectors=4" | FileCheck %s --check-prefix=SM80
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=1 sm-count=2 row-vectors=4" | FileCheck %s --check-prefix=SMS2 --implicit-check-not=sinter.persistent

// The PTX (sinterc): the persistent kernels declare their blocks per SM and
// read gridDim.x; the default PTX has neither.
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 | FileCheck %s --check-prefix=PTX0 --implicit-check-not=minnctapersm --implicit-check-not=nctaid
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-row-persistent=2 --cuda-adamw-persistent=2 | FileCheck %s --check-prefix=PTX2
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-persistent=1 --cuda-persistent-ctas=2 --cuda-row-vectors=2 | FileCheck %s --check-prefix=PTXC2

// Every variant assembles (ptxas) for Hopper and Ampere.
// RUN: rm -rf %t
// RUN: sinterc %s --target=cuda:sm_90a -o %t/p1 --quiet --cuda-row-vectors=4 --cuda-row-persistent=1 --cuda-adamw-persistent=1
// RUN: %python %S/Inputs/check_cubin.py %t/p1 sm_90a
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/p1/manifest.json
// RUN: sinterc %s --target=cuda:sm_90a -o %t/p2 --quiet --cuda-row-vectors=4 --cuda-row-persistent=2 --cuda-adamw-persistent=2
// RUN: %python %S/Inputs/check_cubin.py %t/p2 sm_90a
// RUN: sinterc %s --target=cuda:sm_90a -o %t/p3 --quiet --cuda-row-persistent=3 --cuda-row-vectors=2
// RUN: %python %S/Inputs/check_cubin.py %t/p3 sm_90a
// RUN: sinterc %s --target=cuda:sm_80 -o %t/p2sm80 --quiet --cuda-row-vectors=4 --cuda-row-persistent=2 --cuda-adamw-persistent=2
// RUN: %python %S/Inputs/check_cubin.py %t/p2sm80 sm_80

// Bad values.
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="row-persistent=4 row-vectors=4" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=3 2>&1 | FileCheck %s --check-prefix=BAD

func.func @rms(%x: tensor<16384x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<16384x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<16384x4096xbf16> -> tensor<16384x4096xbf16>
  return %y : tensor<16384x4096xbf16>
}

// 17 ragged rows of 257 (scalar accesses, the third vector of each lane
// partly past the row end), two rows per block.
func.func @ln(%x: tensor<17x257xbf16>, %w: tensor<257xbf16>, %b: tensor<257xbf16>) -> tensor<17x257xbf16> {
  %y = sinter.layer_norm %x weight(%w : tensor<257xbf16>) bias(%b : tensor<257xbf16>) : tensor<17x257xbf16> -> tensor<17x257xbf16>
  return %y : tensor<17x257xbf16>
}

func.func @adamw(%p0: tensor<4096xf32>, %p1: tensor<1001xf32>, %g0: tensor<4096xf32>, %g1: tensor<1001xf32>,
                 %m0: tensor<4096xf32>, %m1: tensor<1001xf32>, %v0: tensor<4096xf32>, %v1: tensor<1001xf32>,
                 %lr: f32, %t: f32) -> (tensor<4096xf32>, tensor<1001xf32>) {
  %r:6 = sinter.adamw params(%p0, %p1 : tensor<4096xf32>, tensor<1001xf32>) grads(%g0, %g1 : tensor<4096xf32>, tensor<1001xf32>) exp_avgs(%m0, %m1 : tensor<4096xf32>, tensor<1001xf32>) exp_avg_sqs(%v0, %v1 : tensor<4096xf32>, tensor<1001xf32>) lr(%lr) step(%t) {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64}
  return %r#0, %r#1 : tensor<4096xf32>, tensor<1001xf32>
}

// Defaults (bench/NOTES.md, 2026-11-29): two 16-byte vectors per thread
// in the row kernels (a 4096-wide bf16 row fills a 256-thread block:
// 16384 blocks), and the persistent AdamW that prefetches its next chunk.
// DEF: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c16384,
// DEF: gpu.launch_func @sinter_kernels::@adamw_2 blocks in (%c8,
// DEF-LABEL: gpu.func @rms_norm_0(
// DEF-NOT: nvvm.minctasm
// DEF-LABEL: gpu.func @adamw_2(
// DEF-SAME: nvvm.minctasm = 4

// The previous defaults (row-vectors=4, adamw-persistent=0): a block per
// row group (8192 of two rows), the weight loaded per
// row next to its use, no loop; AdamW on min(chunks, 1024) blocks.
// IR0: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c8192,
// IR0: gpu.launch_func @sinter_kernels::@layer_norm_1 blocks in (%c9,
// IR0: gpu.launch_func @sinter_kernels::@adamw_2 blocks in (%c4,
// IR0-LABEL: gpu.func @rms_norm_0(
// IR0-SAME: workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// IR0-NOT: scf.for
// IR0: gpu.barrier
// IR0: vector.load %arg1
// IR0: vector.store
// IR0-NOT: scf.for
// IR0: gpu.return
// IR0-LABEL: gpu.func @adamw_2(
// IR0-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// IR0: %[[BID:.*]] = gpu.block_id x
// IR0: scf.for %{{.*}} = %[[BID]] to %c4{{(_[0-9]+)?}} step %c4{{(_[0-9]+)?}} {

// 1: 512 blocks of 4 per SM; the weight is loaded once, before the loop
// over the row groups, and carried through it in bf16 (an opaque register
// copy keeps the conversion in the loop); the rows are loaded in the loop.
// The launches say the kernels are persistent (work items, resident blocks
// per SM): the manifest passes it on and the runtime sizes the grid for
// the device's SM count.
// IR1: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c512,
// IR1-SAME: {sinter.persistent = {ctas_per_sm = 4 : i64, work = 8192 : i64}}
// IR1: gpu.launch_func @sinter_kernels::@layer_norm_1 blocks in (%c9,
// IR1-SAME: {sinter.persistent = {ctas_per_sm = 4 : i64, work = 9 : i64}}
// IR1: gpu.launch_func @sinter_kernels::@adamw_2 blocks in (%c4,
// IR1-SAME: sinter.persistent = {ctas_per_sm = 4 : i64, work = 4 : i64}
// IR1-LABEL: gpu.func @rms_norm_0(
// RMSNorm's reduction alternates between two slot sets (2 x 8 warps).
// IR1-SAME: workgroup(%{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 4 : i32} {
// IR1: %[[W0:.*]] = vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16>, vector<8xbf16>
// IR1-COUNT-3: vector.load %arg1[
// IR1: %[[BID:.*]] = gpu.block_id x
// IR1: %[[GDIM:.*]] = gpu.grid_dim x
// IR1: scf.for %{{.*}} = %[[BID]] to %c8192 step %[[GDIM]] iter_args(%[[W:.*]] = %[[W0]], %{{.*}}, %{{.*}}, %{{.*}}, %[[PARITY:.*]] = %{{.*}}) -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, index) {
// IR1-NOT: vector.load %arg1
// IR1: vector.load %collapse_shape[
// IR1-NOT: vector.load %arg1
// IR1: arith.muli %[[PARITY]], %c2{{.*}} : index
// IR1-NOT: vector.load %arg1
// IR1: gpu.barrier
// IR1-NOT: vector.load %arg1
// IR1: arith.extf %[[W]] : vector<8xbf16> to vector<8xf32>
// IR1: vector.store
// IR1: llvm.inline_asm asm_dialect = att "mov.b32 $0, $1;", "=r,r"
// IR1: arith.xori %[[PARITY]], %c1
// IR1: scf.yield
// LayerNorm: weight and bias (16-bit scalars: mov.b16), ragged rows.
// IR1-LABEL: gpu.func @layer_norm_1(
// IR1: scf.for %{{.*}} = %{{.*}} to %c9 step %{{.*}} iter_args({{.*}}) -> (vector<1xbf16>, vector<1xbf16>, vector<1xbf16>, vector<1xbf16>, vector<1xbf16>, vector<1xbf16>, index) {
// IR1: arith.cmpi ult, %{{.*}}, %c17
// IR1: "mov.b16 $0, $1;", "=h,h"
// AdamW: one loop per group of same-shaped tensors, starting at the
// block's first chunk of the group, no per-chunk group test.
// IR1-LABEL: gpu.func @adamw_2(
// IR1-SAME: nvvm.minctasm = 4 : i32
// IR1: %[[ABID:.*]] = gpu.block_id x
// IR1: %[[AGDIM:.*]] = gpu.grid_dim x
// IR1: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} step %[[AGDIM]] {
// IR1: vector.load %{{.*}} : memref<4096xf32>, vector<4xf32>
// IR1: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %[[AGDIM]] {
// IR1: scf.if %{{.*}} -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>) {
// IR1-COUNT-4: vector.load %{{.*}} : memref<1001xf32>, vector<1xf32>

// 2: the first row group is loaded before the loop; each iteration loads
// the next group's row (predicated: it may not exist) before the current
// one, carried in bf16, is converted, reduced and stored.
// IR2-LABEL: gpu.func @rms_norm_0(
// IR2: vector.load %arg1[
// IR2: %[[BID:.*]] = gpu.block_id x
// IR2: %[[GDIM:.*]] = gpu.grid_dim x
// IR2: %[[X0:.*]]:4 = scf.if %{{.*}} -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) {
// IR2-COUNT-4: vector.load %collapse_shape[
// IR2: scf.for %[[G:.*]] = %[[BID]] to %c8192 step %[[GDIM]] iter_args(%[[X:.*]] = %[[X0]]#0, %{{.*}} = %[[X0]]#1, %{{.*}} = %[[X0]]#2, %{{.*}} = %[[X0]]#3, %{{.*}}) -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, index) {
// IR2: %[[NEXT:.*]] = arith.addi %[[G]], %[[GDIM]] : index
// IR2: %[[N:.*]]:4 = scf.if %{{.*}} -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) {
// IR2-COUNT-4: vector.load %collapse_shape[
// IR2: arith.extf %[[X]] : vector<8xbf16> to vector<8xf32>
// IR2: gpu.barrier
// IR2: vector.store
// IR2: scf.yield %[[N]]#0, %[[N]]#1, %[[N]]#2, %[[N]]#3,
// AdamW: one vector per thread per chunk (1024 chunks of 4096 floats: the
// 4096-element tensor is 4 chunks), the next chunk's four vectors loaded
// under one branch before the current chunk is updated and stored.
// IR2-LABEL: gpu.func @adamw_2(
// IR2: %[[A0:.*]]:4 = scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// IR2: scf.for %[[C:.*]] = %{{.*}} to %c4{{.*}} step %[[AG:.*]] iter_args(%[[P:.*]] = %[[A0]]#0, %{{.*}} = %[[A0]]#1, %{{.*}} = %[[A0]]#2, %{{.*}} = %[[A0]]#3) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// IR2: arith.addi %[[C]], %[[AG]] : index
// IR2: %[[AN:.*]]:4 = scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// IR2-COUNT-4: vector.load
// IR2: arith.mulf %[[P]],
// IR2-COUNT-3: vector.store
// IR2: scf.yield %[[AN]]#0, %[[AN]]#1, %[[AN]]#2, %[[AN]]#3 :
// IR2: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>) {

// 3: prefetch as 2, but the weight is loaded per row (after the
// reduction, next to its use), not carried.
// IR3-LABEL: gpu.func @rms_norm_0(
// IR3: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, index) {
// IR3: gpu.barrier
// IR3: vector.load %arg1[
// IR3: vector.store

// CTAS2: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c256,
// CTAS2: nvvm.minctasm = 2 : i32
// SM80: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c432,
// SMS2: gpu.launch_func @sinter_kernels::@rms_norm_0 blocks in (%c8,

// PTX0: .entry rms_norm_0(
// PTX0: .maxntid 256, 1, 1
// PTX0: .entry layer_norm_1(
// PTX0: .entry adamw_2(

// PTX2: .entry rms_norm_0(
// PTX2-NEXT: .param
// PTX2-NEXT: .param
// PTX2-NEXT: .param
// PTX2-NEXT: )
// PTX2-NEXT: .maxntid 256, 1, 1
// PTX2-NEXT: .minnctapersm 4
// PTX2: %nctaid.x
// PTX2: bar.sync
// PTX2: .entry layer_norm_1(
// PTX2: .minnctapersm 4
// PTX2: %nctaid.x
// PTX2: .entry adamw_2(
// PTX2: .minnctapersm 4
// PTX2: %nctaid.x

// PTXC2: .entry rms_norm_0(
// PTXC2: .maxntid 256, 1, 1
// PTXC2-NEXT: .minnctapersm 2

// BAD: row-persistent must be 0-3, adamw-persistent 0-2, persistent-ctas 0-32 and sm-count >= 0

// MANIFEST: "kernel": "rms_norm_0",
// MANIFEST: "shared_memory": 0,
// MANIFEST-NEXT: "persistent": {
// MANIFEST-NEXT: "work": 8192,
// MANIFEST-NEXT: "ctas_per_sm": 4
// MANIFEST-NEXT: },
