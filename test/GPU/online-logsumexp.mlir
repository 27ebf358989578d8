// sinter-online-logsumexp: a logsumexp's max and sum-of-exponentials
// reductions (torch-mlir's log_softmax in a cross-entropy, reduced from
// the real GPT-2 forward: logits rounded to bf16, torch's guard on an
// infinite max) become one reduction with two results and a fixup; forms
// that differ stay two reductions. Then the CPU runs both programs (the
// merged reduction serially) on rows with infinite maxima, an empty sum
// and NaN, and the results must agree; and the CUDA kernel splits the
// merged reduction across a warp's lanes (shuffles of both results).
//
// REQUIRES: numpy
// RUN: sinter-opt %s --sinter-online-logsumexp | FileCheck %s
// RUN: sinter-opt %s --sinter-online-logsumexp -o %t.mlir
// RUN: %python %S/Inputs/online_logsumexp.py %s %t.mlir | FileCheck %s --check-prefix=CPU
// RUN: sinter-opt %s --pass-pipeline='builtin.module(func.func(sinter-online-logsumexp),sinter-outline-cuda-kernels{chip=sm_90a})' | FileCheck %s --check-prefix=KERNEL
// RUN: rm -rf %t.d && sinterc %s --no-fusion --target=cuda:sm_90a -o %t.d --quiet

#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#bc = affine_map<(d0, d1) -> (d0, 0)>

