// Cache-policy hints on the 16-byte accesses of data the memory-bound
// kernels touch once (option cache-hints of sinter-outline-cuda-kernels and
// sinter-lower-to-nvvm, sinterc --cuda-cache-hints). The norm's rows and
// AdamW's tensors take inline PTX with the hint; the norm's weight (read by
// every row) and AdamW tensors whose size is not a multiple of 4 (scalar
// accesses) keep plain loads and stores; "none" leaves the PTX as before.
// No GPU needed; the artifacts go through ptxas.

// Kernel IR, with the policy once per kernel, addresses from the aligned
// pointer in the global space, 16 bytes as four b32 registers.
// (Kernels as built with four vectors per thread and non-persistent AdamW,
// the defaults until 2026-11-29.)
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="cache-hints=evict-first row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=IR

// The pipeline option, through to the PTX.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=ISANONE --implicit-check-not=cache_hint --implicit-check-not=no_allocate --implicit-check-not=L2::256B --implicit-check-not=createpolicy --implicit-check-not=.cs.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa cache-hints=none row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=ISANONE --implicit-check-not=cache_hint --implicit-check-not=no_allocate --implicit-check-not=L2::256B --implicit-check-not=createpolicy --implicit-check-not=.cs.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa cache-hints=evict-first row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=ISAEVICT
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa cache-hints=l2-256b row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=ISA256
// PTX 7.0 (sm_80's default) has none of the qualifiers: any hint asks for 7.4.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_80 format=isa cache-hints=no-allocate row-vectors=4 adamw-persistent=0" | FileCheck %s --check-prefix=ISASM80

// Each hint, line by line (sinterc's PTX).
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 | FileCheck %s --check-prefix=NONE --implicit-check-not=cache_hint --implicit-check-not=no_allocate --implicit-check-not=L2::256B --implicit-check-not=createpolicy --implicit-check-not=.cs.
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=evict-first | FileCheck %s --check-prefix=EVICT
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=no-allocate | FileCheck %s --check-prefix=NOALLOC --implicit-check-not=cache_hint --implicit-check-not=L2::256B --implicit-check-not=.cs.
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=l2-256b | FileCheck %s --check-prefix=L2256 --implicit-check-not=cache_hint --implicit-check-not=no_allocate --implicit-check-not=.cs.
// RUN: sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=streaming | FileCheck %s --check-prefix=STREAM --implicit-check-not=cache_hint --implicit-check-not=no_allocate --implicit-check-not=L2::256B

// The hinted PTX assembles (ptxas) for Hopper and Ampere: a cubin for the
// chip that defines every kernel the manifest launches (Inputs/check_cubin.py).
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t/sm90 --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=evict-first
// RUN: %python %S/Inputs/check_cubin.py %t/sm90 sm_90a
// RUN: sinterc %s --target=cuda:sm_80 -o %t/sm80 --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=evict-first
// RUN: %python %S/Inputs/check_cubin.py %t/sm80 sm_80
// RUN: sinterc %s --target=cuda:sm_80 -o %t/sm80s --quiet --cuda-row-vectors=4 --cuda-adamw-persistent=0 --cuda-cache-hints=l2-256b
// RUN: %python %S/Inputs/check_cubin.py %t/sm80s sm_80

// Bad values: an error at the input, naming the accepted ones.
// RUN: not sinter-opt %s --sinter-outline-cuda-kernels="cache-hints=evict_first" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sinterc %s --target=cuda:sm_90a --emit=ptx -o - --quiet --cuda-cache-hints=L2 2>&1 | FileCheck %s --check-prefix=BADC

func.func @rms(%x: tensor<17x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<17x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<17x4096xbf16> -> tensor<17x4096xbf16>
  return %y : tensor<17x4096xbf16>
}

func.func @adamw(%p0: tensor<4096xf32>, %p1: tensor<1001xf32>, %g0: tensor<4096xf32>, %g1: tensor<1001xf32>,
                 %m0: tensor<4096xf32>, %m1: tensor<1001xf32>, %v0: tensor<4096xf32>, %v1: tensor<1001xf32>,
                 %lr: f32, %t: f32) -> (tensor<4096xf32>, tensor<1001xf32>) {
  %r:6 = sinter.adamw params(%p0, %p1 : tensor<4096xf32>, tensor<1001xf32>) grads(%g0, %g1 : tensor<4096xf32>, tensor<1001xf32>) exp_avgs(%m0, %m1 : tensor<4096xf32>, tensor<1001xf32>) exp_avg_sqs(%v0, %v1 : tensor<4096xf32>, tensor<1001xf32>) lr(%lr) step(%t) {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64}
  return %r#0, %r#1 : tensor<4096xf32>, tensor<1001xf32>
}

// IR-LABEL: gpu.func @rms_norm_0(
// IR-NEXT: %[[POL:.*]] = llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"  : () -> i64
// IR: scf.if
// IR: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// IR: %[[GEN:.*]] = llvm.inttoptr
// IR: %[[GLOBAL:.*]] = llvm.addrspacecast %[[GEN]] : !llvm.ptr to !llvm.ptr<1>
// IR: %[[ADDR:.*]] = llvm.getelementptr %[[GLOBAL]]
// IR: %[[WORDS:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "ld.global.L1::no_allocate.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l" %[[ADDR]], %[[POL]] : (!llvm.ptr<1>, i64) -> !llvm.struct<(i32, i32, i32, i32)>
// IR: vector.from_elements
// IR: vector.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
// The weight: a plain load.
// IR: vector.load %{{.*}} : memref<4096xbf16>, vector<8xbf16>
// IR: vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// IR: llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.v4.b32 [$0], {$1, $2, $3, $4}, $5;", "l,r,r,r,r,l,~{memory}" %{{.*}}, %[[POL]] : (!llvm.ptr<1>, i32, i32, i32, i32, i64) -> ()
// IR-LABEL: gpu.func @adamw_1(
// IR-NEXT: llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;"
// IR-COUNT-4: "ld.global.L1::no_allocate.L2::cache_hint.v4.b32
// IR-COUNT-3: "st.global.L2::cache_hint.v4.b32

