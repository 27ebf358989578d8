// Issue #17, crash 4: reassociation index 4294967297, which upstream's
// verifier reads as 1, reached the softmax matcher's reshape view builder.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#keep2 = affine_map<(d0, d1) -> (d0, 0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func @torch_trailing(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %mk = tensor.expand_shape %m [[0, 4294967297]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %sub = linalg.generic {indexing_maps = [#id2, #keep2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mk : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x16xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %sk = tensor.expand_shape %s [[0, 4294967297]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [#id2, #keep2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %sk : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
