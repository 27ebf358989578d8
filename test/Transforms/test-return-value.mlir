// sinter-test-return-value (tools/sinter-opt/TestReturnValue.cpp), which
// test/Frontends/tools/bisect_cuda.py uses to compile prefixes of a model:
// index=-1 counts the tensor values, index=K returns the K-th and drops
// what follows; an index past the end is an error.
// RUN: sinter-opt %s --sinter-test-return-value -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: sinter-opt %s --sinter-test-return-value=index=1 | FileCheck %s
// RUN: not sinter-opt %s --sinter-test-return-value=index=3 2>&1 | FileCheck %s --check-prefix=PAST

// COUNT: remark: 3 tensor values
// CHECK-LABEL: func.func @chain
// CHECK-SAME: -> tensor<4xf32>
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK: return %[[T]] : tensor<4xf32>
// CHECK-NOT: math.log
// PAST: error: index 3 is past the 3 tensor values
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}
