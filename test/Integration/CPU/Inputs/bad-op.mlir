func.func @f(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  return %y : tensor<4x8xf32>
}
