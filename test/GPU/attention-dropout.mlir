// Dropout in the tensor-core attention kernels. One Philox4x32-10 call (10
// rounds of two 32x32->64 multiplies, each a multiply-high and an i32
// multiply; the first round's second product is of a zero counter word and
// folds: 19 multiply-highs per call) gives the 16-bit draws of eight
// adjacent keys of one row, two per word. With Skv % 8 == 0 each lane draws
// one call per pair of 8-key n-tiles (a warp's 16 rows x 16 keys) and the
// warp exchanges the words through its 512-byte stage: a 16-byte store
// between two warp barriers, then one ldmatrix.x4 of 16-bit elements
// (DropoutStage.h). A 64-key tile costs 4 calls per lane (76 multiply-highs).
// Other Skv keep one call per probability (a 64-key tile of one m-tile: 32
// calls, no exchange). Either way P is only zeroed: the epilogue divides by
// l * (1 - p) = l / 1.25 (p = 0.2; the threshold is floor(0.2 * 2^16) << 16
// = 858980352).
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="chip=sm_80 attention-config=warps=4,mtiles=1,bn=64" | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="chip=sm_90a attention-config=wgmma,pipe,mbar,pp,ws,warps=8,mtiles=1,bn=64" | FileCheck %s --check-prefix=WS
//
// torch-mlir's train-mode GPT-2 with its dropouts raised: the seed is read
// from the generator's 0-d state tensor (tensor.extract), which the kernels
// take as that tensor (@seed_from_state below reduces it).
// RUN: rm -rf %t && sinterc %S/../Frontends/Inputs/gpt2_eager_b2_f32_train.linalg.mlir --target=cuda:sm_90a --allow-rng-change -o %t 2>&1 | FileCheck %s --check-prefix=TRAIN
// TRAIN-NOT: error
// TRAIN: outline {{.*}}(7 tuned kernels (attention 1, fused 3, layer_norm 3)
// TRAIN-NOT: error

// CHECK-LABEL: func.func @groups
// The stages: 4 warps x 512 bytes beside the tiles (27648 bytes, as
// @elements).
// CHECK: gpu.launch_func @sinter_kernels::@attention_0 {{.*}} dynamic_shared_memory_size %c29696_i32
// CHECK: gpu.func @attention_0
// CHECK: scf.for
// CHECK-COUNT-19: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: nvvm.bar.warp.sync
// CHECK: vector.store %{{.*}} : memref<512xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x16xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-57: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: %[[KEPT:.*]] = arith.constant 1.250000e+00 : f32
// CHECK: arith.divf %[[KEPT]], %{{.*}} : f32
// CHECK: gpu.func @attention_1(%{{.*}}: memref<1x2x128x64xbf16>, %{{.*}}: memref<1x2x130x64xbf16>
// WS-LABEL: func.func @groups
// WS: gpu.func @attention_0
// WS: arith.cmpi uge, %{{.*}}, %c858980352_i32{{.*}} : i32
func.func @groups(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x256x64xbf16>,
                  %v: tensor<1x2x256x64xbf16>, %seed: i64)
    -> tensor<1x2x128x64xbf16> {
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x256x64xbf16>,
        tensor<1x2x256x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// CHECK-NOT: nvvm.bar.warp.sync
// CHECK-COUNT-608: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: arith.cmpi uge, %{{.*}}, %c858980352_i32{{.*}} : i32
func.func @elements(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x130x64xbf16>,
                    %v: tensor<1x2x130x64xbf16>, %seed: i64)
    -> tensor<1x2x128x64xbf16> {
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x130x64xbf16>,
        tensor<1x2x130x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// Skv % 8 == 4: a call's eight draws would straddle two rows; one call per
// probability.
// CHECK: gpu.func @attention_2(%{{.*}}: memref<1x2x128x64xbf16>, %{{.*}}: memref<1x2x132x64xbf16>
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK-COUNT-608: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
func.func @four_not_eight(%q: tensor<1x2x128x64xbf16>,
                          %k: tensor<1x2x132x64xbf16>,
                          %v: tensor<1x2x132x64xbf16>, %seed: i64)
    -> tensor<1x2x128x64xbf16> {
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x132x64xbf16>,
        tensor<1x2x132x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// The seed read from a 0-d tensor (torch-mlir's generator state): the
// launch passes the tensor and the kernel loads it.
// CHECK: gpu.func @attention_3(%{{.*}}: memref<1x2x128x64xbf16>, %{{.*}}: memref<1x2x256x64xbf16>, %{{.*}}: memref<1x2x256x64xbf16>, %[[STATE:.*]]: memref<i64>
// CHECK: memref.load %[[STATE]][] : memref<i64>
func.func @seed_from_state(%q: tensor<1x2x128x64xbf16>,
                           %k: tensor<1x2x256x64xbf16>,
                           %v: tensor<1x2x256x64xbf16>, %state: tensor<i64>)
    -> tensor<1x2x128x64xbf16> {
  %seed = tensor.extract %state[] : tensor<i64>
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x256x64xbf16>,
        tensor<1x2x256x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}
