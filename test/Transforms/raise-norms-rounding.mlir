// RUN: sinter-opt %s --sinter-normalize-frontend --sinter-raise-norms --split-input-file 2>&1 | FileCheck %s

// A LayerNorm of bf16 autocast's f32 residual stream and the rounding to
// the bf16 its matmul reads, reduced from the real torch-mlir output of
// the training forward (test/GPU/Inputs/train_gpt2_l1_bf16_forward.mlir,
// its first LayerNorm, unedited but for the function around it): the op
// takes the rounding and writes bf16. When the f32 output is also used
// (returned), the rounding is not taken: the op writes f32, the cast stays.

// CHECK-LABEL: func.func @rounded
//       CHECK: %[[Y:.*]] = sinter.layer_norm {{.*}} : tensor<1x64x768xf32> -> tensor<1x64x768xbf16>
//   CHECK-NOT: arith.truncf
//       CHECK: return %[[Y]]

// CHECK-LABEL: func.func @also_f32
//       CHECK: %[[Y:.*]] = sinter.layer_norm {{.*}} : tensor<1x64x768xf32> -> tensor<1x64x768xf32>
//       CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<1x64x768xf32>)
//       CHECK:   arith.truncf
//       CHECK: return %[[R]], %[[Y]]

#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map6 = affine_map<(d0) -> ()>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map8 = affine_map<(d0, d1, d2) -> (d2)>
#map9 = affine_map<() -> ()>
#map10 = affine_map<(d0, d1) -> (d1)>
#map11 = affine_map<(d0, d1) -> ()>
#map12 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @rounded(%27: tensor<1x64x768xf32>, %arg12: tensor<768xf32>, %arg13: tensor<768xf32>) -> (tensor<1x64x768xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_8 = arith.constant 1.000000e-05 : f64
    %cst_9 = arith.constant 7.680000e+02 : f32
    %0 = tensor.empty() : tensor<1x64x768xf32>
    %32 = tensor.empty() : tensor<1x64x1xf32>
    %33 = linalg.fill ins(%cst : f32) outs(%32 : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
    %34 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%27 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %35 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%34 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_15 = tensor.collapse_shape %35 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_15 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %37 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %36 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %38 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%37, %37 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %39 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%38 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %40 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%39 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %41 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%40 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.truncf %cst_8 : f64 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x1xf32>
    %42 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%41 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.rsqrt %in : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_16 = tensor.collapse_shape %42 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_16 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %44 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%37, %43 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %45 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44, %arg12 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %46 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%45, %arg13 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %49 = tensor.empty() : tensor<1x64x768xbf16>
    %r = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%46 : tensor<1x64x768xf32>) outs(%49 : tensor<1x64x768xbf16>) {
    ^bb0(%x: f32, %o: bf16):
      %t = arith.truncf %x : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<1x64x768xbf16>
    return %r : tensor<1x64x768xbf16>
  }
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map6 = affine_map<(d0) -> ()>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map8 = affine_map<(d0, d1, d2) -> (d2)>
#map9 = affine_map<() -> ()>
#map10 = affine_map<(d0, d1) -> (d1)>
#map11 = affine_map<(d0, d1) -> ()>
#map12 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @also_f32(%27: tensor<1x64x768xf32>, %arg12: tensor<768xf32>, %arg13: tensor<768xf32>) -> (tensor<1x64x768xbf16>, tensor<1x64x768xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_8 = arith.constant 1.000000e-05 : f64
    %cst_9 = arith.constant 7.680000e+02 : f32
    %0 = tensor.empty() : tensor<1x64x768xf32>
    %32 = tensor.empty() : tensor<1x64x1xf32>
    %33 = linalg.fill ins(%cst : f32) outs(%32 : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
    %34 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%27 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %35 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%34 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_15 = tensor.collapse_shape %35 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_15 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %37 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %36 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %38 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%37, %37 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %39 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%38 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %40 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%39 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %41 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%40 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.truncf %cst_8 : f64 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x1xf32>
    %42 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%41 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.rsqrt %in : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_16 = tensor.collapse_shape %42 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_16 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %44 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%37, %43 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %45 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44, %arg12 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %46 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%45, %arg13 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %49 = tensor.empty() : tensor<1x64x768xbf16>
    %r = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%46 : tensor<1x64x768xf32>) outs(%49 : tensor<1x64x768xbf16>) {
    ^bb0(%x: f32, %o: bf16):
      %t = arith.truncf %x : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<1x64x768xbf16>
    return %r, %46 : tensor<1x64x768xbf16>, tensor<1x64x768xf32>
  }
}
