// Leftover reductions compile for the GPU with sinterc (fusion pipeline
// included): manifest, PTX and cubin, one general-path launch per
// reduction; no GPU needed. The -inf fill lives in the kernel, not in the
// manifest. Reductions of 256 points or more whose result is a sum or a
// max of the accumulator take a warp (32 lanes) per output element and
// combine the lanes by shuffles: 64 rows -> 2048 threads, 8 blocks of 256,
// each lane reading 16-byte vectors of its row (RowVectorReduction.cpp);
// the bf16 matmul's 96-long reduction stays one thread per element. Sums
// and maxes over a leading axis take the column form (ColumnReduction.cpp):
// 1000 columns -> 32 blocks of 32 columns, one chunk of its 300 rows (a
// chunk is at least 8 warps x 8 rows x 4 trips), which rounds to bf16.
// RUN: rm -rf %t && sinterc %s --target=cuda:sm_90a -o %t --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/kernels.ptx
// RUN: %python %S/Inputs/check_cubin.py %t sm_90a
// RUN: sinterc %s --target=cuda:sm_80 --emit=ptx -o - --quiet | FileCheck %s --check-prefix=SM80

// MANIFEST: "target": "cuda:sm_90a"
// MANIFEST: "name": "row_sum"
// MANIFEST: "kernel": "reduce_0"
// MANIFEST-NEXT: "grid": [
// MANIFEST-NEXT: 8,
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "name": "column_sum"
// MANIFEST: "dtype": "bfloat16"
// MANIFEST: "kernel": "reduce_1"
// MANIFEST-NEXT: "grid": [
// MANIFEST-NEXT: 32,
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST-NOT: "kernel": "reduce_1_1"
// MANIFEST: "name": "max_middle"
// MANIFEST: "kernel": "reduce_2"
// MANIFEST-NOT: "bits"
// MANIFEST: "name": "linear_tb"
// MANIFEST: "kernel": "reduce_3"
// MANIFEST-NEXT: "grid": [
// MANIFEST-NEXT: 79,

// PTX: .target sm_90a
// PTX: .entry reduce_0(
// PTX: ld.global.v4.b32
// PTX: add.rn.f32
// PTX: shfl.sync.bfly.b32
// PTX: st.global.b32
// PTX: .entry reduce_1(
// PTX: ld.global.b16
// PTX: cvt.f32.bf16
// PTX: add.rn.f32
// PTX: bar.sync
// PTX: cvt.rn.bf16.f32
// PTX: st.global.b16
// PTX-NOT: .entry reduce_1_1(
// PTX: .entry reduce_2(
// PTX: 0fFF800000
// PTX: max.NaN.f32
// PTX: .entry reduce_3(
// PTX: mul.rn.f32
// PTX: add.rn.f32
// PTX: cvt.rn.bf16.f32

// SM80: .target sm_80
// SM80-COUNT-4: .entry reduce_
func.func @row_sum(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @column_sum(%x: tensor<300x1000xbf16>) -> tensor<1000xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1000xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<1000xbf16>) -> tensor<1000xbf16>
  %r = linalg.reduce ins(%x : tensor<300x1000xbf16>) outs(%z : tensor<1000xbf16>) dimensions = [0]
    (%in: bf16, %init: bf16) {
      %0 = arith.addf %in, %init : bf16
      linalg.yield %0 : bf16
    }
  return %r : tensor<1000xbf16>
}
func.func @max_middle(%x: tensor<6x333x40xf32>) -> tensor<6x40xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<6x40xf32>
  %z = linalg.fill ins(%ninf : f32) outs(%e : tensor<6x40xf32>) -> tensor<6x40xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<6x333x40xf32>) outs(%z : tensor<6x40xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6x40xf32>
  return %r : tensor<6x40xf32>
}
func.func @linear_tb(%x: tensor<100x96xbf16>, %w: tensor<200x96xbf16>) -> tensor<100x200xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<100x200xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<100x200xbf16>) -> tensor<100x200xbf16>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<100x96xbf16>, tensor<200x96xbf16>) outs(%z : tensor<100x200xbf16>) -> tensor<100x200xbf16>
  return %r : tensor<100x200xbf16>
}
