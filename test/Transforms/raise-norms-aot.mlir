// RUN: sinter-opt %s --sinter-fusion-pipeline 2>/dev/null | FileCheck %s

// torch.compile's forward graph of Linear -> LayerNorm -> Linear as
// AOTAutograd (core ATen) and torch-mlir's FX importer give it (unedited
// output of sinter.torch's backend, SINTER_TORCH_DUMP): the LayerNorm is
// decomposed into var_mean-style generics and its mean and rstd are
// returned in keepdim form ([8, 1]), saved for the backward. The norm is
// raised with both statistics as results, and the returned keepdim forms
// become expand_shapes of them.

// CHECK-LABEL: func.func @main
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = sinter.layer_norm %{{.*}} weight(%arg4 : tensor<64xf32>) bias(%arg5 : tensor<64xf32>) {{.*}}: tensor<8x64xf32> -> tensor<8x64xf32> mean(tensor<8xf32>) rstd(tensor<8xf32>)
// CHECK-DAG: %[[M1:.*]] = tensor.expand_shape %[[MEAN]] {{\[\[}}0, 1]] output_shape [8, 1]
// CHECK-DAG: %[[R1:.*]] = tensor.expand_shape %[[RSTD]] {{\[\[}}0, 1]] output_shape [8, 1]
// CHECK: return %{{.*}}, %{{.*}}, %[[Y]], %[[M1]], %[[R1]], %{{.*}} :
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<64x16xf32>, %arg1: tensor<4x64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<8x16xf32>, %arg4: tensor<64xf32>, %arg5: tensor<64xf32>, %arg6: tensor<4xf32>) -> (tensor<64x4xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 6.400000e+01 : f32
    %0 = tensor.empty() : tensor<16x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<64x16xf32>) outs(%0 : tensor<16x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<64x4xf32>
    %transposed_2 = linalg.transpose ins(%arg1 : tensor<4x64xf32>) outs(%1 : tensor<64x4xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<8x64xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.matmul ins(%arg3, %transposed : tensor<8x16xf32>, tensor<16x64xf32>) outs(%3 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg2, %4 : tensor<64xf32>, tensor<8x64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.addf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %6 = tensor.empty() : tensor<8x1xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<8x64xf32>) outs(%7 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<8x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.divf %in, %cst_1 : f32
      linalg.yield %25 : f32
    } -> tensor<8x1xf32>
    %collapsed = tensor.collapse_shape %9 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %10 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<8xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%5, %10 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.subf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%11, %11 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.mulf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<8x64xf32>) outs(%7 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.divf %in, %cst_1 : f32
      linalg.yield %25 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.truncf %cst_0 : f64 to f32
      %26 = arith.addf %in, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.rsqrt %in : f32
      linalg.yield %25 : f32
    } -> tensor<8x1xf32>
    %collapsed_3 = tensor.collapse_shape %16 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel"]} ins(%collapsed_3 : tensor<8xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%11, %17 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.mulf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel"]} ins(%18, %arg4 : tensor<8x64xf32>, tensor<64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.mulf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel"]} ins(%19, %arg5 : tensor<8x64xf32>, tensor<64xf32>) outs(%2 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.addf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x64xf32>
    %21 = tensor.empty() : tensor<8x4xf32>
    %22 = linalg.fill ins(%cst : f32) outs(%21 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %23 = linalg.matmul ins(%20, %transposed_2 : tensor<8x64xf32>, tensor<64x4xf32>) outs(%22 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg6, %23 : tensor<4xf32>, tensor<8x4xf32>) outs(%21 : tensor<8x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %25 = arith.addf %in, %in_4 : f32
      linalg.yield %25 : f32
    } -> tensor<8x4xf32>
    return %transposed_2, %5, %20, %9, %16, %24 : tensor<64x4xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x4xf32>
  }
}
