// Dropout in the tensor-core attention kernels. One Philox4x32-10 call (10
// rounds of two 32x32->64 multiplies) gives the keep decisions of four
// adjacent keys of one row; a quad's lanes hold four such groups per 8-key
// n-tile. With Skv % 4 == 0 each lane draws one group per n-tile and swaps
// two words with lane ^ 1: a 64-key tile costs 8 calls per lane (160
// multiplies) and 16 shuffles. Other Skv keep one call per probability
// (a 64-key tile of one m-tile: 32 calls, no shuffles). Either way P is only
// zeroed: the epilogue divides by l * (1 - p) = l / 1.25 (p = 0.2).
//
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="chip=sm_80 attention-config=warps=4,mtiles=1,bn=64" | FileCheck %s
// RUN: sinter-opt %s --sinter-outline-cuda-kernels="chip=sm_90a attention-config=wgmma,pipe,mbar,pp,ws,warps=8,mtiles=1,bn=64" | FileCheck %s --check-prefix=WS

// CHECK-LABEL: func.func @groups
// CHECK: gpu.func @attention_0
// CHECK: scf.for
// CHECK-COUNT-20: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}} : i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}} : i32
// CHECK-COUNT-140: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: %[[KEPT:.*]] = arith.constant 1.250000e+00 : f32
// CHECK: arith.divf %[[KEPT]], %{{.*}} : f32
// CHECK: gpu.func @attention_1(%{{.*}}: memref<1x2x128x64xbf16>, %{{.*}}: memref<1x2x130x64xbf16>
// WS-LABEL: func.func @groups
// WS: gpu.func @attention_0
// WS: arith.cmpi uge, %{{.*}}, %c858993459_i32{{.*}} : i32
func.func @groups(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x256x64xbf16>,
                  %v: tensor<1x2x256x64xbf16>, %seed: i64)
    -> tensor<1x2x128x64xbf16> {
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x256x64xbf16>,
        tensor<1x2x256x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}} : i32
// CHECK-COUNT-640: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi uge, %{{.*}}, %c858993459_i32{{.*}} : i32
func.func @elements(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x130x64xbf16>,
                    %v: tensor<1x2x130x64xbf16>, %seed: i64)
    -> tensor<1x2x128x64xbf16> {
  %o = sinter.attention %q, %k, %v seed(%seed) {dropout_p = 2.0e-01 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x130x64xbf16>,
        tensor<1x2x130x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}
