// RUN: sinter-opt %s --sinter-outline-cuda-kernels --split-input-file -verify-diagnostics

func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{the CUDA backend needs static shapes, got 'tensor<?x64xf32>'}}
  %y = sinter.rms_norm %x : tensor<?x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @softmax_leading_dim(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{the CUDA backend runs softmax over the trailing dimension only; got dimension 0 of 2}}
  %y = sinter.softmax %x dim 0 : tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

func.func @row_too_long(%x: tensor<2x2097152xf32>) -> tensor<2x2097152xf32> {
  // expected-error @+1 {{rows of 2097152 elements exceed what the register-resident CUDA row kernel holds (131072)}}
  %y = sinter.rms_norm %x : tensor<2x2097152xf32> -> tensor<2x2097152xf32>
  return %y : tensor<2x2097152xf32>
}

// -----

func.func @transposed_matmul(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{with transposed operands is not supported by the CUDA backend yet}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
