// RUN: sinter-opt %s -split-input-file --sinter-fusion-pipeline 2>/dev/null | FileCheck %s
// RUN: sinter-opt %s -split-input-file --sinter-fusion-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// RMSNorm's input gradient as autograd writes it for F.rms_norm's
// decomposition: dx = rstd * g + (rowsum(g * x) * -0.5 * rstd^3 / N) * 2x
// with g = dy * weight (math.fpowi for rstd^3 and for x^1). Reduced from
// torch.compile's backward graph of Linear -> RMSNorm -> Linear (the
// backend's output before it merged saved aliases): there the rstd^3 read
// `alias`, a second saved copy of rstd that AOTAutograd passes as its own
// argument (%arg2), which the matcher cannot prove equal to rstd; the
// backend now reads both as one value, as here (%arg7). Raised to sinter.rms_norm_backward; the weight gradient
// reads the forward's saved x * rstd and stays a column sum.

// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = tensor.collapse_shape %arg7 {{\[\[}}0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK: sinter.rms_norm_backward %{{.*}}, %arg3, %[[R]] weight(%arg6 : tensor<64xf32>) {{.*}}: tensor<8x64xf32>, tensor<8xf32> -> tensor<8x64xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<64x4xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<8x1xf32>, %arg3: tensor<8x64xf32>, %arg4: tensor<8x64xf32>, %arg5: tensor<8x64xf32>, %arg6: tensor<64xf32>, %arg7: tensor<8x1xf32>, %arg8: tensor<8x16xf32>) -> (tensor<4xf32>, tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x16xf32>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %cst_1 = arith.constant -5.000000e-01 : f32
    %cst_2 = arith.constant 6.400000e+01 : f32
    %0 = tensor.empty() : tensor<4x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<64x4xf32>) outs(%0 : tensor<4x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<4x8xf32>
    %transposed_3 = linalg.transpose ins(%arg1 : tensor<8x4xf32>) outs(%1 : tensor<4x8xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<1x4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x4xf32>) -> tensor<1x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<8x4xf32>) outs(%3 : tensor<1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x4xf32>
    %5 = tensor.empty() : tensor<8x64xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %8 = linalg.matmul ins(%arg1, %transposed : tensor<8x4xf32>, tensor<4x64xf32>) outs(%7 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %10 = linalg.matmul ins(%transposed_3, %arg4 : tensor<4x8xf32>, tensor<8x64xf32>) outs(%9 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
    %11 = tensor.empty() : tensor<8x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.mulf %in, %cst_0 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg5 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg6 : tensor<8x64xf32>, tensor<64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %16 = tensor.empty() : tensor<1x64xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%14 : tensor<8x64xf32>) outs(%17 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x64xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg7 : tensor<8x64xf32>, tensor<8x1xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %collapsed_4 = tensor.collapse_shape %18 [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%11 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%19 : tensor<8x64xf32>) outs(%21 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.mulf %in, %cst_1 : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %12 : tensor<8x1xf32>, tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %collapsed_5 = tensor.collapse_shape %24 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %25 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_5 : tensor<8xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%25 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_2 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%26, %13 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %27 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.addf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %29 = tensor.empty() : tensor<64x8xf32>
    %transposed_6 = linalg.transpose ins(%28 : tensor<8x64xf32>) outs(%29 : tensor<64x8xf32>) permutation = [1, 0] 
    %30 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%28 : tensor<8x64xf32>) outs(%17 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x64xf32>
    %31 = tensor.empty() : tensor<64x16xf32>
    %32 = linalg.fill ins(%cst : f32) outs(%31 : tensor<64x16xf32>) -> tensor<64x16xf32>
    %33 = linalg.matmul ins(%transposed_6, %arg8 : tensor<64x8xf32>, tensor<8x16xf32>) outs(%32 : tensor<64x16xf32>) -> tensor<64x16xf32>
    %collapsed_7 = tensor.collapse_shape %30 [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
    return %collapsed, %10, %collapsed_4, %collapsed_7, %33 : tensor<4xf32>, tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x16xf32>
  }
}

// -----

// The same graph with rstd squared where its gradient cubes it: not
// RMSNorm's input gradient, said in a remark, and nothing raised.
// REMARK: remark: not fused as norm_backward: the correction term is not x * rstd^3 * rowsum(g * x)
// CHECK-LABEL: func.func @main
// CHECK-NOT: sinter.rms_norm_backward
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<64x4xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<8x1xf32>, %arg3: tensor<8x64xf32>, %arg4: tensor<8x64xf32>, %arg5: tensor<8x64xf32>, %arg6: tensor<64xf32>, %arg7: tensor<8x1xf32>, %arg8: tensor<8x16xf32>) -> (tensor<4xf32>, tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x16xf32>) {
    %c3_i64 = arith.constant 2 : i64
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %cst_1 = arith.constant -5.000000e-01 : f32
    %cst_2 = arith.constant 6.400000e+01 : f32
    %0 = tensor.empty() : tensor<4x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<64x4xf32>) outs(%0 : tensor<4x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<4x8xf32>
    %transposed_3 = linalg.transpose ins(%arg1 : tensor<8x4xf32>) outs(%1 : tensor<4x8xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<1x4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x4xf32>) -> tensor<1x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<8x4xf32>) outs(%3 : tensor<1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x4xf32>
    %5 = tensor.empty() : tensor<8x64xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %8 = linalg.matmul ins(%arg1, %transposed : tensor<8x4xf32>, tensor<4x64xf32>) outs(%7 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %10 = linalg.matmul ins(%transposed_3, %arg4 : tensor<4x8xf32>, tensor<8x64xf32>) outs(%9 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
    %11 = tensor.empty() : tensor<8x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.mulf %in, %cst_0 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg5 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg6 : tensor<8x64xf32>, tensor<64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %16 = tensor.empty() : tensor<1x64xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%14 : tensor<8x64xf32>) outs(%17 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x64xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg7 : tensor<8x64xf32>, tensor<8x1xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %collapsed_4 = tensor.collapse_shape %18 [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%11 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%19 : tensor<8x64xf32>) outs(%21 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.mulf %in, %cst_1 : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %12 : tensor<8x1xf32>, tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x1xf32>
    %collapsed_5 = tensor.collapse_shape %24 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %25 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_5 : tensor<8xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%25 : tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_2 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%26, %13 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.mulf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %27 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%5 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %34 = arith.addf %in, %in_8 : f32
      linalg.yield %34 : f32
    } -> tensor<8x64xf32>
    %29 = tensor.empty() : tensor<64x8xf32>
    %transposed_6 = linalg.transpose ins(%28 : tensor<8x64xf32>) outs(%29 : tensor<64x8xf32>) permutation = [1, 0] 
    %30 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%28 : tensor<8x64xf32>) outs(%17 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x64xf32>
    %31 = tensor.empty() : tensor<64x16xf32>
    %32 = linalg.fill ins(%cst : f32) outs(%31 : tensor<64x16xf32>) -> tensor<64x16xf32>
    %33 = linalg.matmul ins(%transposed_6, %arg8 : tensor<64x8xf32>, tensor<8x16xf32>) outs(%32 : tensor<64x16xf32>) -> tensor<64x16xf32>
    %collapsed_7 = tensor.collapse_shape %30 [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
    return %collapsed, %10, %collapsed_4, %collapsed_7, %33 : tensor<4xf32>, tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x16xf32>
  }
}
