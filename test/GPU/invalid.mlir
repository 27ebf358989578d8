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
