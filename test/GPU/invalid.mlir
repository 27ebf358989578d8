// RUN: sinter-opt %s --sinter-outline-cuda-kernels --split-input-file -verify-diagnostics

func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{the CUDA backend needs static shapes, got 'tensor<?x64xf32>'}}
  %y = sinter.rms_norm %x : tensor<?x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @softmax_leading_dim(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{the softmax row kernel takes the trailing dimension only; got dimension 0 of 2 (sinter-tensor-ops-to-linalg, which the NVVM pipeline runs first, lowers other axes to the general path)}}
  %y = sinter.softmax %x dim 0 : tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

func.func @row_too_long(%x: tensor<2x2097152xf32>) -> tensor<2x2097152xf32> {
  // expected-error @+1 {{rows of 2097152 elements exceed what the register-resident CUDA row kernel holds (131072)}}
  %y = sinter.rms_norm %x : tensor<2x2097152xf32> -> tensor<2x2097152xf32>
  return %y : tensor<2x2097152xf32>
}

// -----

func.func @dynamic_reduction(%x: tensor<?x64xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{the CUDA backend needs static shapes, got 'tensor<?x64xf32>'}}
  %r = linalg.reduce { arith.addf } ins(%x : tensor<?x64xf32>) outs(%c : tensor<64xf32>) dimensions = [0]
  return %r : tensor<64xf32>
}

// -----

func.func @f8_sum(%x: tensor<4x64xf8E4M3FN>, %c: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'linalg.reduce' op operand #0 has element type 'f8E4M3FN', which the CUDA backend's serial linalg kernel does not support (f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)}}
  %r = linalg.reduce { arith.addf } ins(%x : tensor<4x64xf8E4M3FN>) outs(%c : tensor<4xf8E4M3FN>) dimensions = [1]
  return %r : tensor<4xf8E4M3FN>
}

// -----

// A parallel loop the output does not index would have several threads
// write one element.
func.func @output_misses_parallel_loop(%x: tensor<4x64xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{writes init #0 through affine_map<(d0, d1) -> (d0)>, which does not index exactly the parallel loops; the CUDA backend cannot run that}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An op of another dialect inside a reduction's region.
func.func @index_dialect_in_region(%x: tensor<4x64xf32>, %t: tensor<64xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i0 = linalg.index 1 : index
    // expected-error @+1 {{'index.add' op cannot run inside a CUDA kernel (only arith, math, linalg.index, tensor.extract and cf.assert can)}}
    %i = index.add %i0, %i0
    %v = tensor.extract %t[%i] : tensor<64xf32>
    %p = arith.mulf %a, %v : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @uninitialized_accumulator(%x: tensor<4x64xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{init #0 is an uninitialized tensor that the region reads}}
  %r = linalg.reduce { arith.addf } ins(%x : tensor<4x64xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
  return %r : tensor<4xf32>
}

// -----

// index elements have no size in memory: rejected at the op, not a crash of
// the elementwise kernel builder.
func.func @fused_index(%a: tensor<8xindex>, %b: tensor<8xindex>) -> tensor<8xindex> {
  // expected-error @+1 {{'sinter.fused' op the CUDA backend needs integer or floating-point elements, got 'tensor<8xindex>' (use i64)}}
  %0 = sinter.fused ins(%a, %b : tensor<8xindex>, tensor<8xindex>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%x: index, %y: index):
    %s = arith.addi %x, %y : index
    sinter.yield %s : index
  } -> tensor<8xindex>
  return %0 : tensor<8xindex>
}

// -----

func.func @generic_index(%a: tensor<8xindex>) -> tensor<8xindex> {
  %e = tensor.empty() : tensor<8xindex>
  // expected-error @+1 {{'linalg.generic' op the CUDA backend needs integer or floating-point elements, got 'tensor<8xindex>' (use i64)}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%x: index, %o: index):
    linalg.yield %x : index
  } -> tensor<8xindex>
  return %0 : tensor<8xindex>
}

// -----

// A grid of zero blocks cannot be launched.
func.func @empty_attention(%q: tensor<1x2x0x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x0x64xbf16> {
  // expected-error @+1 {{'sinter.attention' op the CUDA backend does not launch kernels over empty tensors, got 'tensor<1x2x0x64xbf16>'}}
  %o = sinter.attention %q, %k, %v : tensor<1x2x0x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x0x64xbf16>
  return %o : tensor<1x2x0x64xbf16>
}

// -----

func.func @empty_add(%a: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  // expected-error @+1 {{'linalg.add' op the CUDA backend does not launch kernels over empty tensors, got 'tensor<0x4xf32>'}}
  %0 = linalg.add ins(%a, %a : tensor<0x4xf32>, tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}
