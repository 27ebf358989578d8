// A two-layer MLP on tensors (unfused linalg), used by sinterc.test.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>,
               %b1: tensor<64xf32>, %w2: tensor<64x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>)
                     outs(%f1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<8x64xf32>, tensor<64xf32>) outs(%e1 : tensor<8x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %a : tensor<8x16xf32>, tensor<8x64xf32>
}

// Private helpers are not entry points.
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