// CHECK-LABEL: func.func @guarded
// CHECK: %[[MS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<6x1000xf32>) outs(%{{.*}}, %{{.*}} : tensor<6xf32>, tensor<6xf32>) attrs = {sinter.online_logsumexp}
// CHECK: arith.truncf
// CHECK: math.exp2
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[MS]]#0, %[[MS]]#1 : tensor<6xf32>, tensor<6xf32>)
// CHECK: math.absf
// CHECK: arith.select
// CHECK: math.exp
// CHECK: return %[[MS]]#0, %[[S]]
// CHECK-NOT: linalg.generic
func.func @guarded(%x: tensor<6x1000xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inf64 = arith.constant 0x7FF0000000000000 : f64
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xf32>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.truncf %in : f32 to bf16
    %a = arith.extf %r : bf16 to f32
    %n = arith.maximumf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %me = tensor.expand_shape %max [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #bc, #bc, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %me, %me : tensor<6x1000xf32>, tensor<6x1xf32>, tensor<6x1xf32>) outs(%zeros : tensor<6xf32>) {
  ^bb0(%in: f32, %m1: f32, %m2: f32, %acc: f32):
    %ab = math.absf %m1 : f32
    %ab64 = arith.extf %ab : f32 to f64
    %isinf = arith.cmpf oeq, %ab64, %inf64 : f64
    %g = arith.select %isinf, %zero, %m2 : f32
    %r = arith.truncf %in : f32 to bf16
    %a = arith.extf %r : bf16 to f32
    %d = arith.subf %a, %g : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %max, %sum : tensor<6xf32>, tensor<6xf32>
}

// The max read directly (no expand_shape), no guard, no rounding.
// CHECK-LABEL: func.func @plain
// CHECK: linalg.generic {{.*}} attrs = {sinter.online_logsumexp}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
func.func @plain(%x: tensor<6x1000xf32>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xf32>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.maximumf %acc, %in : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x1000xf32>, tensor<6xf32>) outs(%zeros : tensor<6xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %sum : tensor<6xf32>
}

// The guard as the fusion pipeline leaves it: a sinter.fused of the
// expanded max that the sum reads; the fixup applies its body to M.
// CHECK-LABEL: func.func @guard_fused
// CHECK: %[[MS:.*]]:2 = linalg.generic {{.*}} attrs = {sinter.online_logsumexp}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[MS]]#0, %[[MS]]#1
// CHECK: math.absf
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: math.exp
func.func @guard_fused(%x: tensor<6x1000xbf16>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xbf16>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %n = arith.maximumf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %me = tensor.expand_shape %max [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %g = sinter.fused ins(%me : tensor<6x1xf32>) maps [#x] {
  ^bb0(%m: f32):
    %z = arith.constant 0.0 : f32
    %inf64 = arith.constant 0x7FF0000000000000 : f64
    %ab = math.absf %m : f32
    %ab64 = arith.extf %ab : f32 to f64
    %isinf = arith.cmpf oeq, %ab64, %inf64 : f64
    %r = arith.select %isinf, %z, %m : f32
    sinter.yield %r : f32
  } -> tensor<6x1xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #bc, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %g : tensor<6x1000xbf16>, tensor<6x1xf32>) outs(%zeros : tensor<6xf32>) {
  ^bb0(%in: bf16, %gm: f32, %acc: f32):
    %a = arith.extf %in : bf16 to f32
    %d = arith.subf %a, %gm : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %sum : tensor<6xf32>
}

// Left alone: a sum that starts from 1 (the online form needs 0).
// CHECK-LABEL: func.func @sum_from_one
// CHECK-NOT: sinter.online_logsumexp
// CHECK: return
func.func @sum_from_one(%x: tensor<6x1000xf32>) -> tensor<6xf32> {
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xf32>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.maximumf %in, %acc : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %ones = linalg.fill ins(%one : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x1000xf32>, tensor<6xf32>) outs(%ones : tensor<6xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %sum : tensor<6xf32>
}

// Left alone: the sum's exponent reads the logits rounded, the max reduces
// them unrounded (not the same per-point value).
// CHECK-LABEL: func.func @other_value
// CHECK-NOT: sinter.online_logsumexp
// CHECK: return
func.func @other_value(%x: tensor<6x1000xf32>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xf32>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.maximumf %in, %acc : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x1000xf32>, tensor<6xf32>) outs(%zeros : tensor<6xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %r = arith.truncf %in : f32 to bf16
    %a = arith.extf %r : bf16 to f32
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %sum : tensor<6xf32>
}

// Left alone: 2^(x - max) is not this pattern's exponential.
// CHECK-LABEL: func.func @exp2_sum
// CHECK-NOT: sinter.online_logsumexp
// CHECK: return
func.func @exp2_sum(%x: tensor<6x1000xf32>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %minf = linalg.fill ins(%ninf : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1000xf32>) outs(%minf : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.maximumf %in, %acc : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x1000xf32>, tensor<6xf32>) outs(%zeros : tensor<6xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp2 %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %sum : tensor<6xf32>
}

// CPU: guarded max ok
// CPU: guarded sum ok
// CPU: plain sum ok
// CPU: guard_fused sum ok
// CPU: ALL AGREE

// The kernel of @guarded: a warp per row, each lane from the pair's
// identities (-inf, 0), reading its row as vectors of 4 f32 (250 of them:
// two per trip while both are in range, then one; exp2 per point; 1000 is
// a multiple of 4, so no point is left for a lane alone), both results
// shuffled across the warp and combined as a pair. (GPT-2's 64-row forward
// in train-real-ir.test takes the block per row form, its warps' pairs
// meeting in shared memory.)
// KERNEL-LABEL: gpu.func @reduce_{{[0-9]+}}(%{{.*}}: memref<6x1000xf32>, %{{.*}}: memref<6xf32>, %{{.*}}: memref<6xf32>) kernel
// KERNEL: arith.constant 0xFF800000 : f32
// KERNEL-NEXT: arith.constant 0.000000e+00 : f32
// KERNEL: scf.for {{.*}} to %c218 step %c64 iter_args({{.*}}) -> (f32, f32)
// KERNEL: vector.load {{.*}} : memref<6000xf32>, vector<4xf32>
// KERNEL-COUNT-4: math.exp2
// KERNEL: vector.load {{.*}} : memref<6000xf32>, vector<4xf32>
// KERNEL-COUNT-4: math.exp2
// KERNEL: scf.for {{.*}} to %c250 step %c32
// KERNEL: vector.load {{.*}} : memref<6000xf32>, vector<4xf32>
// KERNEL-COUNT-4: math.exp2
// KERNEL-NOT: scf.for
// KERNEL: gpu.shuffle  xor %{{.*}}, %c16_i32
// KERNEL: gpu.shuffle  xor %{{.*}}, %c16_i32
// KERNEL: arith.cmpf ogt
// KERNEL: math.exp2
// KERNEL: arith.maximumf
