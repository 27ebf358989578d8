// A scalar the CUDA runtime has no dtype for (see ../cuda-arguments.mlir).
func.func @complex_scalar(%x: tensor<4x64xf32>,
                          %c: complex<f32>) -> tensor<4x64xf32> {
  %y = sinter.fused ins(%x : tensor<4x64xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%v: f32):
    %r = arith.mulf %v, %v : f32
    sinter.yield %r : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
