// torch-mlir 20261001's import (linalg-on-tensors) of a partition of the backend's AOTAutograd graphs, unedited:
// bench/train_gpt2.py aot CACHE --layers 1 --batch 1 --seq 64 with SINTER_TORCH_DUMP (torch 2.11.0, f32).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<() -> ()>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map8 = affine_map<(d0, d1, d2) -> (d2)>
#map9 = affine_map<(d0, d1) -> (d0)>
#map10 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @main(%arg0: tensor<1x12x64x64xf32>, %arg1: tensor<1x12x64xf32>, %arg2: tensor<768x768xf32>, %arg3: tensor<3072x768xf32>, %arg4: tensor<768x3072xf32>, %arg5: tensor<50257x768xf32>, %arg6: tensor<1x64xi64>, %arg7: tensor<768xf32>, %arg8: tensor<1x64x768xf32>, %arg9: tensor<768xf32>, %arg10: tensor<768xf32>, %arg11: tensor<3072xf32>, %arg12: tensor<768xf32>, %arg13: tensor<768xf32>, %arg14: tensor<768xf32>) -> (tensor<1x12x64x64xf32>, tensor<1x12x64xf32>, tensor<768x768xf32>, tensor<768x3072xf32>, tensor<3072x768xf32>, tensor<768x50257xf32>, tensor<64xi64>, tensor<64x768xf32>, tensor<f32>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<64x768xf32>, tensor<1x64x3072xf32>, tensor<64x3072xf32>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<64x768xf32>, tensor<64x50257xf32>, tensor<64x50257xf32>, tensor<f32>) {
    %c-100_i64 = arith.constant -100 : i64
    %c50257 = arith.constant 50257 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.471500e-02 : f32
    %cst_1 = arith.constant 7.977240e-01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_6 = arith.constant 1.000000e-05 : f64
    %cst_7 = arith.constant 7.680000e+02 : f32
    %cst_8 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<1x64x12x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<1x12x64x64xf32>) outs(%0 : tensor<1x64x12x64xf32>) permutation = [0, 2, 1, 3] 
    %1 = tensor.empty() : tensor<768x768xf32>
    %transposed_9 = linalg.transpose ins(%arg2 : tensor<768x768xf32>) outs(%1 : tensor<768x768xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<768x3072xf32>
    %transposed_10 = linalg.transpose ins(%arg3 : tensor<3072x768xf32>) outs(%2 : tensor<768x3072xf32>) permutation = [1, 0] 
    %3 = tensor.empty() : tensor<3072x768xf32>
    %transposed_11 = linalg.transpose ins(%arg4 : tensor<768x3072xf32>) outs(%3 : tensor<3072x768xf32>) permutation = [1, 0] 
    %4 = tensor.empty() : tensor<768x50257xf32>
    %transposed_12 = linalg.transpose ins(%arg5 : tensor<50257x768xf32>) outs(%4 : tensor<768x50257xf32>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %arg6 [[0, 1]] : tensor<1x64xi64> into tensor<64xi64>
    %5 = tensor.empty() : tensor<64xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed : tensor<64xi64>) outs(%5 : tensor<64xi1>) {
    ^bb0(%in: i64, %out: i1):
      %77 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %77 : i1
    } -> tensor<64xi1>
    %7 = tensor.empty() : tensor<64xi64>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel"]} ins(%6, %collapsed, %cst_8 : tensor<64xi1>, tensor<64xi64>, tensor<i64>) outs(%7 : tensor<64xi64>) {
    ^bb0(%in: i1, %in_26: i64, %in_27: i64, %out: i64):
      %77 = arith.select %in, %in_26, %in_27 : i64
      linalg.yield %77 : i64
    } -> tensor<64xi64>
    %9 = tensor.empty() : tensor<i64>
    %10 = linalg.fill ins(%c0_i64 : i64) outs(%9 : tensor<i64>) -> tensor<i64>
    %11 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%6 : tensor<64xi1>) outs(%10 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %77 = arith.extui %in : i1 to i64
      %78 = arith.addi %77, %out : i64
      linalg.yield %78 : i64
    } -> tensor<i64>
    %collapsed_13 = tensor.collapse_shape %transposed [[0, 1], [2, 3]] : tensor<1x64x12x64xf32> into tensor<64x768xf32>
    %expanded = tensor.expand_shape %8 [[0, 1]] output_shape [64, 1] : tensor<64xi64> into tensor<64x1xi64>
    %12 = tensor.empty() : tensor<f32>
    %13 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = []} ins(%11 : tensor<i64>) outs(%12 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %77 = arith.sitofp %in : i64 to f32
      linalg.yield %77 : f32
    } -> tensor<f32>
    %14 = tensor.empty() : tensor<64x768xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %16 = linalg.matmul ins(%collapsed_13, %transposed_9 : tensor<64x768xf32>, tensor<768x768xf32>) outs(%15 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg7, %16 : tensor<768xf32>, tensor<64x768xf32>) outs(%14 : tensor<64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<64x768xf32>
    %expanded_14 = tensor.expand_shape %17 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xf32> into tensor<1x64x768xf32>
    %18 = tensor.empty() : tensor<1x64x768xf32>
    %19 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg8, %expanded_14 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %20 = tensor.empty() : tensor<1x64x1xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
    %22 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%19 : tensor<1x64x768xf32>) outs(%21 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %23 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.divf %in, %cst_7 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_15 = tensor.collapse_shape %23 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %24 = linalg.generic {indexing_maps = [#map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_15 : tensor<1x64xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %25 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %24 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.subf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %26 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25, %25 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %27 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%26 : tensor<1x64x768xf32>) outs(%21 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %28 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.divf %in, %cst_7 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %29 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.truncf %cst_6 : f64 to f32
      %78 = arith.addf %in, %77 : f32
      linalg.yield %78 : f32
    } -> tensor<1x64x1xf32>
    %30 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%29 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = math.rsqrt %in : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_16 = tensor.collapse_shape %30 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %31 = linalg.generic {indexing_maps = [#map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_16 : tensor<1x64xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %32 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25, %31 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %33 = linalg.generic {indexing_maps = [#map5, #map8, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%32, %arg9 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %34 = linalg.generic {indexing_maps = [#map5, #map8, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%33, %arg10 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %collapsed_17 = tensor.collapse_shape %34 [[0, 1], [2]] : tensor<1x64x768xf32> into tensor<64x768xf32>
    %35 = tensor.empty() : tensor<64x3072xf32>
    %36 = linalg.fill ins(%cst : f32) outs(%35 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %37 = linalg.matmul ins(%collapsed_17, %transposed_10 : tensor<64x768xf32>, tensor<768x3072xf32>) outs(%36 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %38 = linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg11, %37 : tensor<3072xf32>, tensor<64x3072xf32>) outs(%35 : tensor<64x3072xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<64x3072xf32>
    %expanded_18 = tensor.expand_shape %38 [[0, 1], [2]] output_shape [1, 64, 3072] : tensor<64x3072xf32> into tensor<1x64x3072xf32>
    %39 = tensor.empty() : tensor<1x64x3072xf32>
    %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_18 : tensor<1x64x3072xf32>) outs(%39 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = math.fpowi %in, %c3_i64 : f32, i64
      %78 = arith.mulf %77, %cst_0 : f32
      %79 = arith.addf %in, %78 : f32
      %80 = arith.mulf %79, %cst_1 : f32
      %81 = math.tanh %80 : f32
      %82 = arith.addf %81, %cst_2 : f32
      %83 = arith.mulf %82, %cst_3 : f32
      %84 = arith.mulf %in, %83 : f32
      linalg.yield %84 : f32
    } -> tensor<1x64x3072xf32>
    %collapsed_19 = tensor.collapse_shape %40 [[0, 1], [2]] : tensor<1x64x3072xf32> into tensor<64x3072xf32>
    %41 = linalg.matmul ins(%collapsed_19, %transposed_11 : tensor<64x3072xf32>, tensor<3072x768xf32>) outs(%15 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %42 = linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg12, %41 : tensor<768xf32>, tensor<64x768xf32>) outs(%14 : tensor<64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<64x768xf32>
    %expanded_20 = tensor.expand_shape %42 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xf32> into tensor<1x64x768xf32>
    %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %expanded_20 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %44 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%43 : tensor<1x64x768xf32>) outs(%21 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %45 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.divf %in, %cst_7 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_21 = tensor.collapse_shape %45 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %46 = linalg.generic {indexing_maps = [#map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_21 : tensor<1x64xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %47 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%43, %46 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.subf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %48 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%47, %47 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %49 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%48 : tensor<1x64x768xf32>) outs(%21 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %50 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%49 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.divf %in, %cst_7 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %51 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%50 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.truncf %cst_6 : f64 to f32
      %78 = arith.addf %in, %77 : f32
      linalg.yield %78 : f32
    } -> tensor<1x64x1xf32>
    %52 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%51 : tensor<1x64x1xf32>) outs(%20 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = math.rsqrt %in : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_22 = tensor.collapse_shape %52 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %53 = linalg.generic {indexing_maps = [#map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_22 : tensor<1x64xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %54 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%47, %53 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %55 = linalg.generic {indexing_maps = [#map5, #map8, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%54, %arg13 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.mulf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %56 = linalg.generic {indexing_maps = [#map5, #map8, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %arg14 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%18 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.addf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<1x64x768xf32>
    %collapsed_23 = tensor.collapse_shape %56 [[0, 1], [2]] : tensor<1x64x768xf32> into tensor<64x768xf32>
    %57 = tensor.empty() : tensor<64x50257xf32>
    %58 = linalg.fill ins(%cst : f32) outs(%57 : tensor<64x50257xf32>) -> tensor<64x50257xf32>
    %59 = linalg.matmul ins(%collapsed_23, %transposed_12 : tensor<64x768xf32>, tensor<768x50257xf32>) outs(%58 : tensor<64x50257xf32>) -> tensor<64x50257xf32>
    %60 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<64xi64>) -> tensor<64xi64>
    %61 = tensor.empty() : tensor<64xf32>
    %62 = linalg.fill ins(%cst_4 : f32) outs(%61 : tensor<64xf32>) -> tensor<64xf32>
    %63:2 = linalg.generic {indexing_maps = [#map4, #map9, #map9], iterator_types = ["parallel", "reduction"]} ins(%59 : tensor<64x50257xf32>) outs(%62, %60 : tensor<64xf32>, tensor<64xi64>) {
    ^bb0(%in: f32, %out: f32, %out_26: i64):
      %77 = linalg.index 1 : index
      %78 = arith.index_cast %77 : index to i64
      %79 = arith.maximumf %in, %out : f32
      %80 = arith.cmpf ogt, %in, %out : f32
      %81 = arith.select %80, %78, %out_26 : i64
      linalg.yield %79, %81 : f32, i64
    } -> (tensor<64xf32>, tensor<64xi64>)
    %expanded_24 = tensor.expand_shape %63#0 [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
    %64 = linalg.generic {indexing_maps = [#map4, #map10, #map4], iterator_types = ["parallel", "parallel"]} ins(%59, %expanded_24 : tensor<64x50257xf32>, tensor<64x1xf32>) outs(%57 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.subf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<64x50257xf32>
    %65 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%64 : tensor<64x50257xf32>) outs(%57 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = math.exp %in : f32
      linalg.yield %77 : f32
    } -> tensor<64x50257xf32>
    %66 = tensor.empty() : tensor<64x1xf32>
    %67 = linalg.fill ins(%cst : f32) outs(%66 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %68 = linalg.generic {indexing_maps = [#map4, #map10], iterator_types = ["parallel", "reduction"]} ins(%65 : tensor<64x50257xf32>) outs(%67 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<64x1xf32>
    %69 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%68 : tensor<64x1xf32>) outs(%66 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = math.log %in : f32
      linalg.yield %77 : f32
    } -> tensor<64x1xf32>
    %70 = linalg.generic {indexing_maps = [#map4, #map10, #map4], iterator_types = ["parallel", "parallel"]} ins(%64, %69 : tensor<64x50257xf32>, tensor<64x1xf32>) outs(%57 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.subf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<64x50257xf32>
    %71 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<64x1xi64>) outs(%67 : tensor<64x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %77 = linalg.index 0 : index
      %78 = arith.index_cast %in : i64 to index
      %79 = arith.cmpi slt, %78, %c50257 : index
      cf.assert %79, "index must be smaller than dim size"
      %80 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %80, "index must be larger or equal to 0"
      %extracted = tensor.extract %70[%77, %78] : tensor<64x50257xf32>
      linalg.yield %extracted : f32
    } -> tensor<64x1xf32>
    %collapsed_25 = tensor.collapse_shape %71 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed_25 : tensor<64xf32>) outs(%61 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.negf %in : f32
      linalg.yield %77 : f32
    } -> tensor<64xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel"]} ins(%6, %72, %cst_5 : tensor<64xi1>, tensor<64xf32>, tensor<f32>) outs(%61 : tensor<64xf32>) {
    ^bb0(%in: i1, %in_26: f32, %in_27: f32, %out: f32):
      %77 = arith.select %in, %in_26, %in_27 : f32
      linalg.yield %77 : f32
    } -> tensor<64xf32>
    %74 = linalg.fill ins(%cst : f32) outs(%12 : tensor<f32>) -> tensor<f32>
    %75 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%73 : tensor<64xf32>) outs(%74 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %77 = arith.addf %in, %out : f32
      linalg.yield %77 : f32
    } -> tensor<f32>
    %76 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = []} ins(%75, %13 : tensor<f32>, tensor<f32>) outs(%12 : tensor<f32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %77 = arith.divf %in, %in_26 : f32
      linalg.yield %77 : f32
    } -> tensor<f32>
    return %arg0, %arg1, %transposed_9, %transposed_10, %transposed_11, %transposed_12, %collapsed, %collapsed_13, %13, %19, %23, %30, %collapsed_17, %expanded_18, %collapsed_19, %43, %45, %52, %collapsed_23, %70, %70, %76 : tensor<1x12x64x64xf32>, tensor<1x12x64xf32>, tensor<768x768xf32>, tensor<768x3072xf32>, tensor<3072x768xf32>, tensor<768x50257xf32>, tensor<64xi64>, tensor<64x768xf32>, tensor<f32>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<64x768xf32>, tensor<1x64x3072xf32>, tensor<64x3072xf32>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<64x768xf32>, tensor<64x50257xf32>, tensor<64x50257xf32>, tensor<f32>
  }
}
