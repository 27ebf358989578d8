// Tensor-core attention reads its heads in place: Q, K and V out of the
// fused [B, S, 3H, D] projection (the head transpose and the slice GPT-2's
// real IR takes them through become dead, no kernel copies them) and O
// straight into the [B, S, H, D] tensor the output projection reads (its
// transpose goes too). The cp.async kernels (mma.sync; wgmma without `ws`)
// address rows with the projection's row stride; the `ws` kernels' tensor
// maps cover the whole projection with boxes of [1, rows, 1, 64] at head
// h0 + h. Transposes with other users, other permutations and attention
// that runs on CUDA cores keep their kernels.
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels=chip=sm_90a | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="chip=sm_80 attention-config=warps=4,mtiles=1,bn=64" | FileCheck %s --check-prefix=SYNC
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=8,mtiles=1,bn=128" | FileCheck %s --check-prefix=WS
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa attention-config=wgmma,pipe,mbar,pp,ws,tmastore,warps=8,mtiles=1,bn=128" | FileCheck %s --check-prefix=PTX

// RUN: sinter-opt %s --sinter-outline-cuda-kernels=chip=sm_90a | FileCheck %s --check-prefix=BWD
// RUN: sinter-opt %s --sinter-outline-cuda-kernels=chip=sm_80 | FileCheck %s --check-prefix=BWDSYNC

