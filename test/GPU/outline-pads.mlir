// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -split-input-file | FileCheck %s

// High pads with a constant value run as elementwise kernels over the
// padded shape (lib/GPU/PadKernel.cpp); the elementwise op that produced
// the source, when nothing else reads it, runs in the same kernel.

// GPT-2's cross-entropy gradient padded to 16-byte rows for the lm_head's
// GEMMs (sinter-pad-matmuls), reduced from its real backward: one kernel
// over [4, 16] reads the chain's inputs at clamped columns and stores
// zero past column 13. The one-hot's column iota (torch-mlir's arange, an
// index-only generic) is computed in the kernel, not loaded: no launch
// and no argument for it.
// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK-NOT: sinter.fused
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func @sinter_kernels::@pad_0 {{.*}} args(%{{.*}} : memref<4x13xbf16>, %{{.*}} : memref<4x1xi64>, %{{.*}} : memref<4x1xf32>, %{{.*}} : memref<4x16xbf16>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: gpu.func @pad_0
// CHECK: %[[LAST:.*]] = arith.constant 12 : index
// CHECK: arith.minui %{{.*}}, %[[LAST]]
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: math.exp
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ZERO]] : bf16
// CHECK: vector.store {{.*}} vector<8xbf16>
func.func @cross_entropy_grad(%x: tensor<4x13xbf16>, %lab: tensor<4x1xi64>, %lse: tensor<4x1xf32>) -> tensor<4x16xbf16> {
  %ie = tensor.empty() : tensor<13xi64>
  %iota = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ie : tensor<13xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<13xi64>
  %cols = tensor.expand_shape %iota [[0, 1]] output_shape [1, 13] : tensor<13xi64> into tensor<1x13xi64>
  %g = sinter.fused ins(%x, %cols, %lab, %lse : tensor<4x13xbf16>, tensor<1x13xi64>, tensor<4x1xi64>, tensor<4x1xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>] {
  ^bb0(%a: bf16, %c: i64, %l: i64, %m: f32):
    %e = arith.extf %a : bf16 to f32
    %eq = arith.cmpi eq, %c, %l : i64
    %s = arith.subf %e, %m : f32
    %oh = arith.uitofp %eq : i1 to f32
    %p = math.exp %s : f32
    %d = arith.subf %p, %oh : f32
    %r = arith.truncf %d : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<4x13xbf16>
  %zero = arith.constant 0.0 : bf16
  %padded = tensor.pad %g low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : bf16
  } : tensor<4x13xbf16> to tensor<4x16xbf16>
  return %padded : tensor<4x16xbf16>
}

// -----

// Rows padded (a tied weight, cast then padded, as GPT-2's backward
// does): the outer coordinate is clamped; the rows past the source store
// the pad value; the innermost dimension keeps vector loads.
// CHECK-LABEL: func.func @rows
// CHECK: gpu.launch_func @sinter_kernels::@pad_0 {{.*}} args(%{{.*}} : memref<13x64xf32>, %{{.*}} : memref<16x64xbf16>)
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @pad_0
// CHECK: arith.minui %{{.*}}, %c12
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: arith.truncf
// CHECK: arith.select
func.func @rows(%w: tensor<13x64xf32>) -> tensor<16x64xbf16> {
  %e = tensor.empty() : tensor<13x64xbf16>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<13x64xf32>) outs(%e : tensor<13x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<13x64xbf16>
  %zero = arith.constant 0.0 : bf16
  %padded = tensor.pad %c low[0, 0] high[3, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : bf16
  } : tensor<13x64xbf16> to tensor<16x64xbf16>
  return %padded : tensor<16x64xbf16>
}

// -----

// Must not fuse: the chain's result is read elsewhere too (it is stored
// by its own kernel, and the pad copies it); a chain with dropout (its
// Philox counters are the unpadded linear indices). Both pads copy, in
// one deduplicated kernel.
// CHECK-LABEL: func.func @not_fused
// CHECK: gpu.launch_func @sinter_kernels::@fused_0
// CHECK: gpu.launch_func @sinter_kernels::@pad_1 {{.*}} args(%{{.*}} : memref<4x13xf32>, %{{.*}} : memref<4x16xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@fused_2
// CHECK: gpu.launch_func @sinter_kernels::@pad_1 {{.*}} args(%{{.*}} : memref<4x13xf32>, %{{.*}} : memref<4x16xf32>)
func.func @not_fused(%x: tensor<4x13xf32>, %seed: i64) -> (tensor<4x16xf32>, tensor<4x13xf32>, tensor<4x16xf32>) {
  %g = sinter.fused ins(%x : tensor<4x13xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    sinter.yield %n : f32
  } -> tensor<4x13xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %g low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x13xf32> to tensor<4x16xf32>
  %d = sinter.fused ins(%x, %seed : tensor<4x13xf32>, i64) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>] {
  ^bb0(%a: f32, %s: i64):
    %r = sinter.dropout %a, %s p = 1.000000e-01 : f32
    sinter.yield %r : f32
  } -> tensor<4x13xf32>
  %pd = tensor.pad %d low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x13xf32> to tensor<4x16xf32>
  return %p, %g, %pd : tensor<4x16xf32>, tensor<4x13xf32>, tensor<4x16xf32>
}

