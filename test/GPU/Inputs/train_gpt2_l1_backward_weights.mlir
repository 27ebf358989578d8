// torch-mlir 20261001's import (linalg-on-tensors) of a partition of the backend's AOTAutograd graphs, unedited:
// bench/train_gpt2.py aot CACHE --layers 1 --batch 1 --seq 64 with SINTER_TORCH_DUMP (torch 2.11.0, f32).
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
module {
  func.func @main(%arg0: tensor<64x50257xf32>, %arg1: tensor<1x64x768xf32>, %arg2: tensor<1x64x768xf32>, %arg3: tensor<64x768xf32>, %arg4: tensor<64x3072xf32>, %arg5: tensor<1x64x768xf32>, %arg6: tensor<1x64x768xf32>, %arg7: tensor<64x768xf32>, %arg8: tensor<64x2304xf32>, %arg9: tensor<1x64x768xf32>, %arg10: tensor<1x64x768xf32>, %arg11: tensor<1x64x768xf32>, %arg12: tensor<64x768xf32>, %arg13: tensor<64x3072xf32>, %arg14: tensor<64x768xf32>, %arg15: tensor<64x768xf32>, %arg16: tensor<64x768xf32>, %arg17: tensor<50257x768xf32>) -> (tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<2304xf32>, tensor<768xf32>, tensor<64x768xf32>, tensor<768x3072xf32>, tensor<3072x768xf32>, tensor<768x768xf32>, tensor<2304x768xf32>, tensor<50257x768xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<50257x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<64x50257xf32>) outs(%0 : tensor<50257x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<1x64x768xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%1 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %44 = arith.mulf %in, %in_8 : f32
      linalg.yield %44 : f32
    } -> tensor<1x64x768xf32>
    %3 = tensor.empty() : tensor<768xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<768xf32>) -> tensor<768xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg1 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %6 = tensor.empty() : tensor<768x64xf32>
    %transposed_0 = linalg.transpose ins(%arg3 : tensor<64x768xf32>) outs(%6 : tensor<768x64xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<1x768xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x768xf32>) -> tensor<1x768xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%arg3 : tensor<64x768xf32>) outs(%8 : tensor<1x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<1x768xf32>
    %10 = tensor.empty() : tensor<3072x64xf32>
    %transposed_1 = linalg.transpose ins(%arg4 : tensor<64x3072xf32>) outs(%10 : tensor<3072x64xf32>) permutation = [1, 0] 
    %11 = tensor.empty() : tensor<1x3072xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<1x3072xf32>) -> tensor<1x3072xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%arg4 : tensor<64x3072xf32>) outs(%12 : tensor<1x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<1x3072xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg5, %arg6 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%1 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %44 = arith.mulf %in, %in_8 : f32
      linalg.yield %44 : f32
    } -> tensor<1x64x768xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg5 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %transposed_2 = linalg.transpose ins(%arg7 : tensor<64x768xf32>) outs(%6 : tensor<768x64xf32>) permutation = [1, 0] 
    %16 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%arg7 : tensor<64x768xf32>) outs(%8 : tensor<1x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<1x768xf32>
    %17 = tensor.empty() : tensor<2304x64xf32>
    %transposed_3 = linalg.transpose ins(%arg8 : tensor<64x2304xf32>) outs(%17 : tensor<2304x64xf32>) permutation = [1, 0] 
    %18 = tensor.empty() : tensor<1x2304xf32>
    %19 = linalg.fill ins(%cst : f32) outs(%18 : tensor<1x2304xf32>) -> tensor<1x2304xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%arg8 : tensor<64x2304xf32>) outs(%19 : tensor<1x2304xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<1x2304xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg9, %arg10 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%1 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %44 = arith.mulf %in, %in_8 : f32
      linalg.yield %44 : f32
    } -> tensor<1x64x768xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg9 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %23 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x64x768xf32>) -> tensor<1x64x768xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel", "parallel"]} ins(%arg11 : tensor<1x64x768xf32>) outs(%23 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<1x64x768xf32>
    %25 = tensor.empty() : tensor<50257x768xf32>
    %26 = linalg.fill ins(%cst : f32) outs(%25 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
    %27 = linalg.matmul ins(%transposed, %arg12 : tensor<50257x64xf32>, tensor<64x768xf32>) outs(%26 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%2 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %29 = tensor.empty() : tensor<768x3072xf32>
    %30 = linalg.fill ins(%cst : f32) outs(%29 : tensor<768x3072xf32>) -> tensor<768x3072xf32>
    %31 = linalg.matmul ins(%transposed_0, %arg13 : tensor<768x64xf32>, tensor<64x3072xf32>) outs(%30 : tensor<768x3072xf32>) -> tensor<768x3072xf32>
    %collapsed = tensor.collapse_shape %9 [[0, 1]] : tensor<1x768xf32> into tensor<768xf32>
    %32 = tensor.empty() : tensor<3072x768xf32>
    %33 = linalg.fill ins(%cst : f32) outs(%32 : tensor<3072x768xf32>) -> tensor<3072x768xf32>
    %34 = linalg.matmul ins(%transposed_1, %arg14 : tensor<3072x64xf32>, tensor<64x768xf32>) outs(%33 : tensor<3072x768xf32>) -> tensor<3072x768xf32>
    %collapsed_4 = tensor.collapse_shape %13 [[0, 1]] : tensor<1x3072xf32> into tensor<3072xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%14 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %36 = tensor.empty() : tensor<768x768xf32>
    %37 = linalg.fill ins(%cst : f32) outs(%36 : tensor<768x768xf32>) -> tensor<768x768xf32>
    %38 = linalg.matmul ins(%transposed_2, %arg15 : tensor<768x64xf32>, tensor<64x768xf32>) outs(%37 : tensor<768x768xf32>) -> tensor<768x768xf32>
    %collapsed_5 = tensor.collapse_shape %16 [[0, 1]] : tensor<1x768xf32> into tensor<768xf32>
    %39 = tensor.empty() : tensor<2304x768xf32>
    %40 = linalg.fill ins(%cst : f32) outs(%39 : tensor<2304x768xf32>) -> tensor<2304x768xf32>
    %41 = linalg.matmul ins(%transposed_3, %arg16 : tensor<2304x64xf32>, tensor<64x768xf32>) outs(%40 : tensor<2304x768xf32>) -> tensor<2304x768xf32>
    %collapsed_6 = tensor.collapse_shape %20 [[0, 1]] : tensor<1x2304xf32> into tensor<2304xf32>
    %42 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%21 : tensor<1x64x768xf32>) outs(%4 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %44 = arith.addf %in, %out : f32
      linalg.yield %44 : f32
    } -> tensor<768xf32>
    %collapsed_7 = tensor.collapse_shape %24 [[0, 1], [2]] : tensor<1x64x768xf32> into tensor<64x768xf32>
    %43 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%27, %arg17 : tensor<50257x768xf32>, tensor<50257x768xf32>) outs(%25 : tensor<50257x768xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %44 = arith.addf %in, %in_8 : f32
      linalg.yield %44 : f32
    } -> tensor<50257x768xf32>
    return %5, %15, %22, %28, %collapsed, %collapsed_4, %35, %collapsed_5, %collapsed_6, %42, %collapsed_7, %31, %34, %38, %41, %43 : tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<2304xf32>, tensor<768xf32>, tensor<64x768xf32>, tensor<768x3072xf32>, tensor<3072x768xf32>, tensor<768x768xf32>, tensor<2304x768xf32>, tensor<50257x768xf32>
  }
}