// GPT-2's form at B2 S100 H4 D64: three head slices of one projection.
// CHECK-LABEL: func.func @gpt2_heads
// CHECK-NOT: @generic_
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 {{.*}} args(%{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %[[O:.*]] : memref<2x100x4x64xbf16>)
// CHECK-NOT: @generic_
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[O]]
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<2x100x4x64xbf16> into tensor<200x256xbf16>
// SYNC-LABEL: func.func @gpt2_heads
// SYNC-NOT: @generic_
// SYNC: gpu.launch_func @sinter_kernels::@attention_0 {{.*}} args(%{{.*}} : memref<2x100x12x64xbf16>, {{.*}}, %{{.*}} : memref<2x100x4x64xbf16>)
// SYNC: gpu.func @attention_0
// SYNC: nvgpu.device_async_copy
// Warp specialized: the maps are over the projection and O's [B, S, H, D].
// WS-LABEL: func.func @gpt2_heads
// WS-NOT: @generic_
// WS: memref.cast %{{.*}} : memref<2x100x12x64xbf16> to memref<*xbf16>
// WS: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c128{{.*}}, %c1{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x128x1x64xbf16, #gpu.address_space<workgroup>>
// WS: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c128{{.*}}, %c1{{.*}}, %c64{{.*}}]
// WS: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c128{{.*}}, %c1{{.*}}, %c64{{.*}}]
// WS: memref.cast %alloc : memref<2x100x4x64xbf16> to memref<*xbf16>
// WS: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c64{{.*}}, %c1{{.*}}, %c64{{.*}}]
// WS: gpu.func @attention_0
// WS-NOT: nvgpu.device_async_copy
// The box coordinates {column, head + h0, row, batch}: V's heads start at 8.
// WS: %[[H:.*]] = arith.addi %{{.*}}, %c8{{(_[0-9]+)?}} : index
// WS: %[[HI:.*]] = arith.index_cast %[[H]] : index to i32
// WS: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}} %c0_i32{{.*}}, %[[HI]],
// PTX-LABEL: .entry attention_0
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
func.func @gpt2_heads(%qkv: tensor<2x100x12x64xbf16>) -> tensor<200x256xbf16> {
  %e = tensor.empty() : tensor<2x4x100x64xbf16>
  %sq = tensor.extract_slice %qkv[0, 0, 0, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sk = tensor.extract_slice %qkv[0, 0, 4, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sv = tensor.extract_slice %qkv[0, 0, 8, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %q = linalg.transpose ins(%sq : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%sk : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%sv : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %o = sinter.attention %q, %k, %v {causal} : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16> -> tensor<2x4x100x64xbf16>
  %e2 = tensor.empty() : tensor<2x100x4x64xbf16>
  %t = linalg.transpose ins(%o : tensor<2x4x100x64xbf16>) outs(%e2 : tensor<2x100x4x64xbf16>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<2x100x4x64xbf16> into tensor<200x256xbf16>
  return %c : tensor<200x256xbf16>
}

// Llama's form: separate projections, grouped-query K and V ([B, S, Hkv,
// D] read without a slice); Q arrives dense (RoPE wrote it), O is returned
// in [B, H, S, D] and also transposed: both its uses need it, so it is
// written dense and its transpose stays. V's transpose is also returned:
// it keeps its kernel, and the attention reads its result.
// CHECK-LABEL: func.func @llama_heads
// CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x70x2x128xbf16>, %{{.*}} : memref<1x2x70x128xbf16>)
// CHECK: gpu.launch_func @sinter_kernels::@attention_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x8x70x128xbf16>, %{{.*}} : memref<1x70x2x128xbf16>, %{{.*}} : memref<1x2x70x128xbf16>, %{{.*}} : memref<1x8x70x128xbf16>,
// CHECK: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x8x70x128xbf16>, %{{.*}} : memref<1x70x8x128xbf16>)
func.func @llama_heads(%q: tensor<1x8x70x128xbf16>, %kp: tensor<1x70x2x128xbf16>, %vp: tensor<1x70x2x128xbf16>) -> (tensor<1x8x70x128xbf16>, tensor<1x70x8x128xbf16>, tensor<1x2x70x128xbf16>) {
  %e = tensor.empty() : tensor<1x2x70x128xbf16>
  %k = linalg.transpose ins(%kp : tensor<1x70x2x128xbf16>) outs(%e : tensor<1x2x70x128xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%vp : tensor<1x70x2x128xbf16>) outs(%e : tensor<1x2x70x128xbf16>) permutation = [0, 2, 1, 3]
  %o = sinter.attention %q, %k, %v {causal} : tensor<1x8x70x128xbf16>, tensor<1x2x70x128xbf16>, tensor<1x2x70x128xbf16> -> tensor<1x8x70x128xbf16>
  %e2 = tensor.empty() : tensor<1x70x8x128xbf16>
  %t = linalg.transpose ins(%o : tensor<1x8x70x128xbf16>) outs(%e2 : tensor<1x70x8x128xbf16>) permutation = [0, 2, 1, 3]
  return %o, %t, %v : tensor<1x8x70x128xbf16>, tensor<1x70x8x128xbf16>, tensor<1x2x70x128xbf16>
}

// Must not: a transpose of other dimensions, and f32 attention (CUDA
// cores, which read dense heads): every transpose keeps its kernel.
// CHECK-LABEL: func.func @not_in_place
// CHECK: gpu.launch_func @sinter_kernels::@generic_
// CHECK: gpu.launch_func @sinter_kernels::@attention_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x2x64x64xbf16>, %{{.*}} : memref<1x2x64x64xbf16>, %{{.*}} : memref<1x2x64x64xbf16>
// CHECK-COUNT-2: gpu.launch_func @sinter_kernels::@generic_
// CHECK: gpu.launch_func @sinter_kernels::@attention_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x2x64x64xf32>, %{{.*}} : memref<1x2x64x64xf32>, %{{.*}} : memref<1x2x64x64xf32>
// CHECK: gpu.launch_func @sinter_kernels::@generic_
func.func @not_in_place(%a: tensor<1x2x64x64xbf16>, %b: tensor<1x64x2x64xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x64x2x64xf32>) {
  %e = tensor.empty() : tensor<1x2x64x64xbf16>
  %swapped = linalg.transpose ins(%a : tensor<1x2x64x64xbf16>) outs(%e : tensor<1x2x64x64xbf16>) permutation = [0, 1, 3, 2]
  %o = sinter.attention %swapped, %a, %a : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  %ef = tensor.empty() : tensor<1x2x64x64xf32>
  %qf = linalg.transpose ins(%b : tensor<1x64x2x64xf32>) outs(%ef : tensor<1x2x64x64xf32>) permutation = [0, 2, 1, 3]
  %kf = linalg.transpose ins(%b : tensor<1x64x2x64xf32>) outs(%ef : tensor<1x2x64x64xf32>) permutation = [0, 2, 1, 3]
  %of = sinter.attention %qf, %kf, %kf : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  %e3 = tensor.empty() : tensor<1x64x2x64xf32>
  %tf = linalg.transpose ins(%of : tensor<1x2x64x64xf32>) outs(%e3 : tensor<1x64x2x64xf32>) permutation = [0, 2, 1, 3]
  return %o, %tf : tensor<1x2x64x64xbf16>, tensor<1x64x2x64xf32>
}

// GPT-2's kernel (cp.async): rows 12 * 64 = 768 elements apart, batch b at b * 100 * 768,
// head h of K at (h + 4) * 64.
// CHECK: gpu.func @attention_0
// CHECK-DAG: arith.constant 76800 : index
// CHECK-DAG: arith.constant 768 : index
// CHECK: nvgpu.device_async_copy

// The backward reads the same projection for Q, K and V, and dO in the
// [B, S, H, D] layout the output projection's input gradient has (its
// expand_shape before the head transpose): no transpose kernel runs. The
// prepare kernel reads dO in place too (delta = rowsum(dO * O)); O is the
// forward's dense result.
// BWD-LABEL: func.func @gpt2_heads_backward
// BWD-NOT: @generic_
// BWD: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]] {{.*}} args(%{{.*}} : memref<2x100x4x64xbf16>, %{{.*}} : memref<2x4x100x64xbf16>, %{{.*}} : memref<2x4x100xf32>, %{{.*}} : memref<2x4x100x64xf32>)
// BWD: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_1 {{.*}} args(%{{.*}} : memref<2x100x4x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x4x100xf32>,
// BWD-NOT: @generic_
// BWD: return
// BWDSYNC-LABEL: func.func @gpt2_heads_backward
// BWDSYNC-NOT: @generic_
// BWDSYNC: gpu.launch_func @sinter_kernels::@attention_backward_{{[0-9]+}}_1 {{.*}} args(%{{.*}} : memref<2x100x4x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>,
// BWDSYNC-NOT: @generic_
// BWDSYNC: return
func.func @gpt2_heads_backward(%qkv: tensor<2x100x12x64xbf16>, %dx: tensor<200x256xbf16>, %o: tensor<2x4x100x64xbf16>, %lse: tensor<2x4x100xf32>) -> (tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>) {
  %e = tensor.empty() : tensor<2x4x100x64xbf16>
  %sq = tensor.extract_slice %qkv[0, 0, 0, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sk = tensor.extract_slice %qkv[0, 0, 4, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sv = tensor.extract_slice %qkv[0, 0, 8, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %q = linalg.transpose ins(%sq : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%sk : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%sv : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %g = tensor.expand_shape %dx [[0, 1], [2, 3]] output_shape [2, 100, 4, 64] : tensor<200x256xbf16> into tensor<2x100x4x64xbf16>
  %do = linalg.transpose ins(%g : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse {causal} : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32> -> tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>
}

// A head transpose that something else also reads keeps its kernel (here
// Q, returned too); the backward reads the other operands in place.
// BWD-LABEL: func.func @backward_shared_transpose
// BWD: gpu.launch_func @sinter_kernels::@generic_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x4x100x64xbf16>)
// BWD-NOT: @generic_
// BWD: gpu.launch_func @sinter_kernels::@attention_backward_{{[0-9]+}}_1 {{.*}} args(%{{.*}} : memref<2x100x4x64xbf16>, %{{.*}} : memref<2x4x100x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>, %{{.*}} : memref<2x100x12x64xbf16>,
func.func @backward_shared_transpose(%qkv: tensor<2x100x12x64xbf16>, %g: tensor<2x100x4x64xbf16>, %o: tensor<2x4x100x64xbf16>, %lse: tensor<2x4x100xf32>) -> (tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>) {
  %e = tensor.empty() : tensor<2x4x100x64xbf16>
  %sq = tensor.extract_slice %qkv[0, 0, 0, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sk = tensor.extract_slice %qkv[0, 0, 4, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sv = tensor.extract_slice %qkv[0, 0, 8, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %q = linalg.transpose ins(%sq : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%sk : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%sv : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %do = linalg.transpose ins(%g : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32> -> tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>
  return %q, %dq, %dk, %dv : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>
}

// The gradients go back to the fused projection's gradient (transposed to
// [B, S, H, D], merged, joined): the key-tile kernel makes the joined
// [B, S, 3 H D] tensor, writing dK and dV at heads 4 and 8 of its
// [B, S, 12, D] view, and the finish kernel writes dQ at head 0 in place.
// No transpose or concatenation kernel runs.
// BWD-LABEL: func.func @gpt2_heads_backward_concat
// BWD-NOT: @generic_
// BWD-NOT: @concat_
// BWD: gpu.launch_func @sinter_kernels::@attention_backward_[[N:[0-9]+]]_1 {{.*}} args({{.*}}, %[[J:.*]] : memref<2x100x768xbf16>)
// BWD: %[[JT:.*]] = bufferization.to_tensor %[[J]]
// BWD: %[[JB:.*]] = bufferization.to_buffer %[[JT]] : tensor<2x100x768xbf16> to memref<2x100x768xbf16>
// BWD: gpu.launch_func @sinter_kernels::@attention_backward_[[N]]_2 {{.*}} args(%{{.*}} : memref<2x4x100x64xf32>, %[[JB]] : memref<2x100x768xbf16>)
// BWD-NOT: @generic_
// BWD-NOT: @concat_
// BWD: return
// The same on sm_80 (the mma.sync key-tile kernel).
// BWDSYNC-LABEL: func.func @gpt2_heads_backward_concat
// BWDSYNC-NOT: @concat_
// BWDSYNC: gpu.launch_func @sinter_kernels::@attention_backward_{{[0-9]+}}_1 {{.*}} args({{.*}}, %{{.*}} : memref<2x100x768xbf16>)
// BWDSYNC-NOT: @concat_
// BWDSYNC: return
func.func @gpt2_heads_backward_concat(%qkv: tensor<2x100x12x64xbf16>, %dx: tensor<200x256xbf16>, %o: tensor<2x4x100x64xbf16>, %lse: tensor<2x4x100xf32>) -> tensor<2x100x768xbf16> {
  %e = tensor.empty() : tensor<2x4x100x64xbf16>
  %sq = tensor.extract_slice %qkv[0, 0, 0, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sk = tensor.extract_slice %qkv[0, 0, 4, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %sv = tensor.extract_slice %qkv[0, 0, 8, 0] [2, 100, 4, 64] [1, 1, 1, 1] : tensor<2x100x12x64xbf16> to tensor<2x100x4x64xbf16>
  %q = linalg.transpose ins(%sq : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%sk : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%sv : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %g = tensor.expand_shape %dx [[0, 1], [2, 3]] output_shape [2, 100, 4, 64] : tensor<200x256xbf16> into tensor<2x100x4x64xbf16>
  %do = linalg.transpose ins(%g : tensor<2x100x4x64xbf16>) outs(%e : tensor<2x4x100x64xbf16>) permutation = [0, 2, 1, 3]
  %dq, %dk, %dv = sinter.attention_backward %do, %q, %k, %v, %o, %lse {causal} : tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100xf32> -> tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>
  %e2 = tensor.empty() : tensor<2x100x4x64xbf16>
  %tq = linalg.transpose ins(%dq : tensor<2x4x100x64xbf16>) outs(%e2 : tensor<2x100x4x64xbf16>) permutation = [0, 2, 1, 3]
  %tk = linalg.transpose ins(%dk : tensor<2x4x100x64xbf16>) outs(%e2 : tensor<2x100x4x64xbf16>) permutation = [0, 2, 1, 3]
  %tv = linalg.transpose ins(%dv : tensor<2x4x100x64xbf16>) outs(%e2 : tensor<2x100x4x64xbf16>) permutation = [0, 2, 1, 3]
  %mq = tensor.collapse_shape %tq [[0], [1], [2, 3]] : tensor<2x100x4x64xbf16> into tensor<2x100x256xbf16>
  %mk = tensor.collapse_shape %tk [[0], [1], [2, 3]] : tensor<2x100x4x64xbf16> into tensor<2x100x256xbf16>
  %mv = tensor.collapse_shape %tv [[0], [1], [2, 3]] : tensor<2x100x4x64xbf16> into tensor<2x100x256xbf16>
  %c = tensor.concat dim(2) %mq, %mk, %mv : (tensor<2x100x256xbf16>, tensor<2x100x256xbf16>, tensor<2x100x256xbf16>) -> tensor<2x100x768xbf16>
  return %c : tensor<2x100x768xbf16>
}
