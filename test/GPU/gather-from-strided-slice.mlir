// RUN: sinter-opt %s --sinter-tensor-ops-to-linalg --sinter-outline-cuda-kernels -verify-diagnostics

// A gather from a strided slice is not read in the slice's source
// (sinter-tensor-ops-to-linalg's ExtractFromSlice takes unit strides only:
// reading the source at offset + index would take the wrong elements). The
// slice stays, and the CUDA backend says it cannot copy it.
func.func @gather_from_strided_slice(%padded: tensor<4x16xf32>, %target: tensor<4x1xi64>) -> tensor<4x1xf32> {
  // expected-error @+1 {{the CUDA backend copies slices with static offsets, unit strides and no rank reduction only}}
  %logits = tensor.extract_slice %padded[0, 0] [4, 8] [1, 2] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%target : tensor<4x1xi64>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%t: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %t : i64 to index
    %v = tensor.extract %logits[%i, %j] : tensor<4x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}
