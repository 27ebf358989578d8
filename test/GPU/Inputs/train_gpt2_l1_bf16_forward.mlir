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
  func.func private @sinter_call_0(tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>) -> (tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>) attributes {sinter.attributes = {causal}, sinter.call = "sinter.attention"}
  func.func @main(%arg0: tensor<50257x768xf32>, %arg1: tensor<1x64xi64>, %arg2: tensor<2304xf32>, %arg3: tensor<2304x768xf32>, %arg4: tensor<768xf32>, %arg5: tensor<768x768xf32>, %arg6: tensor<3072xf32>, %arg7: tensor<3072x768xf32>, %arg8: tensor<768xf32>, %arg9: tensor<768x3072xf32>, %arg10: tensor<1x64xi64>, %arg11: tensor<1024x768xf32>, %arg12: tensor<768xf32>, %arg13: tensor<768xf32>, %arg14: tensor<768xf32>, %arg15: tensor<768xf32>, %arg16: tensor<768xf32>, %arg17: tensor<768xf32>) -> (tensor<64xi64>, tensor<2304x768xbf16>, tensor<768x768xbf16>, tensor<3072x768xbf16>, tensor<768x3072xbf16>, tensor<50257x768xbf16>, tensor<64xi1>, tensor<1x64x768xf32>, tensor<64xi64>, tensor<f32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x2304xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>, tensor<1x64x12x64xbf16>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x3072xbf16>, tensor<1x64x3072xbf16>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x50257xbf16>, tensor<64xf32>, tensor<f32>) {
    %c-100_i64 = arith.constant -100 : i64
    %c0_i64 = arith.constant 0 : i64
    %c50257 = arith.constant 50257 : index
    %c1024 = arith.constant 1024 : index
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.467770e-02 : bf16
    %cst_1 = arith.constant 7.968750e-01 : bf16
    %cst_2 = arith.constant 1.000000e+00 : bf16
    %cst_3 = arith.constant 5.000000e-01 : bf16
    %cst_4 = arith.constant 0xFF800000 : f32
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_7 = arith.constant 0x7FF0000000000000 : f64
    %cst_8 = arith.constant 1.000000e-05 : f64
    %cst_9 = arith.constant 7.680000e+02 : f32
    %cst_10 = arith.constant dense<0> : tensor<64xi64>
    %0 = tensor.empty() : tensor<1x64x768xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<1x64xi64>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: i64, %out: f32):
      %134 = arith.index_cast %in : i64 to index
      %135 = linalg.index 2 : index
      %136 = arith.cmpi slt, %134, %c50257 : index
      cf.assert %136, "index must be smaller than dim size"
      %137 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %137, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%134, %135] : tensor<50257x768xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x64x768xf32>
    %2 = tensor.empty() : tensor<64xi64>
    %3 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%2 : tensor<64xi64>) {
    ^bb0(%out: i64):
      %134 = linalg.index 0 : index
      %135 = arith.index_cast %134 : index to i64
      linalg.yield %135 : i64
    } -> tensor<64xi64>
    %4 = tensor.empty() : tensor<2304xbf16>
    %5 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg2 : tensor<2304xf32>) outs(%4 : tensor<2304xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<2304xbf16>
    %6 = tensor.empty() : tensor<2304x768xbf16>
    %7 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<2304x768xf32>) outs(%6 : tensor<2304x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<2304x768xbf16>
    %8 = tensor.empty() : tensor<768xbf16>
    %9 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg4 : tensor<768xf32>) outs(%8 : tensor<768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<768xbf16>
    %10 = tensor.empty() : tensor<768x768xbf16>
    %11 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg5 : tensor<768x768xf32>) outs(%10 : tensor<768x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<768x768xbf16>
    %12 = tensor.empty() : tensor<3072xbf16>
    %13 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg6 : tensor<3072xf32>) outs(%12 : tensor<3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<3072xbf16>
    %14 = tensor.empty() : tensor<3072x768xbf16>
    %15 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<3072x768xf32>) outs(%14 : tensor<3072x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<3072x768xbf16>
    %16 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg8 : tensor<768xf32>) outs(%8 : tensor<768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<768xbf16>
    %17 = tensor.empty() : tensor<768x3072xbf16>
    %18 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg9 : tensor<768x3072xf32>) outs(%17 : tensor<768x3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<768x3072xbf16>
    %19 = tensor.empty() : tensor<50257x768xbf16>
    %20 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<50257x768xf32>) outs(%19 : tensor<50257x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<50257x768xbf16>
    %collapsed = tensor.collapse_shape %arg10 [[0, 1]] : tensor<1x64xi64> into tensor<64xi64>
    %21 = tensor.empty() : tensor<64x768xf32>
    %22 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<64xi64>) outs(%21 : tensor<64x768xf32>) {
    ^bb0(%in: i64, %out: f32):
      %134 = arith.index_cast %in : i64 to index
      %135 = linalg.index 1 : index
      %136 = arith.cmpi slt, %134, %c1024 : index
      cf.assert %136, "index must be smaller than dim size"
      %137 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %137, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg11[%134, %135] : tensor<1024x768xf32>
      linalg.yield %extracted : f32
    } -> tensor<64x768xf32>
    %23 = tensor.empty() : tensor<768x2304xbf16>
    %transposed = linalg.transpose ins(%7 : tensor<2304x768xbf16>) outs(%23 : tensor<768x2304xbf16>) permutation = [1, 0] 
    %transposed_11 = linalg.transpose ins(%11 : tensor<768x768xbf16>) outs(%10 : tensor<768x768xbf16>) permutation = [1, 0] 
    %transposed_12 = linalg.transpose ins(%15 : tensor<3072x768xbf16>) outs(%17 : tensor<768x3072xbf16>) permutation = [1, 0] 
    %transposed_13 = linalg.transpose ins(%18 : tensor<768x3072xbf16>) outs(%14 : tensor<3072x768xbf16>) permutation = [1, 0] 
    %24 = tensor.empty() : tensor<768x50257xbf16>
    %transposed_14 = linalg.transpose ins(%20 : tensor<50257x768xbf16>) outs(%24 : tensor<768x50257xbf16>) permutation = [1, 0] 
    %25 = tensor.empty() : tensor<64xi1>
    %26 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed : tensor<64xi64>) outs(%25 : tensor<64xi1>) {
    ^bb0(%in: i64, %out: i1):
      %134 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %134 : i1
    } -> tensor<64xi1>
    %27 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %22 : tensor<1x64x768xf32>, tensor<64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %28 = tensor.empty() : tensor<i64>
    %29 = linalg.fill ins(%c0_i64 : i64) outs(%28 : tensor<i64>) -> tensor<i64>
    %30 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["reduction"]} ins(%26 : tensor<64xi1>) outs(%29 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %134 = arith.extui %in : i1 to i64
      %135 = arith.addi %134, %out : i64
      linalg.yield %135 : i64
    } -> tensor<i64>
    %31 = linalg.generic {indexing_maps = [#map2, #map2, #map2, #map2], iterator_types = ["parallel"]} ins(%26, %collapsed, %cst_10 : tensor<64xi1>, tensor<64xi64>, tensor<64xi64>) outs(%2 : tensor<64xi64>) {
    ^bb0(%in: i1, %in_42: i64, %in_43: i64, %out: i64):
      %134 = arith.select %in, %in_42, %in_43 : i64
      linalg.yield %134 : i64
    } -> tensor<64xi64>
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
    %47 = tensor.empty() : tensor<f32>
    %48 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = []} ins(%30 : tensor<i64>) outs(%47 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %134 = arith.sitofp %in : i64 to f32
      linalg.yield %134 : f32
    } -> tensor<f32>
    %expanded = tensor.expand_shape %31 [[0, 1]] output_shape [64, 1] : tensor<64xi64> into tensor<64x1xi64>
    %49 = tensor.empty() : tensor<1x64x768xbf16>
    %50 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%46 : tensor<1x64x768xf32>) outs(%49 : tensor<1x64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<1x64x768xbf16>
    %collapsed_17 = tensor.collapse_shape %50 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %51 = tensor.empty() : tensor<64x2304xf32>
    %52 = linalg.fill ins(%cst : f32) outs(%51 : tensor<64x2304xf32>) -> tensor<64x2304xf32>
    %53 = linalg.matmul ins(%collapsed_17, %transposed : tensor<64x768xbf16>, tensor<768x2304xbf16>) outs(%52 : tensor<64x2304xf32>) -> tensor<64x2304xf32>
    %54 = tensor.empty() : tensor<64x2304xbf16>
    %55 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%53 : tensor<64x2304xf32>) outs(%54 : tensor<64x2304xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<64x2304xbf16>
    %56 = linalg.generic {indexing_maps = [#map10, #map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%5, %55 : tensor<2304xbf16>, tensor<64x2304xbf16>) outs(%54 : tensor<64x2304xbf16>) {
    ^bb0(%in: bf16, %in_42: bf16, %out: bf16):
      %134 = arith.addf %in, %in_42 : bf16
      linalg.yield %134 : bf16
    } -> tensor<64x2304xbf16>
    %expanded_18 = tensor.expand_shape %56 [[0, 1], [2]] output_shape [1, 64, 2304] : tensor<64x2304xbf16> into tensor<1x64x2304xbf16>
    %extracted_slice = tensor.extract_slice %expanded_18[0, 0, 0] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %extracted_slice_19 = tensor.extract_slice %expanded_18[0, 0, 768] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %extracted_slice_20 = tensor.extract_slice %expanded_18[0, 0, 1536] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xbf16> to tensor<1x64x768xbf16>
    %expanded_21 = tensor.expand_shape %extracted_slice [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %expanded_22 = tensor.expand_shape %extracted_slice_19 [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %expanded_23 = tensor.expand_shape %extracted_slice_20 [[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xbf16> into tensor<1x64x12x64xbf16>
    %57 = tensor.empty() : tensor<1x12x64x64xbf16>
    %transposed_24 = linalg.transpose ins(%expanded_21 : tensor<1x64x12x64xbf16>) outs(%57 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_25 = linalg.transpose ins(%expanded_22 : tensor<1x64x12x64xbf16>) outs(%57 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %transposed_26 = linalg.transpose ins(%expanded_23 : tensor<1x64x12x64xbf16>) outs(%57 : tensor<1x12x64x64xbf16>) permutation = [0, 2, 1, 3] 
    %58:2 = call @sinter_call_0(%transposed_24, %transposed_25, %transposed_26) : (tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64x64xbf16>) -> (tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>)
    %59 = tensor.empty() : tensor<1x64x12x64xbf16>
    %transposed_27 = linalg.transpose ins(%58#0 : tensor<1x12x64x64xbf16>) outs(%59 : tensor<1x64x12x64xbf16>) permutation = [0, 2, 1, 3] 
    %collapsed_28 = tensor.collapse_shape %transposed_27 [[0, 1], [2, 3]] : tensor<1x64x12x64xbf16> into tensor<64x768xbf16>
    %60 = linalg.fill ins(%cst : f32) outs(%21 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %61 = linalg.matmul ins(%collapsed_28, %transposed_11 : tensor<64x768xbf16>, tensor<768x768xbf16>) outs(%60 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %62 = tensor.empty() : tensor<64x768xbf16>
    %63 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%61 : tensor<64x768xf32>) outs(%62 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<64x768xbf16>
    %64 = linalg.generic {indexing_maps = [#map10, #map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%9, %63 : tensor<768xbf16>, tensor<64x768xbf16>) outs(%62 : tensor<64x768xbf16>) {
    ^bb0(%in: bf16, %in_42: bf16, %out: bf16):
      %134 = arith.addf %in, %in_42 : bf16
      linalg.yield %134 : bf16
    } -> tensor<64x768xbf16>
    %expanded_29 = tensor.expand_shape %64 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xbf16> into tensor<1x64x768xbf16>
    %65 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %expanded_29 : tensor<1x64x768xf32>, tensor<1x64x768xbf16>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: bf16, %out: f32):
      %134 = arith.extf %in_42 : bf16 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x768xf32>
    %66 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%65 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %67 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%66 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_30 = tensor.collapse_shape %67 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %68 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_30 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %69 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%65, %68 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %70 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%69, %69 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %71 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%70 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %72 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%71 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %73 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%72 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.truncf %cst_8 : f64 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x1xf32>
    %74 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%73 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.rsqrt %in : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_31 = tensor.collapse_shape %74 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_31 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %76 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%69, %75 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %77 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76, %arg14 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %78 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%77, %arg15 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %79 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%78 : tensor<1x64x768xf32>) outs(%49 : tensor<1x64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<1x64x768xbf16>
    %collapsed_32 = tensor.collapse_shape %79 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %80 = tensor.empty() : tensor<64x3072xf32>
    %81 = linalg.fill ins(%cst : f32) outs(%80 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %82 = linalg.matmul ins(%collapsed_32, %transposed_12 : tensor<64x768xbf16>, tensor<768x3072xbf16>) outs(%81 : tensor<64x3072xf32>) -> tensor<64x3072xf32>
    %83 = tensor.empty() : tensor<64x3072xbf16>
    %84 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%82 : tensor<64x3072xf32>) outs(%83 : tensor<64x3072xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<64x3072xbf16>
    %85 = linalg.generic {indexing_maps = [#map10, #map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%13, %84 : tensor<3072xbf16>, tensor<64x3072xbf16>) outs(%83 : tensor<64x3072xbf16>) {
    ^bb0(%in: bf16, %in_42: bf16, %out: bf16):
      %134 = arith.addf %in, %in_42 : bf16
      linalg.yield %134 : bf16
    } -> tensor<64x3072xbf16>
    %expanded_33 = tensor.expand_shape %85 [[0, 1], [2]] output_shape [1, 64, 3072] : tensor<64x3072xbf16> into tensor<1x64x3072xbf16>
    %86 = tensor.empty() : tensor<1x64x3072xbf16>
    %87 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_33 : tensor<1x64x3072xbf16>) outs(%86 : tensor<1x64x3072xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %134 = math.fpowi %in, %c3_i64 : bf16, i64
      %135 = arith.mulf %134, %cst_0 : bf16
      %136 = arith.addf %in, %135 : bf16
      %137 = arith.mulf %136, %cst_1 : bf16
      %138 = math.tanh %137 : bf16
      %139 = arith.addf %138, %cst_2 : bf16
      %140 = arith.mulf %139, %cst_3 : bf16
      %141 = arith.mulf %in, %140 : bf16
      linalg.yield %141 : bf16
    } -> tensor<1x64x3072xbf16>
    %collapsed_34 = tensor.collapse_shape %87 [[0, 1], [2]] : tensor<1x64x3072xbf16> into tensor<64x3072xbf16>
    %88 = linalg.matmul ins(%collapsed_34, %transposed_13 : tensor<64x3072xbf16>, tensor<3072x768xbf16>) outs(%60 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %89 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%88 : tensor<64x768xf32>) outs(%62 : tensor<64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<64x768xbf16>
    %90 = linalg.generic {indexing_maps = [#map10, #map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%16, %89 : tensor<768xbf16>, tensor<64x768xbf16>) outs(%62 : tensor<64x768xbf16>) {
    ^bb0(%in: bf16, %in_42: bf16, %out: bf16):
      %134 = arith.addf %in, %in_42 : bf16
      linalg.yield %134 : bf16
    } -> tensor<64x768xbf16>
    %expanded_35 = tensor.expand_shape %90 [[0, 1], [2]] output_shape [1, 64, 768] : tensor<64x768xbf16> into tensor<1x64x768xbf16>
    %91 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%65, %expanded_35 : tensor<1x64x768xf32>, tensor<1x64x768xbf16>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: bf16, %out: f32):
      %134 = arith.extf %in_42 : bf16 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x768xf32>
    %92 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%91 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %93 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%92 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_36 = tensor.collapse_shape %93 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %94 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_36 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %95 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%91, %94 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %96 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%95, %95 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %97 = linalg.generic {indexing_maps = [#map1, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%96 : tensor<1x64x768xf32>) outs(%33 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %98 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%97 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.divf %in, %cst_9 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %99 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%98 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.truncf %cst_8 : f64 to f32
      %135 = arith.addf %in, %134 : f32
      linalg.yield %135 : f32
    } -> tensor<1x64x1xf32>
    %100 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%99 : tensor<1x64x1xf32>) outs(%32 : tensor<1x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.rsqrt %in : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x1xf32>
    %collapsed_37 = tensor.collapse_shape %100 [[0], [1, 2]] : tensor<1x64x1xf32> into tensor<1x64xf32>
    %101 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_37 : tensor<1x64xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x64x768xf32>
    %102 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%95, %101 : tensor<1x64x768xf32>, tensor<1x64x768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %103 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%102, %arg16 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.mulf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %104 = linalg.generic {indexing_maps = [#map1, #map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%103, %arg17 : tensor<1x64x768xf32>, tensor<768xf32>) outs(%0 : tensor<1x64x768xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<1x64x768xf32>
    %105 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104 : tensor<1x64x768xf32>) outs(%49 : tensor<1x64x768xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<1x64x768xbf16>
    %collapsed_38 = tensor.collapse_shape %105 [[0, 1], [2]] : tensor<1x64x768xbf16> into tensor<64x768xbf16>
    %106 = tensor.empty() : tensor<64x50257xf32>
    %107 = linalg.fill ins(%cst : f32) outs(%106 : tensor<64x50257xf32>) -> tensor<64x50257xf32>
    %108 = linalg.matmul ins(%collapsed_38, %transposed_14 : tensor<64x768xbf16>, tensor<768x50257xbf16>) outs(%107 : tensor<64x50257xf32>) -> tensor<64x50257xf32>
    %109 = tensor.empty() : tensor<64x50257xbf16>
    %110 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%108 : tensor<64x50257xf32>) outs(%109 : tensor<64x50257xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %134 = arith.truncf %in : f32 to bf16
      linalg.yield %134 : bf16
    } -> tensor<64x50257xbf16>
    %111 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%110 : tensor<64x50257xbf16>) outs(%106 : tensor<64x50257xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %134 = arith.extf %in : bf16 to f32
      linalg.yield %134 : f32
    } -> tensor<64x50257xf32>
    %112 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<64xi64>) -> tensor<64xi64>
    %113 = tensor.empty() : tensor<64xf32>
    %114 = linalg.fill ins(%cst_4 : f32) outs(%113 : tensor<64xf32>) -> tensor<64xf32>
    %115:2 = linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "reduction"]} ins(%111 : tensor<64x50257xf32>) outs(%114, %112 : tensor<64xf32>, tensor<64xi64>) {
    ^bb0(%in: f32, %out: f32, %out_42: i64):
      %134 = linalg.index 1 : index
      %135 = arith.index_cast %134 : index to i64
      %136 = arith.maximumf %in, %out : f32
      %137 = arith.cmpf ogt, %in, %out : f32
      %138 = arith.select %137, %135, %out_42 : i64
      linalg.yield %136, %138 : f32, i64
    } -> (tensor<64xf32>, tensor<64xi64>)
    %expanded_39 = tensor.expand_shape %115#0 [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
    %116 = tensor.empty() : tensor<64x1xf32>
    %117 = linalg.fill ins(%cst : f32) outs(%116 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %118 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<64x1xi64>) outs(%117 : tensor<64x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %134 = linalg.index 0 : index
      %135 = arith.index_cast %in : i64 to index
      %136 = arith.cmpi slt, %135, %c50257 : index
      cf.assert %136, "index must be smaller than dim size"
      %137 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %137, "index must be larger or equal to 0"
      %extracted = tensor.extract %111[%134, %135] : tensor<64x50257xf32>
      linalg.yield %extracted : f32
    } -> tensor<64x1xf32>
    %119 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded_39 : tensor<64x1xf32>) outs(%116 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.absf %in : f32
      linalg.yield %134 : f32
    } -> tensor<64x1xf32>
    %collapsed_40 = tensor.collapse_shape %118 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    %120 = tensor.empty() : tensor<64x1xi1>
    %121 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%119 : tensor<64x1xf32>) outs(%120 : tensor<64x1xi1>) {
    ^bb0(%in: f32, %out: i1):
      %134 = arith.extf %in : f32 to f64
      %135 = arith.cmpf oeq, %134, %cst_7 : f64
      linalg.yield %135 : i1
    } -> tensor<64x1xi1>
    %122 = linalg.generic {indexing_maps = [#map3, #map11, #map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%121, %cst_6, %expanded_39 : tensor<64x1xi1>, tensor<f32>, tensor<64x1xf32>) outs(%116 : tensor<64x1xf32>) {
    ^bb0(%in: i1, %in_42: f32, %in_43: f32, %out: f32):
      %134 = arith.select %in, %in_42, %in_43 : f32
      linalg.yield %134 : f32
    } -> tensor<64x1xf32>
    %collapsed_41 = tensor.collapse_shape %122 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    %123 = linalg.generic {indexing_maps = [#map3, #map12, #map3], iterator_types = ["parallel", "parallel"]} ins(%111, %122 : tensor<64x50257xf32>, tensor<64x1xf32>) outs(%106 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<64x50257xf32>
    %124 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%123 : tensor<64x50257xf32>) outs(%106 : tensor<64x50257xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.exp %in : f32
      linalg.yield %134 : f32
    } -> tensor<64x50257xf32>
    %125 = linalg.fill ins(%cst : f32) outs(%113 : tensor<64xf32>) -> tensor<64xf32>
    %126 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%124 : tensor<64x50257xf32>) outs(%125 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<64xf32>
    %127 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%126 : tensor<64xf32>) outs(%113 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = math.log %in : f32
      linalg.yield %134 : f32
    } -> tensor<64xf32>
    %128 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel"]} ins(%127, %collapsed_41 : tensor<64xf32>, tensor<64xf32>) outs(%113 : tensor<64xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.addf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<64xf32>
    %129 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel"]} ins(%128, %collapsed_40 : tensor<64xf32>, tensor<64xf32>) outs(%113 : tensor<64xf32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.subf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<64xf32>
    %130 = linalg.generic {indexing_maps = [#map2, #map2, #map2, #map2], iterator_types = ["parallel"]} ins(%26, %129, %cst_5 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32>) outs(%113 : tensor<64xf32>) {
    ^bb0(%in: i1, %in_42: f32, %in_43: f32, %out: f32):
      %134 = arith.select %in, %in_42, %in_43 : f32
      linalg.yield %134 : f32
    } -> tensor<64xf32>
    %131 = linalg.fill ins(%cst : f32) outs(%47 : tensor<f32>) -> tensor<f32>
    %132 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["reduction"]} ins(%130 : tensor<64xf32>) outs(%131 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %134 = arith.addf %in, %out : f32
      linalg.yield %134 : f32
    } -> tensor<f32>
    %133 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = []} ins(%132, %48 : tensor<f32>, tensor<f32>) outs(%47 : tensor<f32>) {
    ^bb0(%in: f32, %in_42: f32, %out: f32):
      %134 = arith.divf %in, %in_42 : f32
      linalg.yield %134 : f32
    } -> tensor<f32>
    return %3, %7, %11, %15, %18, %20, %26, %27, %31, %48, %35, %42, %50, %56, %58#0, %58#1, %transposed_27, %65, %67, %74, %79, %85, %87, %91, %93, %100, %105, %110, %128, %133 : tensor<64xi64>, tensor<2304x768xbf16>, tensor<768x768xbf16>, tensor<3072x768xbf16>, tensor<768x3072xbf16>, tensor<50257x768xbf16>, tensor<64xi1>, tensor<1x64x768xf32>, tensor<64xi64>, tensor<f32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x2304xbf16>, tensor<1x12x64x64xbf16>, tensor<1x12x64xf32>, tensor<1x64x12x64xbf16>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x3072xbf16>, tensor<1x64x3072xbf16>, tensor<1x64x768xf32>, tensor<1x64x1xf32>, tensor<1x64x1xf32>, tensor<1x64x768xbf16>, tensor<64x50257xbf16>, tensor<64xf32>, tensor<f32>
  }
}