// -----

// A low pad (TOSA's cumsum shifts so) stays a gather on the serial
// kernel.
// CHECK-LABEL: func.func @low_pad
// CHECK: gpu.launch_func @sinter_kernels::@generic_0
// CHECK-NOT: @pad_
func.func @low_pad(%x: tensor<4x13xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 3] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x13xf32> to tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// -----

// Must not drop an arange that a reduction also reads: the elementwise
// kernel computes it, and its own kernel still runs for the reduction.
// (Launches are in program order: the arange's first.)
// CHECK-LABEL: func.func @iota_also_reduced
// CHECK: gpu.launch_func @sinter_kernels::@generic_
// CHECK: gpu.launch_func @sinter_kernels::@fused_{{[0-9]+}} {{.*}}args(%{{.*}} : memref<4x13xf32>, %{{.*}} : memref<4x13xf32>)
// CHECK: gpu.launch_func @sinter_kernels::@reduce_
func.func @iota_also_reduced(%x: tensor<4x13xf32>) -> (tensor<4x13xf32>, tensor<f32>) {
  %ie = tensor.empty() : tensor<13xf32>
  %iota = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ie : tensor<13xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  } -> tensor<13xf32>
  %y = sinter.fused ins(%x, %iota : tensor<4x13xf32>, tensor<13xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    sinter.yield %s : f32
  } -> tensor<4x13xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce { arith.addf } ins(%iota : tensor<13xf32>) outs(%z : tensor<f32>) dimensions = [0]
  return %y, %r : tensor<4x13xf32>, tensor<f32>
}

// -----

// The same gradient when the forward saved the padded logits
// (python/sinter/torch/_padded_saves.py): the chain reads a slice of the
// saved [4, 16] product. The pad kernel reads the slice in its source at
// the slice's offsets (row stride 16): no copy kernel moves the slice out;
// its rows reach the padded width, so each lane loads a whole vector (the
// lanes past column 12 read the padding, and store the pad value).
// CHECK-LABEL: func.func @cross_entropy_grad_of_padded_logits
// CHECK-NOT: @extract_slice_
// CHECK: gpu.launch_func @sinter_kernels::@pad_0 {{.*}} args(%{{.*}} : memref<4x16xbf16>, %{{.*}} : memref<4x1xf32>, %{{.*}} : memref<4x16xbf16>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: gpu.func @pad_0
// CHECK: vector.load %{{.*}} : memref<64xbf16>, vector<8xbf16>
// CHECK: math.exp
func.func @cross_entropy_grad_of_padded_logits(%saved: tensor<4x16xbf16>, %lse: tensor<4x1xf32>) -> tensor<4x16xbf16> {
  %x = tensor.extract_slice %saved[0, 0] [4, 13] [1, 1] : tensor<4x16xbf16> to tensor<4x13xbf16>
  %g = sinter.fused ins(%x, %lse : tensor<4x13xbf16>, tensor<4x1xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>] {
  ^bb0(%a: bf16, %m: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.subf %e, %m : f32
    %p = math.exp %s : f32
    %r = arith.truncf %p : f32 to bf16
    sinter.yield %r : bf16
  } -> tensor<4x13xbf16>
  %zero = arith.constant 0.0 : bf16
  %padded = tensor.pad %g low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : bf16
  } : tensor<4x13xbf16> to tensor<4x16xbf16>
  return %padded : tensor<4x16xbf16>
}

// -----

// A slice a chain reads and something else returns is copied once, and
// the pad kernel reads the copy.
// CHECK-LABEL: func.func @slice_also_returned
// CHECK: gpu.launch_func @sinter_kernels::@extract_slice_0 {{.*}} args(%{{.*}} : memref<4x16xbf16>, %[[COPY:.*]] : memref<4x13xbf16>)
// CHECK: gpu.launch_func @sinter_kernels::@pad_1 {{.*}} args(%{{.*}} : memref<4x13xbf16>, %{{.*}} : memref<4x16xbf16>)
func.func @slice_also_returned(%saved: tensor<4x16xbf16>) -> (tensor<4x16xbf16>, tensor<4x13xbf16>) {
  %x = tensor.extract_slice %saved[0, 0] [4, 13] [1, 1] : tensor<4x16xbf16> to tensor<4x13xbf16>
  %g = sinter.fused ins(%x : tensor<4x13xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: bf16):
    %e = arith.addf %a, %a : bf16
    sinter.yield %e : bf16
  } -> tensor<4x13xbf16>
  %zero = arith.constant 0.0 : bf16
  %padded = tensor.pad %g low[0, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : bf16
  } : tensor<4x13xbf16> to tensor<4x16xbf16>
  return %padded, %x : tensor<4x16xbf16>, tensor<4x13xbf16>
}
