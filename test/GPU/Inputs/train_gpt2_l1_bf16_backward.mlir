#map = affine_map<() -> ()>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> (0, d1)>
#map7 = affine_map<(d0, d1) -> (d0, 0)>
#map8 = affine_map<(d0, d1, d2) -> ()>
#map9 = affine_map<(d0, d1, d2) -> (d2)>
#map10 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
module {
  func.func private @sinter_call_0(tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>) -> (tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>) attributes {sinter.attributes = {causal}, sinter.call = "sinter.attention_backward"}
  func.func @main(%arg0: tensor<1x64x768xbf16>, %arg1: tensor<2304x768xbf16>, %arg2: tensor<64x2304xbf16>, %arg3: tensor<1x12x64x64xbf16>, %arg4: tensor<1x12x64xf32>, %arg5: tensor<1x64x12x64xbf16>, %arg6: tensor<768x768xbf16>, %arg7: tensor<1x64x768xbf16>, %arg8: tensor<3072x768xbf16>, %arg9: tensor<64x3072xbf16>, %arg10: tensor<1x64x3072xbf16>, %arg11: tensor<768x3072xbf16>, %arg12: tensor<50257x768xbf16>, %arg13: tensor<1x64x768xbf16>, %arg14: tensor<64x50257xbf16>, %arg15: tensor<f32>, %arg16: tensor<f32>, %arg17: tensor<64xf32>, %arg18: tensor<64xi64>, %arg19: tensor<1x64x768xf32>, %arg20: tensor<1x64x1xf32>, %arg21: tensor<1x64x1xf32>, %arg22: tensor<1x64x768xf32>, %arg23: tensor<1x64x1xf32>, %arg24: tensor<1x64x1xf32>, %arg25: tensor<1x64x768xf32>, %arg26: tensor<1x64x1xf32>, %arg27: tensor<1x64x1xf32>, %arg28: tensor<64xi1>, %arg29: tensor<768xf32>, %arg30: tensor<768xf32>, %arg31: tensor<768xf32>) -> (tensor<768xf32>, tensor<50257x768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768x3072xf32>, tensor<3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<768xf32>, tensor<768x768xf32>, tensor<2304xf32>, tensor<768xf32>, tensor<768xf32>, tensor<2304x768xf32>, tensor<1x64x768xf32>, tensor<64x768xf32>) {
    %cst = arith.constant 0.000000e+00 : bf16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %cst_2 = arith.constant 0.79788456080286541 : f64
    %cst_3 = arith.constant 4.471500e-02 : f64
    %cst_4 = arith.constant 1.341450e-01 : f64
    %cst_5 = arith.constant 7.680000e+02 : f32
    %cst_6 = arith.constant 5.000000e-01 : f32
    %cst_7 = arith.constant 1.000000e+00 : f32
    %cst_8 = arith.constant dense<1> : tensor<i64>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %expanded = tensor.expand_shape %arg2 [[0, 1], [2]] output_shape [1, 64, 2304] : tensor<64x2304xbf16> into tensor<1x64x2304xbf16>
    %collapsed_9 = tensor.collapse_shape %arg7 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %expanded_10 = tensor.expand_shape %arg9 [[0, 1], [2]] output_shape [1, 64, 3072] : tensor<64x3072xbf16> into tensor<1x64x3072xbf16>
    %collapsed_11 = tensor.collapse_shape %arg10 [[0, 1], [2]] : tensor<1x64x3072xbf16> into tensor<64x3072xbf16>
    %collapsed_12 = tensor.collapse_shape %arg13 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %0 = tensor.empty() : tensor<f32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = []} ins(%arg15, %arg16 : tensor<f32>, tensor<f32>) outs(%0 : tensor<f32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.divf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<f32>
    %expanded_13 = tensor.expand_shape %arg17 [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
    %2 = tensor.empty() : tensor<50257xi64>
    %3 = linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%2 : tensor<50257xi64>) {
    ^bb0(%out: i64):
      %169 = linalg.index 0 : index
      %170 = arith.index_cast %169 : index to i64
      linalg.yield %170 : i64
    } -> tensor<50257xi64>
    %expanded_14 = tensor.expand_shape %arg18 [[0, 1]] output_shape [64, 1] : tensor<64xi64> into tensor<64x1xi64>
    %4 = tensor.empty() : tensor<1x64x768xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg19, %arg20 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %6 = tensor.empty() : tensor<1x64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg21 : tensor<1x64x1xf32>) outs(%6 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.divf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg22, %arg23 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg24 : tensor<1x64x1xf32>) outs(%6 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.divf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg25, %arg26 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg27 : tensor<1x64x1xf32>) outs(%6 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.divf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_15 = tensor.collapse_shape %arg5 [[0, 1], [2, 3]] : tensor<1x64x12x64xbf16> into tensor<64x768xbf16>
    %12 = tensor.empty() : tensor<1x64x3072xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_10 : tensor<1x64x3072xbf16>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %14 = tensor.empty() : tensor<64xf32>
    %15 = linalg.generic {indexing_maps = [#map1, #map4, #map1, #map1], iterator_types = ["parallel"]} ins(%arg28, %1, %cst_1 : tensor<64xi1>, tensor<f32>, tensor<64xf32>) outs(%14 : tensor<64xf32>) {
    ^bb0(%in: i1, %in_51: f32, %in_52: f32, %out: f32):
      %169 = arith.select %in, %in_51, %in_52 : f32
      linalg.yield %169 : f32
    } -> tensor<64xf32>
    %expanded_16 = tensor.expand_shape %3 [[0, 1]] output_shape [1, 50257] : tensor<50257xi64> into tensor<1x50257xi64>
    %16 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %arg21 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %17 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %arg24 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %arg27 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %extracted_slice_17 = tensor.extract_slice %expanded[0, 0, 768] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %extracted_slice_18 = tensor.extract_slice %expanded[0, 0, 1536] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %19 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %13 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.mulf %in, %cst_6 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %21 = tensor.empty() : tensor<64x50257xf32>
    %22 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%arg14 : tensor<64x50257xbf16>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %expanded_19 = tensor.expand_shape %15 [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
    %23 = tensor.empty() : tensor<64x50257xi1>
    %24 = linalg.generic {indexing_maps = [#map6, #map7, #map5], iterator_types = ["parallel", "parallel"]} ins(%expanded_16, %expanded_14 : tensor<1x50257xi64>, tensor<64x1xi64>) outs(%23 : tensor<64x50257xi1>) {
    ^bb0(%in: i64, %in_51: i64, %out: i1):
      %169 = arith.cmpi eq, %in, %in_51 : i64
      linalg.yield %169 : i1
    } -> tensor<64x50257xi1>
    %expanded_20 = tensor.expand_shape %extracted_slice [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %expanded_21 = tensor.expand_shape %extracted_slice_17 [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %expanded_22 = tensor.expand_shape %extracted_slice_18 [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %25 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %13 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %26 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.truncf %cst_4 : f64 to f32
      %170 = arith.mulf %in, %169 : f32
      linalg.yield %170 : f32
    } -> tensor<1x64x3072xf32>
    %27 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel"]} ins(%22, %expanded_13 : tensor<64x50257xf32>, tensor<64x1xf32>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %28 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%24 : tensor<64x50257xi1>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: i1, %out: f32):
      %169 = arith.uitofp %in : i1 to f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %29 = tensor.empty() : tensor<1x12x64x64xbf16>
    %transposed = linalg.transpose ins(%expanded_20 : tensor<1x64x12x64xbf16>) outs(%29 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_23 = linalg.transpose ins(%expanded_21 : tensor<1x64x12x64xbf16>) outs(%29 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_24 = linalg.transpose ins(%expanded_22 : tensor<1x64x12x64xbf16>) outs(%29 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %30 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.truncf %cst_3 : f64 to f32
      %170 = arith.mulf %in, %169 : f32
      linalg.yield %170 : f32
    } -> tensor<1x64x3072xf32>
    %31 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %cst_7 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %32 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%27 : tensor<64x50257xf32>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = math.exp %in : f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %33 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %30 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.addf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %34 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%31 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.truncf %cst_2 : f64 to f32
      %170 = arith.mulf %in, %169 : f32
      linalg.yield %170 : f32
    } -> tensor<1x64x3072xf32>
    %35 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%32, %28 : tensor<64x50257xf32>, tensor<64x50257xf32>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %36 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%33 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.truncf %cst_2 : f64 to f32
      %170 = arith.mulf %in, %169 : f32
      linalg.yield %170 : f32
    } -> tensor<1x64x3072xf32>
    %37 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel"]} ins(%35, %expanded_19 : tensor<64x50257xf32>, tensor<64x1xf32>) outs(%21 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<64x50257xf32>
    %38 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%36 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = math.tanh %in : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %39 = tensor.empty() : tensor<64x50257xbf16>
    %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%37 : tensor<64x50257xf32>) outs(%39 : tensor<64x50257xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x50257xbf16>
    %41 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%38 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %cst_7 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %42 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%38, %38 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %43 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%41 : tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.mulf %in, %cst_6 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %44 = linalg.generic {indexing_maps = [#map8, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_8, %42 : tensor<i64>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: i64, %in_51: f32, %out: f32):
      %169 = arith.sitofp %in : i64 to f32
      %170 = arith.subf %169, %in_51 : f32
      linalg.yield %170 : f32
    } -> tensor<1x64x3072xf32>
    %45 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %44 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %46 = tensor.empty() : tensor<50257x64xbf16>
    %transposed_25 = linalg.transpose ins(%40 : tensor<64x50257xbf16>) outs(%46 : tensor<50257x64xbf16>) permutation = [1, 0] 
    %47 = tensor.empty() : tensor<64x768xf32>
    %48 = linalg.fill ins(%cst_0 : f32) outs(%47 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %49 = linalg.matmul ins(%40, %arg12 : tensor<64x50257xbf16>, tensor<50257x768xbf16>) outs(%48 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %50 = tensor.empty() : tensor<64x768xbf16>
    %51 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%49 : tensor<64x768xf32>) outs(%50 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x768xbf16>
    %52 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%45, %34 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %53 = tensor.empty() : tensor<50257x768xf32>
    %54 = linalg.fill ins(%cst_0 : f32) outs(%53 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
    %55 = linalg.matmul ins(%transposed_25, %collapsed_12 : tensor<50257x64xbf16>, tensor<64x768xbf16>) outs(%54 : tensor<50257x768xf32>) -> tensor<50257x768xf32>
    %56 = tensor.empty() : tensor<50257x768xbf16>
    %57 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%55 : tensor<50257x768xf32>) outs(%56 : tensor<50257x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<50257x768xbf16>
    %expanded_26 = tensor.expand_shape %51 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xbf16> into tensor<1x64x768xbf16>
    %58 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%43, %52 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.addf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %59 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_26 : tensor<1x64x768xbf16>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %60 = linalg.generic {indexing_maps = [#map2, #map9, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59, %arg29 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %61 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59, %16 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %62 = tensor.empty() : tensor<768xf32>
    %63 = linalg.fill ins(%cst_0 : f32) outs(%62 : tensor<768xf32>) -> tensor<768xf32>
    %64 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%59 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %65 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%57 : tensor<50257x768xbf16>) outs(%53 : tensor<50257x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<50257x768xf32>
    %66 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%60 : tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.mulf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %67 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
    %68 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%60 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %69 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%60, %16 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %70 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%61 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %71 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%66, %68 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %72 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%69 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %73 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %72 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %74 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%71, %73 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %75 = linalg.generic {indexing_maps = [#map3, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %74 : tensor<1x64x1xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %76 = tensor.empty() : tensor<1x64x768xbf16>
    %77 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%75 : tensor<1x64x768xf32>) outs(%76 : tensor<1x64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<1x64x768xbf16>
    %collapsed_27 = tensor.collapse_shape %77 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %78 = tensor.empty() : tensor<64x3072xf32>
    %79 = linalg.fill ins(%cst_0 : f32) outs(%78 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %80 = linalg.matmul ins(%collapsed_27, %arg11 : tensor<64x768xbf16>, tensor<768x3072xbf16>) outs(%79 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %81 = tensor.empty() : tensor<64x3072xbf16>
    %82 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%80 : tensor<64x3072xf32>) outs(%81 : tensor<64x3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x3072xbf16>
    %83 = tensor.empty() : tensor<768x64xbf16>
    %transposed_28 = linalg.transpose ins(%collapsed_27 : tensor<64x768xbf16>) outs(%83 : tensor<768x64xbf16>) permutation = [1, 0] 
    %84 = tensor.empty() : tensor<1x768xbf16>
    %85 = linalg.fill ins(%cst : bf16) outs(%84 : tensor<1x768xbf16>) -> tensor<1x768xbf16>
    %86 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction", "parallel"]} ins(%collapsed_27 : tensor<64x768xbf16>) outs(%85 : tensor<1x768xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %169 = arith.addf %in, %out : bf16
      linalg.yield %169 : bf16
    } -> tensor<1x768xbf16>
    %expanded_29 = tensor.expand_shape %82 [[0, 1], [2]] output_shape [1, 64, 3072] : tensor<64x3072xbf16> into tensor<1x64x3072xbf16>
    %87 = tensor.empty() : tensor<768x3072xf32>
    %88 = linalg.fill ins(%cst_0 : f32) outs(%87 : tensor<768x3072xf32>) -> tensor<768x3072xf32>
    %89 = linalg.matmul ins(%transposed_28, %collapsed_11 : tensor<768x64xbf16>, tensor<64x3072xbf16>) outs(%88 : tensor<768x3072xf32>) -> tensor<768x3072xf32>
    %90 = tensor.empty() : tensor<768x3072xbf16>
    %91 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%89 : tensor<768x3072xf32>) outs(%90 : tensor<768x3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<768x3072xbf16>
    %collapsed_30 = tensor.collapse_shape %86 [[0, 1]] : tensor<1x768xbf16> into tensor<768xbf16>
    %92 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_29 : tensor<1x64x3072xbf16>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %93 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%collapsed_30 : tensor<768xbf16>) outs(%62 : tensor<768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %94 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%92, %58 : tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) outs(%12 : tensor<1x64x3072xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x3072xf32>
    %95 = tensor.empty() : tensor<1x64x3072xbf16>
    %96 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%94 : tensor<1x64x3072xf32>) outs(%95 : tensor<1x64x3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<1x64x3072xbf16>
    %97 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%91 : tensor<768x3072xbf16>) outs(%87 : tensor<768x3072xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<768x3072xf32>
    %collapsed_31 = tensor.collapse_shape %96 [[0, 1], [2]] : tensor<1x64x3072xbf16> into tensor<64x3072xbf16>
    %98 = linalg.matmul ins(%collapsed_31, %arg8 : tensor<64x3072xbf16>, tensor<3072x768xbf16>) outs(%48 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %99 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64x768xf32>) outs(%50 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x768xbf16>
    %100 = tensor.empty() : tensor<3072x64xbf16>
    %transposed_32 = linalg.transpose ins(%collapsed_31 : tensor<64x3072xbf16>) outs(%100 : tensor<3072x64xbf16>) permutation = [1, 0] 
    %101 = tensor.empty() : tensor<1x3072xbf16>
    %102 = linalg.fill ins(%cst : bf16) outs(%101 : tensor<1x3072xbf16>) -> tensor<1x3072xbf16>
    %103 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction", "parallel"]} ins(%collapsed_31 : tensor<64x3072xbf16>) outs(%102 : tensor<1x3072xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %169 = arith.addf %in, %out : bf16
      linalg.yield %169 : bf16
    } -> tensor<1x3072xbf16>
    %expanded_33 = tensor.expand_shape %99 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xbf16> into tensor<1x64x768xbf16>
    %104 = tensor.empty() : tensor<3072x768xf32>
    %105 = linalg.fill ins(%cst_0 : f32) outs(%104 : tensor<3072x768xf32>) -> tensor<3072x768xf32>
    %106 = linalg.matmul ins(%transposed_32, %collapsed_9 : tensor<3072x64xbf16>, tensor<64x768xbf16>) outs(%105 : tensor<3072x768xf32>) -> tensor<3072x768xf32>
    %107 = tensor.empty() : tensor<3072x768xbf16>
    %108 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%106 : tensor<3072x768xf32>) outs(%107 : tensor<3072x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<3072x768xbf16>
    %collapsed_34 = tensor.collapse_shape %103 [[0, 1]] : tensor<1x3072xbf16> into tensor<3072xbf16>
    %109 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_33 : tensor<1x64x768xbf16>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %110 = tensor.empty() : tensor<3072xf32>
    %111 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%collapsed_34 : tensor<3072xbf16>) outs(%110 : tensor<3072xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<3072xf32>
    %112 = linalg.generic {indexing_maps = [#map2, #map9, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%109, %arg30 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %113 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%109, %17 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %114 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%109 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %115 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%112 : tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.mulf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %116 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%112 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %117 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%112, %17 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %118 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%113 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %119 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%108 : tensor<3072x768xbf16>) outs(%104 : tensor<3072x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<3072x768xf32>
    %120 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%115, %116 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %121 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%117 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %122 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %121 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %123 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%120, %122 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %124 = linalg.generic {indexing_maps = [#map3, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %123 : tensor<1x64x1xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %125 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%75, %124 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.addf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %126 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%125 : tensor<1x64x768xf32>) outs(%76 : tensor<1x64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<1x64x768xbf16>
    %collapsed_35 = tensor.collapse_shape %126 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %127 = linalg.matmul ins(%collapsed_35, %arg6 : tensor<64x768xbf16>, tensor<768x768xbf16>) outs(%48 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %128 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%127 : tensor<64x768xf32>) outs(%50 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x768xbf16>
    %transposed_36 = linalg.transpose ins(%collapsed_35 : tensor<64x768xbf16>) outs(%83 : tensor<768x64xbf16>) permutation = [1, 0] 
    %129 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction", "parallel"]} ins(%collapsed_35 : tensor<64x768xbf16>) outs(%85 : tensor<1x768xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %169 = arith.addf %in, %out : bf16
      linalg.yield %169 : bf16
    } -> tensor<1x768xbf16>
    %130 = tensor.empty() : tensor<768x768xf32>
    %131 = linalg.fill ins(%cst_0 : f32) outs(%130 : tensor<768x768xf32>) -> tensor<768x768xf32>
    %132 = linalg.matmul ins(%transposed_36, %collapsed_15 : tensor<768x64xbf16>, tensor<64x768xbf16>) outs(%131 : tensor<768x768xf32>) -> tensor<768x768xf32>
    %133 = tensor.empty() : tensor<768x768xbf16>
    %134 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%132 : tensor<768x768xf32>) outs(%133 : tensor<768x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<768x768xbf16>
    %collapsed_37 = tensor.collapse_shape %129 [[0, 1]] : tensor<1x768xbf16> into tensor<768xbf16>
    %expanded_38 = tensor.expand_shape %128 [[0, 1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<64x768xbf16> into tensor<1x64x12x64xbf16>
    %135 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%collapsed_37 : tensor<768xbf16>) outs(%62 : tensor<768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %transposed_39 = linalg.transpose ins(%expanded_38 : tensor<1x64x12x64xbf16>) outs(%29 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %136 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%134 : tensor<768x768xbf16>) outs(%130 : tensor<768x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<768x768xf32>
    %137:3 = call @sinter_call_0(%transposed_39, %transposed, %transposed_23, %transposed_24, %arg3, %arg4) : (tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>) -> (tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>)
    %138 = tensor.empty() : tensor<1x64x12x64xbf16>
    %transposed_40 = linalg.transpose ins(%137#0 : tensor<1x12x64x64xbf16>) outs(%138 : tensor<1x64x12x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_41 = linalg.transpose ins(%137#1 : tensor<1x12x64x64xbf16>) outs(%138 : tensor<1x64x12x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_42 = linalg.transpose ins(%137#2 : tensor<1x12x64x64xbf16>) outs(%138 : tensor<1x64x12x64xbf16>) permutation = [0, 2, 1, 3] 
    %collapsed_43 = tensor.collapse_shape %transposed_40 [[0], [1], [2, 3]] : tensor<1x64x12x64xbf16> into tensor<1x64x768xbf16>
    %collapsed_44 = tensor.collapse_shape %transposed_41 [[0], [1], [2, 3]] : tensor<1x64x12x64xbf16> into tensor<1x64x768xbf16>
    %collapsed_45 = tensor.collapse_shape %transposed_42 [[0], [1], [2, 3]] : tensor<1x64x12x64xbf16> into tensor<1x64x768xbf16>
    %concat = tensor.concat dim(2) %collapsed_43, %collapsed_44, %collapsed_45 : (tensor<1x64x768xbf16>, tensor<1x64x768xbf16>, tensor<1x64x768xbf16>) -> tensor<1x64x2304xbf16>
    %collapsed_46 = tensor.collapse_shape %concat [[0, 1], [2]] : tensor<1x64x2304xbf16> into tensor<64x2304xbf16>
    %139 = linalg.matmul ins(%collapsed_46, %arg1 : tensor<64x2304xbf16>, tensor<2304x768xbf16>) outs(%48 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %140 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%139 : tensor<64x768xf32>) outs(%50 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<64x768xbf16>
    %141 = tensor.empty() : tensor<2304x64xbf16>
    %transposed_47 = linalg.transpose ins(%collapsed_46 : tensor<64x2304xbf16>) outs(%141 : tensor<2304x64xbf16>) permutation = [1, 0] 
    %142 = tensor.empty() : tensor<1x2304xbf16>
    %143 = linalg.fill ins(%cst : bf16) outs(%142 : tensor<1x2304xbf16>) -> tensor<1x2304xbf16>
    %144 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction", "parallel"]} ins(%collapsed_46 : tensor<64x2304xbf16>) outs(%143 : tensor<1x2304xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %169 = arith.addf %in, %out : bf16
      linalg.yield %169 : bf16
    } -> tensor<1x2304xbf16>
    %expanded_48 = tensor.expand_shape %140 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xbf16> into tensor<1x64x768xbf16>
    %145 = tensor.empty() : tensor<2304x768xf32>
    %146 = linalg.fill ins(%cst_0 : f32) outs(%145 : tensor<2304x768xf32>) -> tensor<2304x768xf32>
    %147 = linalg.matmul ins(%transposed_47, %collapsed : tensor<2304x64xbf16>, tensor<64x768xbf16>) outs(%146 : tensor<2304x768xf32>) -> tensor<2304x768xf32>
    %148 = tensor.empty() : tensor<2304x768xbf16>
    %149 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%147 : tensor<2304x768xf32>) outs(%148 : tensor<2304x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %169 = arith.truncf %in : f32 to bf16
      linalg.yield %169 : bf16
    } -> tensor<2304x768xbf16>
    %collapsed_49 = tensor.collapse_shape %144 [[0, 1]] : tensor<1x2304xbf16> into tensor<2304xbf16>
    %150 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_48 : tensor<1x64x768xbf16>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %151 = tensor.empty() : tensor<2304xf32>
    %152 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%collapsed_49 : tensor<2304xbf16>) outs(%151 : tensor<2304xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<2304xf32>
    %153 = linalg.generic {indexing_maps = [#map2, #map9, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%150, %arg31 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %154 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%150, %18 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %155 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%150 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %156 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%153 : tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.mulf %in, %cst_5 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %157 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%153 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %158 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%153, %18 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %159 = linalg.generic {indexing_maps = [#map2, #map9], iterator_types = ["reduction", "reduction", "parallel"]} ins(%154 : tensor<1x64x768xf32>) outs(%63 : tensor<768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<768xf32>
    %160 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%149 : tensor<2304x768xbf16>) outs(%145 : tensor<2304x768xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %169 = arith.extf %in : bf16 to f32
      linalg.yield %169 : f32
    } -> tensor<2304x768xf32>
    %161 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%156, %157 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %162 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%158 : tensor<1x64x768xf32>) outs(%67 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x1xf32>
    %163 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %162 : tensor<1x64x768xf32>, tensor<1x64x1xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %164 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%161, %163 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.subf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %165 = linalg.generic {indexing_maps = [#map3, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %164 : tensor<1x64x1xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.mulf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %166 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%125, %165 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%4 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_51: f32, %out: f32):
      %169 = arith.addf %in, %in_51 : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %167 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<1x64x768xf32>) -> tensor<1x64x768xf32>
    %168 = linalg.generic {indexing_maps = [#map2, #map10], iterator_types = ["reduction", "parallel", "parallel"]} ins(%166 : tensor<1x64x768xf32>) outs(%167 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %169 = arith.addf %in, %out : f32
      linalg.yield %169 : f32
    } -> tensor<1x64x768xf32>
    %collapsed_50 = tensor.collapse_shape %168 [[0, 1], [2]] : tensor<1x64x768xf32> into tensor<64x768xf32>
    return %64, %65, %70, %93, %97, %111, %114, %118, %119, %135, %136, %152, %155, %159, %160, %166, %collapsed_50 : tensor<768xf32>, tensor<50257x768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768x3072xf32>, tensor<3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<768xf32>, tensor<768x768xf32>, tensor<2304xf32>, tensor<768xf32>, tensor<768xf32>, tensor<2304x768xf32>, tensor<1x64x768xf32>, tensor<64x768xf32>
  }
}