// ISANONE: chip = "sm_90a", features = "+ptx80"
// ISANONE-SAME: .entry rms_norm_0
// ISANONE-SAME: ld.global.v4.b32
// ISANONE-SAME: st.global.v4.b32
// ISANONE-SAME: .entry adamw_1
// ISANONE-SAME: ld.global.v4.b32
// ISANONE-SAME: st.global.v4.b32

// ISAEVICT: chip = "sm_90a", features = "+ptx80"
// ISAEVICT-SAME: .entry rms_norm_0
// ISAEVICT-SAME: createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
// ISAEVICT-SAME: ld.global.L1::no_allocate.L2::cache_hint.v4.b32 {{[^;]*}}, [[POL]];
// ISAEVICT-SAME: st.global.L2::cache_hint.v4.b32 {{[^;]*}}, [[POL]];
// ISAEVICT-SAME: .entry adamw_1
// ISAEVICT-SAME: ld.global.L1::no_allocate.L2::cache_hint.v4.b32
// ISAEVICT-SAME: st.global.L2::cache_hint.v4.b32

// ISA256: chip = "sm_90a", features = "+ptx80"
// ISA256-SAME: ld.global.L2::256B.v4.b32
// ISA256-SAME: st.global.v4.b32

// ISASM80: chip = "sm_80", features = "+ptx74"
// ISASM80-SAME: .version 7.4
// ISASM80-SAME: .target sm_80
// ISASM80-SAME: ld.global.L1::no_allocate.v4.b32

// Plain: the row's four 16-byte loads first, then the weight's loads and
// the stores.
// NONE: .version 8.0
// NONE-LABEL: .entry rms_norm_0(
// NONE-COUNT-4: ld.global.v4.b32 {{.*}}[%rd
// NONE: shfl.sync.bfly.b32
// NONE: ld.global.v4.b32
// NONE: st.global.v4.b32
// NONE-LABEL: .entry adamw_1(
// NONE-COUNT-8: ld.global.v4.b32
// NONE-COUNT-6: st.global.v4.b32
// NONE: ld.global.b32
// NONE: st.global.b32

// EVICT-LABEL: .entry rms_norm_0(
// EVICT: createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
// EVICT-COUNT-4: ld.global.L1::no_allocate.L2::cache_hint.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}], [[POL]];
// EVICT: ld.global.v4.b32
// EVICT: st.global.L2::cache_hint.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [[POL]];
// EVICT-NOT: st.global.v4
// EVICT-LABEL: .entry adamw_1(
// EVICT: createpolicy.fractional.L2::evict_first.b64 [[APOL:%rd[0-9]+]], 1.0;
// EVICT-NOT: ld.global.v4
// EVICT-COUNT-8: ld.global.L1::no_allocate.L2::cache_hint.v4.b32 {{.*}}, [[APOL]];
// EVICT-NOT: st.global.v4
// EVICT-COUNT-6: st.global.L2::cache_hint.v4.b32 {{.*}}, [[APOL]];
// EVICT-NOT: .v4.
// EVICT: ld.global.b32
// EVICT: st.global.b32

// NOALLOC-LABEL: .entry rms_norm_0(
// NOALLOC-COUNT-4: ld.global.L1::no_allocate.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// NOALLOC: ld.global.v4.b32
// NOALLOC: st.global.v4.b32
// NOALLOC-LABEL: .entry adamw_1(
// NOALLOC-COUNT-8: ld.global.L1::no_allocate.v4.b32
// NOALLOC-COUNT-6: st.global.v4.b32

// L2256-LABEL: .entry rms_norm_0(
// L2256-COUNT-4: ld.global.L2::256B.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// L2256: ld.global.v4.b32
// L2256: st.global.v4.b32
// L2256-LABEL: .entry adamw_1(
// L2256-COUNT-8: ld.global.L2::256B.v4.b32
// L2256-COUNT-6: st.global.v4.b32

// STREAM-NOT: createpolicy
// STREAM-LABEL: .entry rms_norm_0(
// STREAM-COUNT-4: ld.global.cs.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// STREAM: ld.global.v4.b32
// STREAM: st.global.cs.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// STREAM-NOT: st.global.v4
// STREAM-LABEL: .entry adamw_1(
// STREAM-COUNT-8: ld.global.cs.v4.b32
// STREAM-COUNT-6: st.global.cs.v4.b32

// BAD: error: sinter-outline-cuda-kernels: bad cache-hints 'evict_first': expected one of none, evict-first, no-allocate, l2-256b, streaming
// BADC: cache-hints.mlir:{{[0-9]+}}:{{[0-9]+}}: error: sinter-outline-cuda-kernels: bad cache-hints 'L2': expected one of none, evict-first, no-allocate, l2-256b, streaming
